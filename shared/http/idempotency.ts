/**
 * `Idempotency-Key` on POST (conventions.md section 19), built on Powertools idempotency
 * with its DynamoDB persistence layer in the platform table.
 *
 * - Keys are scoped to the calling token: records live in the partition
 *   `idempotency#<token hash>`, sorted by the hashed key.
 * - The fingerprint (method, path, canonical body) is Powertools' payload validation, so a
 *   reused key with another body or path fails, and a running first request makes a second
 *   one fail as "in progress".
 * - Only answers the contract stores are stored: the wrapped function throws for 400, 401,
 *   403, 404 and 429, and Powertools deletes the record on a throw, so the key may be retried.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'aws-lambda';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { SecretsPort } from '../platform/ports';
import { baseDb, table } from '../store/client';
import { ApiError, InUseError, InvalidInputError } from './errors';
import type { ApiResult } from './types';

/** Retention of a key: 24 hours from the first request. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** Statuses whose answers are not stored (the caller may fix the request and reuse the key). */
const NOT_STORED = new Set([400, 401, 403, 404, 429]);

const KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** Validates an `Idempotency-Key` header value: 1–255 printable ASCII characters. */
export function checkIdempotencyKey(key: string): string {
  if (!KEY_PATTERN.test(key)) {
    throw new InvalidInputError('The Idempotency-Key header must be 1 to 255 printable ASCII characters.', {
      parameter: 'Idempotency-Key',
      reason: 'invalid',
    });
  }
  return key;
}

/** A JSON value with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** An answer that must not be stored; carried through Powertools as a throw. */
class UnstoredAnswer extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

/** A stored answer: the result (sealed when it holds a secret) and the id of the request that produced it. */
interface StoredAnswer {
  requestId: string;
  result?: ApiResult;
  sealed?: string;
  replayed?: boolean;
}

/** What an idempotent run needs. */
export interface IdempotentRun {
  tokenHash: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
  requestId: string;
  lambdaContext: Context | undefined;
  /** Seals replay copies of answers that hold a secret. */
  secrets: SecretsPort;
  /** Runs the action; ApiErrors it throws become answers (stored or not by status). */
  execute: () => Promise<ApiResult>;
  /** Turns an error into the answer the client sees (the error envelope). */
  errorResult: (error: unknown) => ApiResult;
}

/**
 * Runs a POST once per (token, key): the first request executes, later identical ones get the
 * stored answer with `Idempotent-Replayed: true`. Returns the answer to send.
 */
export async function runIdempotent(run: IdempotentRun): Promise<ApiResult> {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: table(),
    keyAttr: 'pk',
    sortKeyAttr: 'sk',
    staticPkValue: `idempotency#${run.tokenHash}`,
    expiryAttr: 'ttl',
    awsSdkV3Client: baseDb(),
  });
  const idempotencyConfig = new IdempotencyConfig({
    eventKeyJmesPath: 'key',
    payloadValidationJmesPath: 'fingerprint',
    expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
    responseHook: (response) => ({ ...(response as object), replayed: true }),
    ...(run.lambdaContext ? { lambdaContext: run.lambdaContext } : {}),
  });
  const purpose = `idempotency:${run.tokenHash}`;
  // The answer of this execution, as sent (Powertools returns only what it stored).
  let fresh: ApiResult | undefined;
  const once = makeIdempotent(
    async (_event: { key: string; fingerprint: string }): Promise<StoredAnswer> => {
      let result: ApiResult;
      try {
        result = await run.execute();
      } catch (error) {
        if (error instanceof ApiError && NOT_STORED.has(error.status)) throw new UnstoredAnswer(error);
        result = run.errorResult(error);
      }
      // A replay copy of a secret (a new token) is kept only sealed, never in clear.
      fresh = result;
      if (result.sensitive) return { requestId: run.requestId, sealed: await run.secrets.seal(JSON.stringify(result), purpose) };
      return { requestId: run.requestId, result };
    },
    { persistenceStore, config: idempotencyConfig, keyPrefix: 'api' },
  );
  const fingerprint = createHash('sha256')
    .update(`${run.method} ${run.path}\n${canonicalJson(run.body ?? null)}`)
    .digest('hex');
  try {
    const answer = (await once({ key: run.key, fingerprint })) as StoredAnswer;
    if (!answer.replayed) return fresh ?? answer.result!;
    const result = answer.sealed ? (JSON.parse(await run.secrets.open(answer.sealed, purpose)) as ApiResult) : answer.result!;
    return { ...result, headers: { ...result.headers, 'Idempotent-Replayed': 'true' } };
  } catch (error) {
    if (error instanceof UnstoredAnswer) throw error.error;
    if (error instanceof IdempotencyValidationError) {
      throw new InUseError('This Idempotency-Key was already used for a different request.', {
        parameter: 'Idempotency-Key',
        reason: 'conflict',
      });
    }
    if (error instanceof IdempotencyAlreadyInProgressError) {
      throw new InUseError('A request with this Idempotency-Key is still in progress.', {
        parameter: 'Idempotency-Key',
        reason: 'in_progress',
      });
    }
    throw error;
  }
}
