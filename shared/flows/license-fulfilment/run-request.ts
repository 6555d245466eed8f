/**
 * License requests as due work (architecture.md, "Asynchronous work"):
 *
 * - `license-open` (ref = order id): written claimed in the transaction that creates a paid
 *   order with licensed items (checkout/complete-payment.ts). Run at once by the paying request
 *   (or by the sweep if it died), it creates the order's requests, each `queued` with its own
 *   `license-request` due record, in transactions of at most 25 requests; ids are derived from
 *   order and item, so a second run creates only what the first did not. List services are then
 *   served at once, in the paying request (§4.1: the code is already in the payment answer);
 *   remote requests are handed to the `license-requests` queue.
 * - `license-request` (ref = request id): one automatic attempt under the due record's claim,
 *   its outcome recorded with the due record's (record-outcome.ts): finished, or moved to the
 *   next attempt's time of the events.md §6.1 schedule, with a delayed wake-up for waits of up
 *   to 15 minutes and the sweep for longer ones.
 *
 * Both run inside the fan-out relay, so the events they record are queued at once.
 */
import { claimWritten, dueEntry, finishEntry, rescheduleEntry, type DueClaim } from '../../work/due-work-store';
import { runClaimed, runHere, wakeUpAt, type DueHandler } from '../../work/runner';
import { newId } from '../../core/ids';
import { logger } from '../../core/logging';
import type { Platform } from '../../platform/ports';
import { TransactionRejectedError } from '../../store/errors';
import { transact, writeOne, type TransactEntry } from '../../store/transact';
import { findOrder, type OrderRecord } from '../../modules/orders';
import { findLicenseService, findLicenseServices, requestsOutstandingEntry, type LicenseServiceRecord, licenseRequestIdFor, isOutstanding, type LicenseRequestRecord, findLicenseRequest, findLicenseRequests, newLicenseRequestEntry } from '../../modules/licenses';
import { attemptLicense, LICENSE_TIMEOUT_MS } from './attempt';
import { recordOutcome, type RecordedOutcome } from './record-outcome';
import { runReleasedEmails } from './emails';

/** The queue that runs license requests (shared/app/queues.ts). */
export const LICENSE_REQUEST_QUEUE = 'license-requests';

/** How long a claim on a request lasts: the time in the queue plus one attempt (30 s). */
export const LICENSE_REQUEST_LEASE_MS = 5 * 60_000;

/** Requests created per transaction (three entries each, well inside the 100-entry limit). */
const OPEN_CHUNK = 25;

/** A claim lost meanwhile (the lease lapsed and another run recorded): that run's outcome stands. */
function ignoreLostClaim(ref: string) {
  return (error: unknown): void => {
    if (!(error instanceof TransactionRejectedError)) throw error;
    logger.warn('License request outcome not recorded: the request or its claim changed meanwhile', { license_request_id: ref });
  };
}

/** The worker's options (tests fix the jitter). */
export interface LicenseRequestOptions {
  /** A number in [0, 1) for the schedule's jitter; `Math.random` by default. */
  random?: () => number;
}

/** The due handler of automatic license request attempts, with its options. */
export function licenseRequestHandler(options: LicenseRequestOptions = {}): DueHandler {
  const random = options.random ?? Math.random;
  const handler: DueHandler = {
    kind: 'license-request',
    leaseMs: LICENSE_REQUEST_LEASE_MS,
    queue: LICENSE_REQUEST_QUEUE,
    run: (platform, claim, known) => attemptClaimed(platform, handler, claim, known, random),
  };
  return handler;
}

/** Automatic license request attempts as due work (queue `license-requests`). */
export const licenseRequestWork: DueHandler = licenseRequestHandler();

/** What the opening hands to a request it runs at once. */
interface KnownRequest {
  request: LicenseRequestRecord;
  service: LicenseServiceRecord | undefined;
}

/** One automatic attempt of the claimed request, and its outcome written with the due record's. */
async function attemptClaimed(platform: Platform, handler: DueHandler, claim: DueClaim, known: unknown, random: () => number): Promise<void> {
  const scope = { accountId: claim.record.account_id, mode: claim.record.mode };
  const held = known as KnownRequest | undefined;
  const request = held?.request.license_request_id === claim.record.ref ? held.request : await findLicenseRequest(scope, claim.record.ref);
  if (!request || !isOutstanding(request.status)) {
    // Nothing is scheduled (completed or failed meanwhile, by a re-send or a lapsed hold): done.
    await writeOne(finishEntry(claim)).catch(ignoreLostClaim(claim.record.ref));
    return;
  }
  const service = held?.request === request ? held.service : await findLicenseService(scope, request.license_service_id);
  const outcome = await attemptLicense(platform, request, service, { number: request.attempts_count + 1, trigger: 'automatic', timeoutMs: LICENSE_TIMEOUT_MS });
  let recorded: RecordedOutcome;
  try {
    recorded = await recordOutcome(platform, {
      request,
      service,
      outcome,
      random,
      due: (nextMs) => (nextMs === null ? finishEntry(claim) : rescheduleEntry(claim, nextMs, outcome.attempt.error?.message ?? null)),
    });
  } catch (error) {
    ignoreLostClaim(request.license_request_id)(error);
    return;
  }
  await runReleasedEmails(platform, recorded);
  if (recorded.nextMs !== null) await wakeUpAt(platform, handler, scope, request.license_request_id, recorded.nextMs - platform.clock.nowMs());
}

/** A new `queued` request for an order item (§4.1), in the trace of the request that made the order (`traceparent`, if it carried one). */
function newRequest(order: OrderRecord, itemId: string, nowMs: number, traceparent: string | undefined): LicenseRequestRecord {
  const item = order.items.find((candidate) => candidate.item_id === itemId)!;
  return {
    license_request_id: licenseRequestIdFor(order.order_id, item.item_id),
    account_id: order.account_id,
    mode: order.mode,
    status: 'queued',
    order_id: order.order_id,
    item_id: item.item_id,
    product_id: item.product_id,
    quantity: item.quantity,
    license_service_id: item.license_service_id!,
    license: null,
    reserved_codes: [],
    automatic_attempts: 0,
    attempts_count: 0,
    attempts: [],
    last_attempt_ms: null,
    next_attempt_ms: nowMs,
    last_failure: null,
    ...(traceparent ? { traceparent } : {}),
    created_ms: nowMs,
    modified_ms: nowMs,
  };
}

/** Creates the order's missing requests under the opening's claim; answers each new request with its claimed due record. */
async function openClaimed(platform: Platform, claim: DueClaim, known: unknown): Promise<void> {
  const scope = { accountId: claim.record.account_id, mode: claim.record.mode };
  const held = known as { order: OrderRecord } | undefined;
  const order = held?.order.order_id === claim.record.ref ? held.order : await findOrder(scope, claim.record.ref);
  const licensed = order?.items.filter((item) => item.license_service_id) ?? [];
  if (!order || !licensed.length) {
    await writeOne(finishEntry(claim)).catch(ignoreLostClaim(claim.record.ref));
    return;
  }
  const ids = licensed.map((item) => licenseRequestIdFor(order.order_id, item.item_id));
  const [existing, services] = await Promise.all([
    findLicenseRequests(scope, ids),
    findLicenseServices(scope, [...new Set(licensed.map((item) => item.license_service_id!))]),
  ]);
  const nowMs = platform.clock.nowMs();
  const created: Array<{ request: LicenseRequestRecord; service: LicenseServiceRecord | undefined; claim: DueClaim }> = [];
  const missing = licensed.filter((item) => !existing.has(licenseRequestIdFor(order.order_id, item.item_id)));
  for (let start = 0; start === 0 || start < missing.length; start += OPEN_CHUNK) {
    const chunk = missing.slice(start, start + OPEN_CHUNK);
    const entries: TransactEntry[] = [];
    const made: typeof created = [];
    // One counter entry per service: a transaction may write an item only once.
    const outstanding = new Map<string, number>();
    for (const item of chunk) {
      const request = newRequest(order, item.item_id, nowMs, claim.record.traceparent);
      const service = services.get(request.license_service_id);
      const due = dueEntry('license-request', scope, request.license_request_id, nowMs + LICENSE_REQUEST_LEASE_MS, nowMs, newId());
      entries.push(newLicenseRequestEntry(request), due);
      // A service deleted meanwhile is not counted: its request fails its attempts (service_deleted).
      if (service) outstanding.set(service.license_service_id, (outstanding.get(service.license_service_id) ?? 0) + 1);
      made.push({ request, service, claim: claimWritten(due) });
    }
    for (const [serviceId, count] of outstanding) entries.push(requestsOutstandingEntry(scope, serviceId, count));
    const last = start + OPEN_CHUNK >= missing.length;
    if (last) entries.push(finishEntry(claim));
    await transact(entries);
    created.push(...made);
  }
  // List services answer at once (the payment's answer already shows the code); remote ones queue.
  for (const { request, service, claim: requestClaim } of created) {
    if (service?.type === 'list') await runHere(platform, licenseRequestWork, requestClaim, { request, service } satisfies KnownRequest);
    else await runClaimed(platform, licenseRequestWork, requestClaim);
  }
}

/** Opening an order's license requests as due work (run in the process that made the order). */
export const licenseOpenWork: DueHandler = {
  kind: 'license-open',
  leaseMs: 2 * 60_000,
  run: (platform, claim, known) => openClaimed(platform, claim, known),
};

/**
 * Opens the license requests of a new order now, in the process that made it, under the claim
 * its completing transaction wrote; answers whether it finished (if not, the sweep does it).
 */
export function openOrderLicenses(platform: Platform, claim: DueClaim, order: OrderRecord): Promise<boolean> {
  return runHere(platform, licenseOpenWork, claim, { order });
}
