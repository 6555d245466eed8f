/**
 * Recovery of a refund whose process died after reserving it (issue 25: "a crash between the
 * gateway's refund and the record is recovered by due work, never refunded twice"). Every refund
 * is stored `pending` with a `refund-recovery` due record in the same transaction as its
 * reservation; settling it removes the record. What is still due after the delay belongs to a
 * refund nobody settled, and the gateway's own record of the refund key decides:
 *
 *   refunded → completed: the payment's and order's totals grow once, the event is recorded;
 *   never refunded → the key is closed first (so a late refund with it cannot happen), then the
 *                    refund is failed and its reservation given back.
 *
 * Settling is conditional on the refund still being `pending`, so a recovery racing the
 * request (or another recovery) changes nothing more.
 */
import type { Platform } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { writeOne } from '../../store/transact';
import { finishEntry, type DueClaim } from '../../work/due-work-store';
import type { DueHandler } from '../../work/runner';
import { findRefund, refundKey } from '../../modules/refunds';
import { REFUND_RECOVERY_DELAY_MS, settle } from './refund-payment';
import { isStripeRefund, refundAtGateway } from './gateway-refund';

/** How recovery left a refund. */
export type RefundRecoveryResult = 'completed' | 'failed' | 'not-pending' | 'still-running';

/** Settles the refund `refundId` if it is still `pending` and its delay has passed. */
export async function recoverRefund(platform: Platform, scope: RecordScope, refundId: string): Promise<RefundRecoveryResult> {
  const refund = await findRefund(scope, refundId);
  if (!refund || refund.status !== 'pending') return 'not-pending';
  if (refund.created_ms + REFUND_RECOVERY_DELAY_MS > platform.clock.nowMs()) return 'still-running';
  // A Stripe refund is settled by repeating it under its key (Stripe answers the first refund, or makes it now).
  if (await isStripeRefund(scope, refund)) {
    const repeated = await refundAtGateway(platform, scope, refund);
    return (await settle(platform, scope, refund, repeated)).status;
  }
  const key = refundKey(scope, refundId);
  // Close the key unless a refund was made with it; then the ledger says which it is.
  await platform.gateway.voidKey(key);
  const result = await platform.gateway.lookupRefund(key);
  const outcome = await settle(platform, scope, refund, result?.outcome === 'refunded' ? result : { outcome: 'refused', refundId: null, message: 'The refund was never made.' });
  return outcome.status;
}

/** Refund recovery as due work: settle the refund, or look again when its delay has passed. */
export const refundRecoveryWork: DueHandler = {
  kind: 'refund-recovery',
  leaseMs: 2 * 60_000,
  async run(platform: Platform, claim: DueClaim): Promise<void> {
    const scope: RecordScope = { accountId: claim.record.account_id, mode: claim.record.mode };
    const result = await recoverRefund(platform, scope, claim.record.ref);
    if (result === 'still-running') throw new Error('The refund is still within its delay');
    // Settling removed the record; a refund settled by others leaves it to us.
    await writeOne(finishEntry(claim)).catch((error: unknown) => {
      if (!(error instanceof TransactionRejectedError)) throw error;
    });
  },
};
