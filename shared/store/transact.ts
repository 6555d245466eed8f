/**
 * Conditional writes and transactions with named entries.
 *
 * Every write a store makes is a `TransactEntry`: the DynamoDB entry plus a name, and
 * optionally the domain error its failed condition means. `transact` runs several entries
 * atomically and reports a cancellation by entry name (never by position); `writeOne` runs a
 * single entry as a plain Put/Update/Delete. Both recognise a failed condition the same way
 * (`isConditionFailure`), so no module decodes SDK errors by hand.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { TransactionRejectedError } from './errors';
import { recordOf } from './storage';

/** One raw entry of a TransactWriteItems call. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A named write: what to write, and what a failed condition on it means. */
export interface TransactEntry {
  /** Names the entry in errors and tests, e.g. `cart.lock` or `promotion.reserve-use`. */
  name: string;
  item: TransactItem;
  /** The domain error to throw when this entry's condition fails (first such entry wins). */
  onConditionFailed?: () => Error;
}

/**
 * Names the raw items of a module that is not on the entity helper yet (event records), so
 * they can join a store's transaction; they carry no condition, hence no domain error.
 */
export function namedEntries(name: string, items: readonly TransactItem[]): TransactEntry[] {
  return items.map((item) => ({ name, item }));
}

/** Options of `transact`. */
export interface TransactOptions {
  /**
   * Rounds to run a transaction that DynamoDB cancelled only for `TransactionConflict` (a
   * concurrent transaction on the same item). A cancelled transaction applied nothing, so a
   * rerun is safe. Default 6.
   */
  conflictAttempts?: number;
  /** ClientRequestToken: a repeated call with the same token within 10 minutes applies once. */
  token?: string;
}

/** Whether an SDK error is a failed condition of a single write. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as Error | undefined)?.name === 'ConditionalCheckFailedException';
}

/**
 * Runs `entries` in one TransactWriteItems call. A cancellation throws the
 * `onConditionFailed` error of the first refused entry that has one, else a
 * `TransactionRejectedError` naming the refused entries.
 */
export async function transact(entries: readonly TransactEntry[], options: TransactOptions = {}): Promise<void> {
  const attempts = options.conflictAttempts ?? 6;
  for (let round = 1; ; round++) {
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: entries.map((entry) => entry.item),
          ...(options.token ? { ClientRequestToken: options.token } : {}),
        }),
      );
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const rejection = rejectionOf(entries, error);
      if (rejection instanceof TransactionRejectedError && rejection.conflictOnly && round < attempts) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * round));
        continue;
      }
      throw rejection;
    }
  }
}

/** Maps a cancellation to the entries it refused (by name) or to their domain error. */
function rejectionOf(entries: readonly TransactEntry[], error: TransactionCanceledException): Error {
  const reasons = error.CancellationReasons ?? [];
  const rejected = entries.filter((_, index) => reasons[index]?.Code === 'ConditionalCheckFailed');
  const mapped = rejected.find((entry) => entry.onConditionFailed);
  if (mapped) return mapped.onConditionFailed!();
  const conflictOnly = rejected.length === 0 && reasons.some((reason) => reason.Code === 'TransactionConflict');
  return new TransactionRejectedError(
    rejected.map((entry) => entry.name),
    conflictOnly,
  );
}

/** Runs one entry as a plain write (Put, Update, Delete or a lone ConditionCheck is refused). */
export async function writeOne(entry: TransactEntry): Promise<void> {
  await writeReturning(entry);
}

/** Runs one Update entry and answers the record as written, without storage attributes (no second read to learn it). */
export async function updateReturning<T>(entry: TransactEntry): Promise<T> {
  if (!entry.item.Update) throw new Error(`Entry ${entry.name} is not an update`);
  return recordOf<T>((await writeReturning(entry, true))!);
}

async function writeReturning(entry: TransactEntry, returnNew = false): Promise<Record<string, unknown> | undefined> {
  const { item } = entry;
  try {
    if (item.Put) await db().send(new PutCommand(item.Put));
    else if (item.Update) {
      const input = { ...(item.Update as ConstructorParameters<typeof UpdateCommand>[0]), ...(returnNew ? { ReturnValues: 'ALL_NEW' as const } : {}) };
      return (await db().send(new UpdateCommand(input))).Attributes;
    } else if (item.Delete) await db().send(new DeleteCommand(item.Delete));
    else throw new Error(`Entry ${entry.name} has nothing to write on its own`);
    return undefined;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw entry.onConditionFailed?.() ?? new TransactionRejectedError([entry.name], false);
  }
}

/** Runs entries as a transaction, or as a plain write when there is only one (one call either way, cheaper alone). */
export async function writeAll(entries: readonly TransactEntry[], options: TransactOptions = {}): Promise<void> {
  if (entries.length === 1 && !options.token) return writeOne(entries[0]!);
  return transact(entries, options);
}
