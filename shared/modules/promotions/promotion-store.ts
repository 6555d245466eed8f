/**
 * Where promotions live: the promotion entity (listed in creation order through the bucketed
 * offset index), the claim items that keep a code unique per account and mode, and the use
 * counters a payment moves. A taken code is a 409 in_use on `code`; a lost version race is a
 * `VersionConflictError` the caller's `retryOnConflict` reads again after.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { InUseError } from '../../http/errors';
import { db, table } from '../../store/client';
import { atVersion, defineEntity, EXISTS, transact, TransactionRejectedError, type RecordScope, type TransactEntry } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import { bucketCounterWrite, listingKeys, reserveSequence } from '../../store/offset-index';
import type { PromotionRecord } from './promotions';

const promotions = defineEntity<PromotionRecord>({ name: 'promotion', collection: 'promotions', scope: 'mode', idField: 'promotion_id',
  indexes: { gsi1: 'promotions by creation sequence (offset list); deleted ones under <partition>#deleted' } });

/** The key of a promotion record. */
export function promotionKey(scope: RecordScope, promotionId: string): { pk: string; sk: string } {
  return promotions.key(scope, promotionId);
}

/** The listing partition of the promotions of a scope (deleted ones sit under `<partition>#deleted`). */
export function promotionListing(scope: RecordScope): string {
  return promotions.partition(scope);
}

/** The claim that makes a code unique per account and mode, case-insensitively. */
export function codeClaimKey(scope: RecordScope, code: string): { pk: string; sk: string } {
  return { pk: `${scope.accountId}#${scope.mode}#promotion-code#${code.toLowerCase()}`, sk: 'claim' };
}

function codeTaken(code: string): InUseError {
  return new InUseError(`The promotion code ${code} is already in use.`, { property: 'code', reason: 'conflict' });
}

/** Claim entries for a code change; none when only the letter case changes. */
function codeClaimEntries(scope: RecordScope, promotionId: string, before: string | null, after: string): TransactEntry[] {
  if (before !== null && before.toLowerCase() === after.toLowerCase()) return [];
  const entries: TransactEntry[] = [
    {
      name: 'promotion.claim-code',
      item: { Put: { TableName: table(), Item: { ...codeClaimKey(scope, after), promotion_id: promotionId }, ConditionExpression: 'attribute_not_exists(pk)' } },
      onConditionFailed: () => codeTaken(after),
    },
  ];
  if (before !== null) entries.push({ name: 'promotion.release-code', item: { Delete: { TableName: table(), Key: codeClaimKey(scope, before) } } });
  return entries;
}

/** Reserves the next listing position of a new promotion, and the listing keys it gives the record. */
export async function reservePromotionPosition(scope: RecordScope): Promise<{ seq: number; gsi1pk: string; gsi1sk: string }> {
  const partition = promotions.partition(scope);
  const seq = await reserveSequence(partition);
  return { seq, ...listingKeys(partition, seq) };
}

/** Writes a new promotion with its bucket counter and code claim; a taken id or code answers 409 in_use. */
export async function insertPromotion(scope: RecordScope, record: PromotionRecord): Promise<void> {
  await promotions.create(record, { sequence: record.seq, scope, extra: codeClaimEntries(scope, record.promotion_id, null, record.code) });
}

/**
 * Sets `changed` on a promotion if it is still at the version read, moving it in or out of the
 * listing count when `deleted` changes and its code claim when the code changes. Only the
 * named attributes are written, so the use counters payments move are never overwritten.
 */
export async function updatePromotion(current: PromotionRecord, next: PromotionRecord, changed: Record<string, unknown>): Promise<void> {
  const scope = { accountId: current.account_id, mode: current.mode };
  const lostRace = () => new VersionConflictError(`Promotion ${current.promotion_id} changed concurrently`);
  const entries: TransactEntry[] = [
    promotions.updateEntry(scope, current.promotion_id, { name: 'promotion.update', set: changed, condition: atVersion(current.modified_ms), onConditionFailed: lostRace }),
  ];
  if (next.deleted !== current.deleted) {
    entries.push({ name: 'promotion.bucket-counter', item: bucketCounterWrite(promotions.partition(scope), current.seq, next.deleted ? -1 : 1) });
  }
  entries.push(...codeClaimEntries(scope, current.promotion_id, current.code, next.code));
  try {
    await transact(entries);
  } catch (error) {
    // Anything else that cancelled the write (concurrent transactions) is read again and retried too.
    if (error instanceof TransactionRejectedError) throw lostRace();
    throw error;
  }
}

/** A promotion by id, or undefined (strongly consistent). */
export async function findPromotionRecord(scope: RecordScope, promotionId: string): Promise<PromotionRecord | undefined> {
  return promotions.find(scope, promotionId);
}

/** The id of the promotion a code is claimed by (case-insensitively), or undefined. */
export async function promotionIdOfCode(scope: RecordScope, code: string): Promise<string | undefined> {
  const claim = await db().send(new GetCommand({ TableName: table(), Key: codeClaimKey(scope, code), ConsistentRead: true }));
  return claim.Item?.promotion_id as string | undefined;
}

/**
 * Reserves one use for a payment about to charge: holds only while `claimed_uses` (paid uses
 * plus running payments) is below `max_uses`, so a code is never charged for beyond it. A
 * refused entry means the code is used up (400 invalid_promotion_code `max_uses_reached`,
 * which the payment answers with the sale's code).
 */
export function reserveUseWrite(scope: RecordScope, promotionId: string): TransactEntry {
  return {
    name: 'promotion.reserve-use',
    item: {
      Update: {
        TableName: table(),
        Key: promotionKey(scope, promotionId),
        UpdateExpression: 'ADD claimed_uses :one',
        ConditionExpression: `${EXISTS.expression} AND (attribute_not_exists(max_uses) OR max_uses = :null OR claimed_uses < max_uses)`,
        ExpressionAttributeValues: { ':one': 1, ':null': null },
      },
    },
  };
}

/** Gives a reserved use back (the charge failed): written with the failed payment, unconditionally, so it never blocks that record. */
export function releaseUseWrite(scope: RecordScope, promotionId: string): TransactEntry {
  return {
    name: 'promotion.release-use',
    item: {
      Update: {
        TableName: table(),
        Key: promotionKey(scope, promotionId),
        UpdateExpression: 'ADD claimed_uses :minus',
        ExpressionAttributeValues: { ':minus': -1 },
      },
    },
  };
}

/**
 * Counts the paid use (§5.1 step 4), in the completion transaction. The use was reserved
 * before the charge, so this has no condition that could cancel a completion after a charge.
 */
export function countUseWrite(scope: RecordScope, promotionId: string): TransactEntry {
  return {
    name: 'promotion.count-use',
    item: {
      Update: {
        TableName: table(),
        Key: promotionKey(scope, promotionId),
        UpdateExpression: 'ADD #uses :one',
        ExpressionAttributeNames: { '#uses': 'uses' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  };
}
