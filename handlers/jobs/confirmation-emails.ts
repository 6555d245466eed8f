/** Scheduled job: sends the confirmation emails whose sending did not complete (see infra/schedules.ts). */
import { sweepConfirmationEmails } from '../../shared/commerce/checkout/confirmation';
import { logger } from '../../shared/logging';
import { cloudPlatform } from '../../shared/platform/cloud';
import type { Platform } from '../../shared/platform/ports';

/** The job over a platform (the local runtime runs it with its own). */
export async function job(platform: Platform): Promise<{ sent: number }> {
  const sent = await sweepConfirmationEmails(platform);
  if (sent) logger.info('Confirmation emails sent by the sweep', { sent });
  return { sent };
}

/** The EventBridge target in the cloud. */
export const handler = (): Promise<{ sent: number }> => job(cloudPlatform());
