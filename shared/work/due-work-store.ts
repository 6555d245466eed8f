/**
 * Due-work records (architecture.md, "Asynchronous work"): one item per piece of work that
 * must happen later, written in the same transaction as the change that causes it, found by
 * time through gsi3 (`due#<kind>`), claimed before it runs and removed when it is done.
 *
 * A claim is a lease: it moves the record's due time to the lease's end and stamps a claim id,
 * both conditional on the record being due and unclaimed (or its lease lapsed). A worker that
 * dies holding a claim leaves the record due again when the lease ends; the sweep takes it.
 */
import { newId } from '../core/ids';
import { currentTraceparent } from '../core/tracing';
import { defineEntity, type Condition, type RecordScope } from '../store/entity';
import { updateReturning, writeOne, type TransactEntry } from '../store/transact';
import { TransactionRejectedError } from '../store/errors';
import { tableDefinition } from '../store/table';

/** The kinds of due work (each has a `DueHandler`; the sweep job, handlers/jobs/due-work.ts, lists them all). */
export type DueKind =
  | 'confirmation-email'
  | 'payment-recovery'
  | 'refund-recovery'
  | 'image-unlink'
  | 'image-files'
  | 'event-fanout'
  | 'event-delivery'
  | 'license-open'
  | 'license-request'
  | 'license-follow-up'
  | 'app-version-files'
  | 'app-files'
  | 'app-edge-pointer'
  | 'function-deploy'
  | 'function-removal'
  | 'subscription-renewal'
  | 'invoice-email';

/** A due-work record. */
export interface DueWorkRecord {
  /** `<kind>:<ref>`, unique per account and mode. */
  due_id: string;
  kind: DueKind;
  /** What the work is about (an order id, a payment id). */
  ref: string;
  account_id: string;
  mode: RecordScope['mode'];
  /** Runs made so far (claims). */
  attempts: number;
  /** When it is due (or when the current claim's lease ends). */
  next_ms: number;
  /** The current claim, if any. */
  claim_id: string | null;
  /**
   * Ids of records the work reads besides its ref, by role (the confirmation email's `cart_id`),
   * so the worker can read them together with the ref's record instead of one after the other.
   */
  related?: Record<string, string>;
  /** Why the last run did not finish, for operators. */
  last_failure: string | null;
  /**
   * The validated W3C `traceparent` of the request that wrote the work, if it carried one
   * (shared/core/tracing.ts): the events and license requests the work creates keep it, so the
   * webhooks and license requests sent for them later stay in the caller's trace.
   */
  traceparent?: string;
  created_ms: number;
}

const dueId = (kind: DueKind, ref: string) => `${kind}:${ref}`;
const sortKey = (atMs: number, scope: RecordScope, ref: string) => `${new Date(atMs).toISOString()}#${scope.accountId}#${scope.mode}#${ref}`;
const scopeOf = (record: Pick<DueWorkRecord, 'account_id' | 'mode'>): RecordScope => ({ accountId: record.account_id, mode: record.mode });

/** Kept 30 days past its due time at most, whatever happens (a record nobody can finish is not kept forever). */
const KEEP_SECONDS = 30 * 24 * 3600;

/** When the table's TTL may remove a record written at `createdMs` and due at `nextMs` (epoch seconds). */
const expiryOf = (createdMs: number, nextMs: number) => Math.ceil(Math.max(createdMs, nextMs) / 1000) + KEEP_SECONDS;

/**
 * Due work: found by kind and due time across accounts (gsi3 `due#<kind>`, sorted by
 * `<due ISO>#<account>#<mode>#<ref>`; claims and retries move it), removed by the table's TTL
 * at the latest 30 days past its due time (every write that moves the due time moves the expiry
 * with it: `dueAt`).
 */
const dueWork = defineEntity<DueWorkRecord>({ name: 'due work', collection: 'due', scope: 'mode', idField: 'due_id',
  indexes: { gsi3: 'work due at a time, across accounts' },
  indexKeys: (record) => ({ gsi3: { pk: `due#${record.kind}`, sk: sortKey(record.next_ms, scopeOf(record), record.ref) } }),
  // Work due months ahead (image files kept 90 days) must outlive its due time.
  expiresAt: (record) => expiryOf(record.created_ms, record.next_ms) });

/**
 * The attributes that make the work due at `nextMs`: the due time, its place in gsi3 and the
 * record's expiry, always together. Every update that moves the due time sets them through here:
 * a due time moved without its expiry would let the TTL remove work that is due again more than
 * 30 days after it was written (a subscription's next billing, an event's late retry).
 */
function dueAt(scope: RecordScope, ref: string, nextMs: number, createdMs: number): Record<string, unknown> {
  return { next_ms: nextMs, gsi3sk: sortKey(nextMs, scope, ref), [tableDefinition.ttlAttribute]: expiryOf(createdMs, nextMs) };
}

/** The request's validated `traceparent`, as a record field (none outside a request that carried one). */
function traceOf(): Pick<DueWorkRecord, 'traceparent'> {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
}

/**
 * The transaction entry that makes `kind` work on `ref` due at `dueMs` (written with the change
 * that causes it). With `claimId` the writer claims it in the same write, to run it at once
 * itself (the relay) without a second call; `dueMs` is then also its lease's end. `related`
 * names records the work will read besides `ref` (see `DueWorkRecord.related`).
 */
export function dueEntry(kind: DueKind, scope: RecordScope, ref: string, dueMs: number, now: number, claimId: string | null = null, related?: Record<string, string>): TransactEntry {
  const record: DueWorkRecord = {
    due_id: dueId(kind, ref),
    kind,
    ref,
    account_id: scope.accountId,
    mode: scope.mode,
    attempts: claimId ? 1 : 0,
    next_ms: dueMs,
    claim_id: claimId,
    ...(related ? { related } : {}),
    last_failure: null,
    ...traceOf(),
    created_ms: now,
  };
  return dueWork.putEntry(record, { name: `due.${kind}` });
}

/** The claim held by whoever wrote `entry` with a claim id (see `dueEntry`). */
export function claimWritten(entry: TransactEntry): DueClaim {
  const item = entry.item.Put?.Item;
  const record = item && dueWork.recordOf(item);
  if (!record?.claim_id) throw new Error(`${entry.name} was not written claimed`);
  return { record, claimId: record.claim_id };
}

/** The entry that removes the work (it was done as part of the same transaction). */
export function doneEntry(kind: DueKind, scope: RecordScope, ref: string): TransactEntry {
  return dueWork.deleteEntry(scope, dueId(kind, ref), { name: `due.${kind}.done` });
}

/** The record, if the work is still due. */
export async function findDue(kind: DueKind, scope: RecordScope, ref: string): Promise<DueWorkRecord | undefined> {
  return dueWork.find(scope, dueId(kind, ref));
}

/** Records of `kind` due at `now` or earlier, oldest first (at most `limit`). */
export async function listDue(kind: DueKind, now: number, limit: number): Promise<DueWorkRecord[]> {
  return dueWork.query(
    'gsi3',
    { KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk <= :now', ExpressionAttributeValues: { ':pk': `due#${kind}`, ':now': `${new Date(now).toISOString()}#~` } },
    limit,
  );
}

/** A claim: the record as claimed, and the claim id that finishing needs. */
export interface DueClaim {
  record: DueWorkRecord;
  claimId: string;
}

/**
 * Gives the work a new claim until `now + leaseMs` if `condition` holds: the one conditional
 * write behind claiming and taking over. Answers undefined when the condition failed (the work
 * is gone, not due, or someone else holds it).
 */
async function claimIf(kind: DueKind, scope: RecordScope, ref: string, now: number, leaseMs: number, step: string, condition: Condition, countAttempt: boolean): Promise<DueClaim | undefined> {
  const claimId = newId();
  const until = now + leaseMs;
  try {
    const record = await updateReturning<DueWorkRecord>(
      dueWork.updateEntry(scope, dueId(kind, ref), {
        name: `due.${kind}.${step}`,
        // The lease's end is when the work is due again should the claimer die; the record was written before `now`.
        set: { claim_id: claimId, ...dueAt(scope, ref, until, now) },
        ...(countAttempt ? { add: { attempts: 1 } } : {}),
        condition,
      }),
    );
    return { record, claimId };
  } catch (error) {
    if (error instanceof TransactionRejectedError) return undefined;
    throw error;
  }
}

/**
 * Claims the work for `leaseMs`: only one worker holds a claim at a time. `early` lets the
 * process that caused the work run it at once, before it is due (the paying request sends the
 * confirmation it just made due); anyone else claims only due work. Answers undefined when the
 * work is gone or someone else holds it.
 */
export async function claimDue(kind: DueKind, scope: RecordScope, ref: string, now: number, leaseMs: number, early = false): Promise<DueClaim | undefined> {
  const condition = early
    ? { expression: 'attribute_exists(pk) AND (claim_id = :none OR next_ms <= :now)', values: { ':none': null, ':now': now } }
    : { expression: 'attribute_exists(pk) AND next_ms <= :now', values: { ':now': now } };
  return claimIf(kind, scope, ref, now, leaseMs, 'claim', condition, true);
}

/**
 * Moves a claim from whoever queued the work to the worker that received it, so that of two
 * deliveries of one message only one runs (the queued claim already counted the attempt).
 * Answers undefined when the queued claim is no longer current.
 */
export async function takeOverClaim(kind: DueKind, scope: RecordScope, ref: string, fromClaimId: string, now: number, leaseMs: number): Promise<DueClaim | undefined> {
  return claimIf(kind, scope, ref, now, leaseMs, 'take-over', { expression: 'claim_id = :queued', values: { ':queued': fromClaimId } }, false);
}

/**
 * Removes work that needs nothing done, while it is still under the claim it was queued with
 * (`claimId`); answers false when that claim is no longer current (someone else has the work).
 */
export async function finishQueued(kind: DueKind, scope: RecordScope, ref: string, claimId: string): Promise<boolean> {
  try {
    await writeOne(finishUnder(kind, scope, ref, claimId));
    return true;
  } catch (error) {
    if (error instanceof TransactionRejectedError) return false;
    throw error;
  }
}

/** The entry that removes claimed work, only while the claim is still ours (a lapsed lease may have passed it on). */
export function finishEntry(claim: DueClaim): TransactEntry {
  const { record } = claim;
  return finishUnder(record.kind, scopeOf(record), record.ref, claim.claimId);
}

/** The entry that removes the work on `ref` while `claimId` holds it. */
function finishUnder(kind: DueKind, scope: RecordScope, ref: string, claimId: string): TransactEntry {
  return dueWork.deleteEntry(scope, dueId(kind, ref), {
    name: `due.${kind}.finish`,
    condition: { expression: 'claim_id = :claim', values: { ':claim': claimId } },
  });
}

/**
 * The entry that puts claimed work back, unclaimed, for a run at `nextMs` with its expiry moved
 * along (`dueAt`), only while the claim is still ours; `fields` are the record's other changes.
 * The one write behind `retryLater`, `rescheduleEntry` and `renewEntry`.
 */
function putBackEntry(claim: DueClaim, nextMs: number, step: string, fields: Partial<Pick<DueWorkRecord, 'attempts' | 'last_failure' | 'created_ms'>>): TransactEntry {
  const { record } = claim;
  const scope = scopeOf(record);
  return dueWork.updateEntry(scope, record.due_id, {
    name: `due.${record.kind}.${step}`,
    set: { claim_id: null, ...fields, ...dueAt(scope, record.ref, nextMs, fields.created_ms ?? record.created_ms) },
    condition: { expression: 'claim_id = :claim', values: { ':claim': claim.claimId } },
  });
}

/** Puts claimed work back for a later run at `nextMs`, noting why this run did not finish. */
export async function retryLater(claim: DueClaim, nextMs: number, failure: string): Promise<void> {
  await writeOne(putBackEntry(claim, nextMs, 'retry', { last_failure: failure.slice(0, 500) })).catch((error: unknown) => {
    if (!(error instanceof TransactionRejectedError)) throw error;
  });
}

/**
 * The entry that puts claimed work back for a run at `nextMs` (unclaimed, its expiry moved with
 * it), only while the claim is still ours: written in the same transaction as the work's own
 * record of this run (an event's failed attempt with its next attempt time), so neither is ever
 * written without the other.
 */
export function rescheduleEntry(claim: DueClaim, nextMs: number, failure: string | null = null): TransactEntry {
  return putBackEntry(claim, nextMs, 'reschedule', { last_failure: failure === null ? null : failure.slice(0, 500) });
}

/**
 * `rescheduleEntry` for work that starts afresh at `nextMs` (a subscription's next billing, or
 * its next retry): the attempts start again from none (so the sweep's backoff does too), the
 * failure note is cleared, and the record counts as written `now`.
 */
export function renewEntry(claim: DueClaim, nextMs: number, now: number): TransactEntry {
  return putBackEntry(claim, nextMs, 'renew', { attempts: 0, last_failure: null, created_ms: now });
}

/** A hold on work for one run outside its schedule (see `holdDue`). */
export interface DueHold {
  claim: DueClaim;
  /** When the work was due before the hold, or null when there was none (the hold made the record). */
  dueMs: number | null;
}

/**
 * Holds `kind` work on `ref` for `leaseMs` so one run can happen outside the schedule (a manual
 * retry): claims the record when it exists and nobody else holds it, or creates it claimed when
 * there is none. Answers undefined when someone else holds it (a run is in progress). The run's
 * final write puts the record back at `dueMs` (`rescheduleEntry`) or removes it (`finishEntry`);
 * if the holder dies, the lease lapses and the sweep runs the work, whose handler must then see
 * whether anything is left to do.
 */
export async function holdDue(kind: DueKind, scope: RecordScope, ref: string, now: number, leaseMs: number): Promise<DueHold | undefined> {
  const existing = await findDue(kind, scope, ref);
  if (existing) {
    if (existing.claim_id !== null && existing.next_ms > now) return undefined;
    const dueMs = existing.claim_id === null ? existing.next_ms : now;
    const claim = await claimIf(kind, scope, ref, now, leaseMs, 'hold', {
      expression: 'attribute_exists(pk) AND (claim_id = :none OR next_ms <= :now)',
      values: { ':none': null, ':now': now },
    }, true);
    return claim ? { claim, dueMs } : undefined;
  }
  const entry = dueEntry(kind, scope, ref, now + leaseMs, now, newId());
  const put = entry.item.Put!;
  try {
    await writeOne({ ...entry, name: `due.${kind}.hold-new`, item: { Put: { ...put, ConditionExpression: 'attribute_not_exists(pk)' } } });
  } catch (error) {
    if (error instanceof TransactionRejectedError) return undefined;
    throw error;
  }
  return { claim: claimWritten(entry), dueMs: null };
}
