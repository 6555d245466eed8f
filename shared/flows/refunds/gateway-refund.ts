/**
 * The gateway step of a refund (commerce.md §7, §4.7): a payment charged through the account's
 * Stripe connection is refunded there (a Refund of its PaymentIntent, amount in Stripe's units,
 * idempotency key `cartwheel-<refund_id>`); every other payment through the built-in gateway.
 * Repeating the Stripe refund under its key answers the first refund, which is how recovery
 * settles one whose answer was lost.
 */
import { readPaymentSettingsCached } from '../../modules/accounts';
import { chargeKey, payments } from '../../modules/payments';
import { refundKey, type RefundRecord } from '../../modules/refunds';
import type { Platform, RefundRequest, RefundResult } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { saleGatewayOf } from '../checkout/sale-gateway';

/** Whether the refund's payment was charged through Stripe (then its refund is too). */
export async function isStripeRefund(scope: RecordScope, refund: Pick<RefundRecord, 'payment_id'>): Promise<boolean> {
  return (await payments.get(scope, refund.payment_id)).gateway_charge?.gateway === 'stripe';
}

/** Refunds `pending` at its payment's gateway, once per refund key. */
export async function refundAtGateway(platform: Platform, scope: RecordScope, pending: RefundRecord): Promise<RefundResult> {
  const payment = await payments.get(scope, pending.payment_id);
  const request: RefundRequest = {
    key: refundKey(scope, pending.refund_id),
    chargeKey: chargeKey(scope, pending.payment_id),
    chargeTransactionId: payment.gateway_transaction_id,
    amount: pending.total,
    currency: pending.currency,
  };
  if (payment.gateway_charge?.gateway !== 'stripe') return platform.gateway.refund(request);
  const sale = await saleGatewayOf(platform, scope, await readPaymentSettingsCached(scope.accountId));
  if (sale?.kind !== 'stripe') return { outcome: 'refused', refundId: null, message: 'The account no longer has a Stripe connection for this mode.' };
  return sale.gateway.refund(request);
}
