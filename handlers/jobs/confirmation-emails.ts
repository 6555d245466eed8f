/** Scheduled job: sends the confirmation emails whose sending did not complete (see infra/schedules.ts). */
import { sweepConfirmationEmails } from '../../shared/commerce/checkout/confirmation';
import { logger } from '../../shared/logging';

export const handler = async (): Promise<{ sent: number }> => {
  const sent = await sweepConfirmationEmails();
  if (sent) logger.info('Confirmation emails sent by the sweep', { sent });
  return { sent };
};
