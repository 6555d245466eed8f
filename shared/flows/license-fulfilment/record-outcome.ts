/**
 * Recording an attempt's outcome (licenses.md §4.2, §7, §8, §9): ONE transaction writes the
 * request's new state, the license (on success), the order item and the order's license counts,
 * the service's count of outstanding requests, the events, the due record's outcome, and, when
 * this outcome ends the last outstanding request of the order, the release of its held
 * confirmation email (or the follow-up email of a late code). The order's counts are a condition
 * of the write, so two requests of one order finishing together are serialized: exactly one of
 * them sees the order's last request done, emits `order:licenses_assigned` and releases the email.
 *
 * Recovery: nothing is written unless all of it is. A process that dies before the commit leaves
 * the due record claimed; its lease lapses and the attempt is made again (list codes already
 * taken stay reserved on the request and are used then). A process that dies after it leaves
 * the email release (or follow-up) claimed in the same way, for the sweep.
 */
import { licenseHtmlToText, requestsOutstandingEntry, type LicenseServiceRecord, isOutstanding, KEPT_LICENSE_ATTEMPTS, licenseIdFor, type LicenseRecord, type LicenseRequestRecord, type LicenseRequestStatus, findLicense, licensePutEntry, licenseRequestSaveEntry } from '../../modules/licenses';
import { eventEntries, type EventSpec } from '../../modules/events';
import { findOrder, licenseItemEntry, type OrderRecord } from '../../modules/orders';
import { claimWritten, dueEntry, type DueClaim } from '../../work/due-work-store';
import { nextAttemptAt } from '../notifications/delivery/schedule';
import { newId } from '../../core/ids';
import type { Platform } from '../../platform/ports';
import { TransactionRejectedError } from '../../store/errors';
import { transact, type TransactEntry } from '../../store/transact';
import { requestScope, type LicenseAttemptOutcome } from './attempt';

/** The default label of a code (§2.1). */
export const DEFAULT_LICENSE_LABEL = 'License';

/** How long the claim on a released email or a follow-up lasts before the sweep may take it. */
export const EMAIL_CLAIM_MS = 2 * 60_000;

/** What recording needs besides the outcome. */
export interface OutcomeInput {
  /** The request as read when the attempt started (the save is conditional on it). */
  request: LicenseRequestRecord;
  service: LicenseServiceRecord | undefined;
  outcome: LicenseAttemptOutcome;
  /**
   * The due record's outcome, given when the next automatic attempt is due (null: none is).
   * The worker finishes or reschedules its claim; a re-send releases its hold.
   */
  due(nextMs: number | null): TransactEntry;
  /** A number in [0, 1) for the schedule's jitter. */
  random: () => number;
}

/** What was recorded, and the emails this outcome made due (claimed, to run at once). */
export interface RecordedOutcome {
  request: LicenseRequestRecord;
  nextMs: number | null;
  /** The order's held confirmation email, released by this outcome. */
  confirmation: DueClaim | null;
  /** The follow-up email of a code that came after the confirmation was sent (§9). */
  followUp: DueClaim | null;
}

/** The request after one more attempt: the log (last 50), counts and dates. */
function withAttempt(request: LicenseRequestRecord, input: OutcomeInput, nowMs: number): LicenseRequestRecord {
  const { attempt } = input.outcome;
  const failure = attempt.error
    ? { code: attempt.error.code, message: attempt.error.message, status_code: attempt.status_code, response_body: attempt.response_body, date_ms: attempt.date_ms }
    : request.last_failure;
  return {
    ...request,
    attempts: [...request.attempts, attempt].slice(-KEPT_LICENSE_ATTEMPTS),
    attempts_count: request.attempts_count + 1,
    automatic_attempts: request.automatic_attempts + (attempt.trigger === 'automatic' ? 1 : 0),
    last_attempt_ms: attempt.date_ms,
    last_failure: failure,
    reserved_codes: input.outcome.reserved,
    // The save is versioned by modified_ms: it must move even within one millisecond.
    modified_ms: Math.max(nowMs, request.modified_ms + 1),
  };
}

/** The request's next status and next automatic attempt after this outcome (§4.2). */
function nextState(request: LicenseRequestRecord, input: OutcomeInput, nowMs: number): { status: LicenseRequestStatus; nextMs: number | null } {
  const { attempt } = input.outcome;
  if (attempt.success) return { status: 'completed', nextMs: null };
  // A failed re-send changes neither status nor schedule (§10).
  if (attempt.trigger === 'manual') return { status: request.status, nextMs: request.next_attempt_ms };
  const nextMs = nextAttemptAt(request.automatic_attempts + 1, nowMs, input.random);
  return nextMs === null ? { status: 'failed', nextMs: null } : { status: 'retry', nextMs };
}

/** The license object of a success (§7): created, or replaced in place by a re-send. */
async function licenseOf(request: LicenseRequestRecord, service: LicenseServiceRecord | undefined, html: string, nowMs: number): Promise<LicenseRecord> {
  const licenseId = licenseIdFor(request.license_request_id);
  const existing = request.license !== null ? await findLicense(requestScope(request), licenseId) : undefined;
  return {
    license_id: licenseId,
    account_id: request.account_id,
    mode: request.mode,
    license_request_id: request.license_request_id,
    license_service_id: request.license_service_id,
    order_id: request.order_id,
    item_id: request.item_id,
    label: service?.label || existing?.label || DEFAULT_LICENSE_LABEL,
    instructions: service ? service.instructions : (existing?.instructions ?? null),
    html,
    text: licenseHtmlToText(html),
    created_ms: existing?.created_ms ?? nowMs,
    modified_ms: nowMs,
  };
}

/** What the order gains from this outcome, with the emails and events it releases. */
interface OrderEffects {
  entries: TransactEntry[];
  events: EventSpec[];
  confirmation: DueClaim | null;
  followUp: DueClaim | null;
}

/**
 * The order side of a status change from `was` to `next.status` (§4.2, §8, §9), over `order`
 * as read now. Nothing changes on the order when a completed request gets a new code.
 */
function orderEffects(order: OrderRecord, was: LicenseRequestStatus, next: LicenseRequestRecord, licenseId: string | null, nowMs: number): OrderEffects {
  const none: OrderEffects = { entries: [], events: [], confirmation: null, followUp: null };
  const wasOutstanding = isOutstanding(was);
  const nowOutstanding = isOutstanding(next.status);
  const completedNow = next.status === 'completed' && was !== 'completed';
  if (wasOutstanding === nowOutstanding && !completedNow) return none;
  const scope = requestScope(next);
  let outstanding = order.licenses_outstanding ?? 0;
  let failed = order.licenses_failed ?? 0;
  if (wasOutstanding && !nowOutstanding) outstanding -= 1;
  if (was === 'failed' && next.status === 'completed') failed -= 1;
  if (next.status === 'failed' && was !== 'failed') failed += 1;
  let email = order.confirmation_email;
  const effects: OrderEffects = { entries: [], events: [], confirmation: null, followUp: null };
  if (wasOutstanding && outstanding === 0 && email === 'held') {
    // The last outstanding request ended: the held confirmation goes out now, with every code.
    email = 'pending';
    const claim = dueEntry('confirmation-email', scope, order.order_id, nowMs + EMAIL_CLAIM_MS, nowMs, newId());
    effects.entries.push(claim);
    effects.confirmation = claimWritten(claim);
  }
  if (was === 'failed' && next.status === 'completed' && email === 'sent') {
    // The confirmation went out without this code: a short follow-up carries it (§9).
    const claim = dueEntry('license-follow-up', scope, next.license_request_id, nowMs + EMAIL_CLAIM_MS, nowMs, newId());
    effects.entries.push(claim);
    effects.followUp = claimWritten(claim);
  }
  const item = order.items.find((candidate) => candidate.item_id === next.item_id);
  const after: OrderRecord = { ...order, licenses_outstanding: outstanding, licenses_failed: failed, confirmation_email: email };
  effects.entries.unshift(
    licenseItemEntry({
      order,
      itemId: next.item_id,
      license: licenseId ?? item?.license ?? null,
      licensePending: nowOutstanding,
      outstanding,
      failed,
      confirmationEmail: email,
      modifiedMs: nowMs,
    }),
  );
  if (completedNow && outstanding === 0 && failed === 0) {
    effects.events.push({ type: 'order:licenses_assigned', resource: 'order', id: order.order_id, record: orderAfter(after, next.item_id, licenseId, nowOutstanding, nowMs) });
  }
  return effects;
}

/** The order as the license change leaves it (what `order:licenses_assigned` shows). */
function orderAfter(order: OrderRecord, itemId: string, licenseId: string | null, pending: boolean, nowMs: number): OrderRecord {
  const items = order.items.map((item) =>
    item.item_id === itemId ? { ...item, license: licenseId ?? item.license, license_pending: pending, fulfilled: item.type === 'physical' ? item.fulfilled : !pending } : item,
  );
  return { ...order, items, fulfilled: items.every((item) => item.fulfilled), modified_ms: Math.max(nowMs, order.modified_ms + 1) };
}

/** How many times the order is read again when another request of it finished first. */
const ORDER_ROUNDS = 8;

/**
 * Records `input.outcome` over `input.request` (see the file comment). Throws
 * `TransactionRejectedError` when the request or the due record changed meanwhile (another run
 * recorded first); the caller drops its outcome.
 */
export async function recordOutcome(platform: Platform, input: OutcomeInput): Promise<RecordedOutcome> {
  const { request, service, outcome } = input;
  const scope = requestScope(request);
  const nowMs = platform.clock.nowMs();
  const { status, nextMs } = nextState(request, input, nowMs);
  const success = outcome.attempt.success;
  const license = success ? await licenseOf(request, service, outcome.license!, nowMs) : undefined;
  const next: LicenseRequestRecord = {
    ...withAttempt(request, input, nowMs),
    status,
    next_attempt_ms: nextMs,
    ...(success ? { license: outcome.license, reserved_codes: [] } : {}),
  };
  const events: EventSpec[] = [];
  // §8: on the first failure (queued to retry) and when it gives up (retry to failed).
  if ((request.status === 'queued' && status === 'retry') || (request.status !== 'failed' && status === 'failed')) {
    events.push({ type: 'license_request:failed', resource: 'license_request', id: request.license_request_id, record: next });
  }
  const leftOutstanding = isOutstanding(request.status) && !isOutstanding(status);
  for (let round = 1; ; round++) {
    const order = await findOrder(scope, request.order_id);
    const effects = order ? orderEffects(order, request.status, next, license?.license_id ?? null, nowMs) : { entries: [], events: [], confirmation: null, followUp: null };
    const allEvents = [...events, ...effects.events];
    const entries: TransactEntry[] = [
      licenseRequestSaveEntry(request, next),
      ...(license ? [licensePutEntry(license)] : []),
      ...effects.entries,
      ...(leftOutstanding && service ? [requestsOutstandingEntry(scope, service.license_service_id, -1)] : []),
      ...eventEntries(scope, allEvents, nowMs),
      input.due(nextMs),
    ];
    try {
      await transact(entries);
      return { request: next, nextMs, confirmation: effects.confirmation, followUp: effects.followUp };
    } catch (error) {
      // Another request of the order finished first: read the order again and recount.
      if (error instanceof TransactionRejectedError && error.rejected.length === 1 && error.refused('order.license-item') && round < ORDER_ROUNDS) continue;
      throw error;
    }
  }
}
