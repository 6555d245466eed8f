/**
 * Where promotions live: the promotion entity (listed in creation order through the bucketed
 * offset index), the claim items that keep a code unique per account and mode, and the use
 * counters a payment moves. A taken code is a 409 in_use on `code`; a lost version race reads
 * and changes again (the entity's versioned update).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { InUseError } from '../../http/errors';
import { db, table } from '../../store/client';
import { bySequence, defineEntity, EXISTS, type Change, type RecordScope, type Revision, type TransactEntry, type UpdateOptions } from '../../store/entity';
import { bucketCounterWrite, reserveSequence } from '../../store/offset-index';
import type { PromotionRecord } from './promotions';

/** Where deleted promotions are listed: apart, uncounted. */
const deletedListing = (partition: string) => `${partition}#deleted`;

const promotions = defineEntity<PromotionRecord>({ name: 'promotion', collection: 'promotions', scope: 'mode', idField: 'promotion_id',
  indexes: { gsi1: 'promotions by creation sequence (offset list); deleted ones under <partition>#deleted' },
  indexKeys: (promotion, partition) => ({ gsi1: bySequence(promotion.deleted ? deletedListing(partition) : partition, promotion.seq) }) });

/** The key of a promotion record. */
function promotionKey(scope: RecordScope, promotionId: string): { pk: string; sk: string } {
  return promotions.key(scope, promotionId);
}

/** The listing partition of the promotions of a scope, or of its deleted ones (not counted). */
export function promotionListing(scope: RecordScope, deleted = false): string {
  return deleted ? deletedListing(promotions.partition(scope)) : promotions.partition(scope);
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

/** Reserves the listing position (sequence) of a new promotion. */
export async function reservePromotionSequence(scope: RecordScope): Promise<number> {
  return reserveSequence(promotions.partition(scope));
}

/** Writes a new promotion with its bucket counter and code claim; a taken id or code answers 409 in_use. */
export async function insertPromotion(scope: RecordScope, record: PromotionRecord): Promise<void> {
  await promotions.create(record, { sequence: record.seq, scope, extra: codeClaimEntries(scope, record.promotion_id, null, record.code) });
}

/** A promotion revision as the store writes it: counted out of or into the listing when `deleted` changes, its code claim moved when the code changes. */
function storedRevision(current: PromotionRecord, revision: Revision<PromotionRecord>): Revision<PromotionRecord> {
  const { next } = revision;
  const scope = { accountId: current.account_id, mode: current.mode };
  const entries: TransactEntry[] = [];
  if (next.deleted !== current.deleted) {
    entries.push({ name: 'promotion.bucket-counter', item: bucketCounterWrite(promotions.partition(scope), current.seq, next.deleted ? -1 : 1) });
  }
  entries.push(...codeClaimEntries(scope, current.promotion_id, current.code, next.code));
  return { ...revision, extra: [...(revision.extra ?? []), ...entries] };
}

/**
 * How a promotion is written: only the revision's `set` attributes, so the use counters a payment
 * moves meanwhile are never overwritten, always in a transaction; anything else that cancels it
 * (concurrent transactions) is a lost race too, read again.
 */
const WRITE: UpdateOptions<PromotionRecord> = { name: 'promotion.update', transaction: true, refusalIsConflict: true };

/** Writes `revision` if the promotion is still at the version of `current` (a lost race: `VersionConflictError`). */
export async function revisePromotion(current: PromotionRecord, revision: Revision<PromotionRecord>): Promise<PromotionRecord> {
  return promotions.revise(current, storedRevision(current, revision), WRITE);
}

/** Applies `change` to a promotion over the version read, again after a lost race; answers it as it is now. */
export async function updatePromotion(scope: RecordScope, promotionId: string, change: Change<PromotionRecord>): Promise<PromotionRecord> {
  return promotions.update(scope, promotionId, async (current) => storedRevision(current, await change(current)), WRITE);
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
