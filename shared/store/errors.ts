/**
 * What the storage layer can say went wrong, in its own words. The store never imports the
 * HTTP layer: the errors a client may see extend the domain base `ApiError` (shared/core/errors.ts)
 * with the contract's code, and internal outcomes (a lost version race, a refused
 * transaction) are plain errors that a store maps to its own domain error
 * (`TransactEntry.onConditionFailed`) or retries (`retryOnConflict`).
 */
import { ApiError } from '../core/errors';

/** A record looked up by id does not exist (in either mode). */
export class RecordNotFoundError extends ApiError {
  override name = 'RecordNotFoundError';
  constructor(
    readonly entity: string,
    readonly id: string,
    /** The id property, named in the 404's meta (`parameter`). */
    readonly idField: string,
  ) {
    super(404, 'resource_not_found', `The ${entity} ${id} does not exist.`, { parameter: idField });
  }
}

/** A record looked up by id exists only in the other mode (test vs live). */
export class OtherModeError extends ApiError {
  override name = 'OtherModeError';
  constructor(
    readonly entity: string,
    readonly id: string,
  ) {
    super(400, 'token_type_mismatch', `The ${entity} ${id} belongs to the other mode than the access token.`);
  }
}

/** A record created with a client-chosen id that is already taken. */
export class RecordExistsError extends ApiError {
  override name = 'RecordExistsError';
  constructor(
    readonly entity: string,
    readonly id: string,
    readonly idField: string,
  ) {
    super(409, 'in_use', `The ${entity} id ${id} is already in use.`, { property: idField, reason: 'conflict' });
  }
}

/** A versioned save lost against a concurrent change of the same record (retried by `retryOnConflict`). */
export class VersionConflictError extends Error {
  override name = 'VersionConflictError';
}

/** `retryOnConflict` lost every round: the record kept changing. */
export class ConflictRetriesExhaustedError extends ApiError {
  override name = 'ConflictRetriesExhaustedError';
  constructor() {
    super(422, 'request_failure', 'The resource kept changing while this request applied its changes; retry.');
  }
}

/**
 * A transaction (or single conditional write) was refused. `rejected` names the entries whose
 * condition failed, in entry order; `conflictOnly` is true when DynamoDB cancelled it only
 * because of concurrent transactions (nothing was wrong with the data).
 */
export class TransactionRejectedError extends Error {
  override name = 'TransactionRejectedError';
  constructor(
    readonly rejected: readonly string[],
    readonly conflictOnly: boolean,
  ) {
    super(rejected.length ? `Rejected: ${rejected.join(', ')}` : 'The transaction was cancelled by a concurrent transaction');
  }

  /** Whether the entry named `name` was refused by its condition. */
  refused(name: string): boolean {
    return this.rejected.includes(name);
  }
}
