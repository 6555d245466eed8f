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
import { cloudPlatform } from '../../shared/app/platforms';
import { sweepOrder } from '../../shared/app/work';
import { logger } from '../../shared/core/logging';
import type { Platform } from '../../shared/platform/ports';
import { sweepDue } from '../../shared/work/runner';

/** The job over a platform (the local runtime runs it with its own). */
export async function job(platform: Platform): Promise<{ finished: number }> {
  // Every kind, in the order shared/app/work.ts gives (and explains).
  const finished = await sweepDue(platform, sweepOrder);
  if (finished) logger.info('Due work finished by the sweep', { finished });
  return { finished };
}

/** The EventBridge target in the cloud. */
export const handler = (): Promise<{ finished: number }> => job(cloudPlatform());
