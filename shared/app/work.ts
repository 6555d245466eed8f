/**
 * Every kind of due work with its handler (shared/work): one table, checked by the compiler
 * against the kinds the work engine knows (`DueKind`): a kind without a handler, or a handler
 * for no kind, fails `tsc`. The sweep (handlers/jobs/due-work.ts) runs them in this order, and
 * each queue's consumer takes the kinds that name that queue.
 *
 * The order matters to the sweep: payments first (a recovered payment makes its confirmation
 * email due); licenses are opened before they are attempted (an attempt may release a
 * confirmation email); a finished unlink makes an image's files due, so unlinking comes before
 * removing files; fan-out before delivery (the events it makes are due at once).
 */
import { confirmationEmailWork } from '../flows/checkout/confirmation';
import { paymentRecoveryWork } from '../flows/checkout/recover-payment';
import { refundRecoveryWork } from '../flows/refunds/recover-refund';
import { subscriptionRenewalWork } from '../flows/renewals/renew-subscription';
import { licenseFollowUpWork } from '../flows/license-fulfilment/emails';
import { licenseOpenWork, licenseRequestWork } from '../flows/license-fulfilment/run-request';
import { eventDeliveryWork } from '../flows/notifications/delivery/deliver-event';
import { eventFanOutDueWork } from '../flows/notifications/fan-out';
import { appFilesWork, edgePointerWork, versionFilesWork } from '../modules/hosting';
import { functionDeployWork, functionRemovalWork } from '../modules/functions';
import { imageFilesWork, imageUnlinkWork } from '../modules/images';
import { invoiceEmailWork } from '../modules/invoices';
import type { DueKind } from '../work/due-work-store';
import type { DueHandler } from '../work/runner';

/** Each kind's handler, in sweep order. */
export const dueHandlers = {
  'payment-recovery': paymentRecoveryWork,
  'refund-recovery': refundRecoveryWork,
  // After payments: a renewal charges a saved card, which no recovery of a cart payment touches.
  'subscription-renewal': subscriptionRenewalWork,
  'license-open': licenseOpenWork,
  'license-request': licenseRequestWork,
  'license-follow-up': licenseFollowUpWork,
  'confirmation-email': confirmationEmailWork,
  'invoice-email': invoiceEmailWork,
  'image-unlink': imageUnlinkWork,
  'image-files': imageFilesWork,
  'event-fanout': eventFanOutDueWork,
  'event-delivery': eventDeliveryWork,
  'app-edge-pointer': edgePointerWork,
  'app-version-files': versionFilesWork,
  'app-files': appFilesWork,
  'function-deploy': functionDeployWork,
  'function-removal': functionRemovalWork,
} as const satisfies Record<DueKind, DueHandler>;

/** The handlers in sweep order. */
export const sweepOrder: readonly DueHandler[] = Object.values(dueHandlers);

/** The handlers a work queue's consumer runs: the kinds that name that queue. */
export function queueHandlers(queue: string): DueHandler[] {
  return sweepOrder.filter((handler) => handler.queue === queue);
}
