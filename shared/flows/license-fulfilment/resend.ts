/**
 * The manual re-send (licenses.md §10): one attempt now, in any status, with the service's
 * current settings, logged with trigger `manual`. Success completes the request (a new code
 * replaces any previous one) and cancels the scheduled automatic attempts; failure changes
 * neither status nor schedule.
 *
 * One attempt of a request at a time: the re-send holds the request's due record (claiming it,
 * or creating it claimed when nothing is scheduled), as an automatic run does; a request whose
 * record someone holds answers 409 in_use. The outcome and the due record's (removed on success
 * or when nothing was scheduled, put back at its old time on failure) are one transaction. If
 * the process dies in between, the hold's short lease lapses and the sweep runs the record: an
 * automatic attempt for a `queued`/`retry` request (early by at most the lease), nothing for a
 * `completed`/`failed` one.
 */
import { finishEntry, holdDue, rescheduleEntry, type DueHold } from '../../work/due-work-store';
import { InUseError, InvalidStateError } from '../../http/errors';
import type { Platform } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { writeOne, type TransactEntry } from '../../store/transact';
import { findLicenseService, type LicenseRequestRecord, findLicenseRequest, getLicenseRequest } from '../../modules/licenses';
import { attemptLicense, LICENSE_MANUAL_TIMEOUT_MS, type LicenseAttemptOutcome } from './attempt';
import { runReleasedEmails } from './emails';
import { recordOutcome } from './record-outcome';

/** How long a re-send holds the request: its attempt (25 s) and the writes around it. */
export const RESEND_HOLD_MS = 60_000;

/** The re-send's result: the request as saved and the attempt made. */
export interface ResendResult {
  request: LicenseRequestRecord;
  outcome: LicenseAttemptOutcome;
}

/** The due record's outcome of a manual attempt (see the file comment). */
function releaseEntry(hold: DueHold, completed: boolean): TransactEntry {
  if (completed || hold.dueMs === null) return finishEntry(hold.claim);
  return rescheduleEntry(hold.claim, hold.dueMs, hold.claim.record.last_failure);
}

/**
 * Makes one manual attempt of `requestId`. Throws 404 / 400 token_type_mismatch for an unknown
 * request, 422 invalid_state when its service was deleted, 409 in_use while another attempt of
 * it runs; otherwise answers the saved request and the attempt (the caller maps a failure to
 * 502 / 504 / 422).
 */
export async function resendLicenseRequest(platform: Platform, scope: RecordScope, requestId: string): Promise<ResendResult> {
  const seen = await getLicenseRequest(scope, requestId);
  const service = await findLicenseService(scope, seen.license_service_id);
  if (!service) {
    throw new InvalidStateError(`The license service ${seen.license_service_id} of this request was deleted.`, { license_request_id: requestId, license_service_id: seen.license_service_id });
  }
  const hold = await holdDue('license-request', scope, requestId, platform.clock.nowMs(), RESEND_HOLD_MS);
  if (!hold) throw new InUseError('An attempt of this license request is in progress. Retry when it has finished.', { license_request_id: requestId });
  let recorded = false;
  try {
    // What the attempt queues (events, released emails) is relayed by the request's own unit of work.
    // Read again under the hold: an automatic attempt may have finished since the first read.
    const request = (await findLicenseRequest(scope, requestId)) ?? seen;
    const outcome = await attemptLicense(platform, request, service, { number: request.attempts_count + 1, trigger: 'manual', timeoutMs: LICENSE_MANUAL_TIMEOUT_MS });
    const result = await recordOutcome(platform, { request, service, outcome, random: Math.random, due: () => releaseEntry(hold, outcome.attempt.success) });
    recorded = true;
    await runReleasedEmails(platform, result);
    return { request: result.request, outcome };
  } finally {
    // Not recorded (a fault, or the request changed meanwhile): give the schedule back at once.
    if (!recorded) await writeOne(releaseEntry(hold, false)).catch(() => undefined);
  }
}
