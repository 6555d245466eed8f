/**
 * Scheduled job: runs the due work that no process finished (see shared/app/schedules.ts and
 * shared/work): confirmation emails the paying request did not send, payments whose
 * process died (finished or failed, the cart released), deleted images still listed by
 * products, the files of deleted images (after 90 days) and of uploads that never finished, and
 * occurrences still to fan out to their subscriptions, event deliveries whose next attempt
 * is due (handed to the event-notifications queue), license requests to open or attempt (handed
 * to the license-requests queue) and the follow-up emails of late license codes; app versions
 * whose upload never finished (failed, their files removed), the files of deleted versions, and
 * what deleted apps left; and alias pointers not yet copied to the CDN's KeyValueStore.
 */
import '../../shared/app/resources';
import { imageUnlinkWork, imageFilesWork } from '../../shared/modules/images';
import { confirmationEmailWork } from '../../shared/flows/checkout/confirmation';
import { paymentRecoveryWork } from '../../shared/flows/checkout/recover-payment';
import { sweepDue } from '../../shared/work/runner';
import { eventDeliveryWork } from '../../shared/flows/notifications/delivery/deliver-event';
import { eventFanOutDueWork } from '../../shared/flows/notifications/fan-out';
import { licenseFollowUpWork } from '../../shared/flows/license-fulfilment/emails';
import { licenseOpenWork, licenseRequestWork } from '../../shared/flows/license-fulfilment/run-request';
import { edgePointerWork, appFilesWork, versionFilesWork } from '../../shared/modules/hosting';
import { logger } from '../../shared/core/logging';
import { cloudPlatform } from '../../shared/app/platforms';
import type { Platform } from '../../shared/platform/ports';

/** The job over a platform (the local runtime runs it with its own). */
export async function job(platform: Platform): Promise<{ finished: number }> {
  // Payments first: a recovered payment makes its confirmation email due. A finished unlink
  // makes an image's files due (in 90 days), so unlinking comes before removing files.
  // Fan-out before delivery: the events it makes are due at once.
  // Licenses are opened before they are attempted; an attempt may release a confirmation email.
  const finished = await sweepDue(platform, [
    paymentRecoveryWork,
    licenseOpenWork,
    licenseRequestWork,
    licenseFollowUpWork,
    confirmationEmailWork,
    imageUnlinkWork,
    imageFilesWork,
    eventFanOutDueWork,
    eventDeliveryWork,
    edgePointerWork,
    versionFilesWork,
    appFilesWork,
  ]);
  if (finished) logger.info('Due work finished by the sweep', { finished });
  return { finished };
}

/** The EventBridge target in the cloud. */
export const handler = (): Promise<{ finished: number }> => job(cloudPlatform());
