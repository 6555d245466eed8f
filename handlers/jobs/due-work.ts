/**
 * Scheduled job: runs the due work that no process finished (see infra/schedules.ts and
 * shared/due-work): confirmation emails the paying request did not send, and payments whose
 * process died (finished or failed, the cart released).
 */
import { confirmationEmailWork } from '../../shared/commerce/checkout/confirmation';
import { paymentRecoveryWork } from '../../shared/commerce/checkout/recover-payment';
import { sweepDue } from '../../shared/due-work/runner';
import { logger } from '../../shared/logging';
import { cloudPlatform } from '../../shared/platform/cloud';
import type { Platform } from '../../shared/platform/ports';

/** The job over a platform (the local runtime runs it with its own). */
export async function job(platform: Platform): Promise<{ finished: number }> {
  // Payments first: a recovered payment makes its confirmation email due.
  const finished = await sweepDue(platform, [paymentRecoveryWork, confirmationEmailWork]);
  if (finished) logger.info('Due work finished by the sweep', { finished });
  return { finished };
}

/** The EventBridge target in the cloud. */
export const handler = (): Promise<{ finished: number }> => job(cloudPlatform());
