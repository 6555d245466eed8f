/**
 * The emails a license outcome releases (licenses.md §9), run at once by the process that
 * recorded the outcome, under the claims its transaction wrote (the sweep sends them if it
 * dies first):
 * - the order's held confirmation, when its last outstanding request ended (the confirmation's
 *   own due work, checkout/confirmation.ts, which now finds no license pending and sends);
 * - the follow-up of a code that a re-send obtained after the confirmation went out without it
 *   (`license-follow-up`, ref = the request): the order's codes, once per completion.
 */
import { confirmationEmailWork, readOrderAndCart, sendOrderEmail } from '../checkout/confirmation';
import { finishEntry, type DueClaim } from '../../work/due-work-store';
import { runHere, type DueHandler } from '../../work/runner';
import type { Platform } from '../../platform/ports';
import { TransactionRejectedError } from '../../store/errors';
import { writeOne } from '../../store/transact';
import { findLicenseRequest } from '../../modules/licenses';
import type { RecordedOutcome } from './record-outcome';

/** Sends the follow-up of the claimed request's order, then removes the due record. */
async function sendFollowUp(platform: Platform, claim: DueClaim): Promise<void> {
  const scope = { accountId: claim.record.account_id, mode: claim.record.mode };
  const request = await findLicenseRequest(scope, claim.record.ref);
  const { order, cart } = request?.status === 'completed' ? await readOrderAndCart(scope, request.order_id) : {};
  if (request && order && cart) {
    // One message per completion of the request: a repeated run of the same one sends once where the port can tell.
    await sendOrderEmail(platform, scope, order, cart, 'license_follow_up', `license_follow_up:${scope.accountId}:${scope.mode}:${request.license_request_id}:${request.attempts_count}`);
  }
  await writeOne(finishEntry(claim)).catch((error: unknown) => {
    if (!(error instanceof TransactionRejectedError)) throw error;
  });
}

/** The follow-up email as due work. */
export const licenseFollowUpWork: DueHandler = { kind: 'license-follow-up', leaseMs: 2 * 60_000, run: sendFollowUp };

/** Runs the emails an outcome made due, here and now (each is claimed; a failure leaves it to the sweep). */
export async function runReleasedEmails(platform: Platform, recorded: Pick<RecordedOutcome, 'confirmation' | 'followUp'>): Promise<void> {
  if (recorded.confirmation) await runHere(platform, confirmationEmailWork, recorded.confirmation);
  if (recorded.followUp) await runHere(platform, licenseFollowUpWork, recorded.followUp);
}
