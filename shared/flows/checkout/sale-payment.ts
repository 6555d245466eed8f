/**
 * The steps a payment of a sale shares, whether the sale is a cart (pay-cart.ts) or an invoice
 * (pay-invoice.ts): the contract's checks 2–8 and the `initiated` record (commerce.md §4.3), the
 * one keyed charge and the recorded refusal, and what follows a committed completion. The caller
 * owns what differs: check 1 (the sale's state), the lock it takes with the initiated payment and
 * its recovery record (one transaction), and the sale it closes (complete-payment.ts).
 */
import { readPaymentSettingsCached, type PaymentSettings } from '../../modules/accounts';
import { newId } from '../../core/ids';
import type { Principal } from '../../core/access/principal';
import { isWaiting, type FailedChargeOutcome, type Platform, type WaitingChargeOutcome } from '../../platform/ports';
import { invalid } from '../../rest/input';
import type { RecordScope } from '../../store/entity';
import type { SaleCustomer } from '../../modules/customers';
import type { OrderRecord } from '../../modules/orders';
import type { SaleTotals } from '../../modules/pricing';
import { recheckSalePromotion } from '../../modules/promotions';
import { FeatureNotEnabledError, newPaymentRecord, savedCardRef, type CartPaymentInput, type PaymentRecord } from '../../modules/payments';
import { chargeCard, gatewayChargeOf } from './charge-card';
import { assertChargeable, cardRulesOf, saleGatewayOf, type SaleGateway } from './sale-gateway';
import { handOffPayment } from './hand-off';
import { hasSubscriptionItem } from './subscriptions';
import { assertNotDuplicate, checkCustomer, parsePaymentMethod, saveCardAfterPayment } from './checks';
import { afterCommit, failPayment, withGatewayAnswer, type CompletedSale } from './complete-payment';
import { sendOrderConfirmation, type ConfirmationSale } from './confirmation';
import { openOrderLicenses } from '../license-fulfilment/run-request';

/** How a payment attempt ended: completed (with its order), failed at the gateway, or left waiting. */
export type PaymentOutcome =
  | { status: 'completed'; payment: PaymentRecord; order: OrderRecord | null }
  | { status: 'failed'; payment: PaymentRecord; outcome: FailedChargeOutcome }
  /** Left `initiated` at a live gateway (3-D Secure, processing, no answer: §4.7); the payment as stored. */
  | { status: 'waiting'; payment: PaymentRecord; outcome: WaitingChargeOutcome };

/** A sale as the shared checks see it: a cart, or an invoice (whose custom lines have no product). */
export interface PayableSale {
  currency: string;
  items: ReadonlyArray<{ product_id: string | null; type: string; quantity: number; subscription_plan?: unknown }>;
  customer: SaleCustomer;
  totals: SaleTotals;
  shipping_quotes?: readonly unknown[];
  promotion_code: string | null;
  promotion_id: string | null;
  referrer: string | null;
}

/** The sale the payment names (`cart` or `invoice` on the payment, §4.1). */
export type PaidFor = { cart_id: string } | { invoice_id: string };

/** What the paying request sent. */
export interface SalePaymentRequest {
  /** The parsed body (`cartPaymentCreate`: both ways of paying a sale take the same). */
  body: CartPaymentInput;
  ipAddress: string;
  /** Who pays: a limited payer is given reach over what the payment makes (commerce.md §0.1). */
  principal?: Principal;
}

/** A payment that passed the checks: what its lock write stores and its charge goes on with. */
export interface CheckedPayment {
  settings: PaymentSettings;
  promotion: Awaited<ReturnType<typeof recheckSalePromotion>>;
  method: Awaited<ReturnType<typeof parsePaymentMethod>> | undefined;
  total: number;
  /** The payment in status `initiated`, not yet written. */
  initiated: PaymentRecord;
  /** The gateway this mode charges through (the built-in test gateway or the account's Stripe, §4.7); none for a zero total. */
  gateway: SaleGateway | undefined;
  /** Who pays (see `SalePaymentRequest.principal`). */
  principal?: Principal;
}

/**
 * Checks 2–8 of §4.3 on `sale` at `now`, in the contract's order (the first failure answers and
 * nothing is stored), for a charge of `total`; answers the `initiated` payment dated by the platform's clock.
 */
export async function checkSalePayment(request: SalePaymentRequest, scope: RecordScope, sale: PayableSale, paidFor: PaidFor, total: number, now: number, platform: Platform): Promise<CheckedPayment> {
  const { clock } = platform;
  const settings = await readPaymentSettingsCached(scope.accountId);
  const gateway = total > 0 ? await saleGatewayOf(platform, scope, settings) : undefined;
  if (sale.items.length === 0) invalid('items', 'The sale has no items to pay for.', 'required');
  checkCustomer(sale.customer, settings);
  // Only product lines take a promotion (§11), so only they are re-checked against it.
  const lines = sale.items.flatMap((item) => (item.product_id !== null ? [{ productId: item.product_id, quantity: item.quantity }] : []));
  const promotion = await recheckSalePromotion(scope, sale, lines, now);
  if (sale.items.some((item) => item.type === 'physical') && (sale.shipping_quotes?.length ?? 0) > 0 && sale.totals.shipping_item === null) {
    invalid('shipping_method_id', 'Select a shipping method before paying.', 'required');
  }
  const method = total > 0 ? await parsePaymentMethod(request.body.payment_method, now, scope, sale.customer.customer_id, cardRulesOf(gateway, settings)) : undefined;
  const fingerprint = method?.fingerprint ?? null;
  // 7–8: duplicates, then whether a gateway exists for this mode.
  if (fingerprint && request.body.allow_duplicate !== true) {
    await assertNotDuplicate(scope, fingerprint, sale.currency, total, settings.duplicate_payment_timeout, now);
  }
  if (!gateway && total > 0) {
    throw new FeatureNotEnabledError('Live card payments need the account\'s Stripe connection (/settings/payment stripe_live).', null);
  }
  assertChargeable(gateway, total, sale.currency);
  const paymentId = newId();
  // §4.2: a subscription sale's new card is always saved (the renewals charge it), else when asked and allowed.
  const subscribing = hasSubscriptionItem(sale.items);
  const keepCard = method !== undefined && method.card.kind !== 'saved' && (subscribing || (method.save && settings.allow_save_cards));
  // What a Stripe charge carries (§4.7): the metadata its webhooks are routed by, and the customer a saved card is kept for.
  const gatewayCharge = gatewayChargeOf({
    sale: gateway,
    metadata: { account_id: scope.accountId, payment_id: paymentId, ...paidFor },
    ...(keepCard ? { saveCard: { email: sale.customer.email ?? null, name: sale.customer.name ?? null } } : {}),
    amount: total,
    currency: sale.currency,
    card: method?.card,
    fallbackPostalCode: null,
    settings,
  });
  const initiated = newPaymentRecord(scope, paymentId, {
    ...(gatewayCharge ? { gateway_charge: gatewayCharge } : {}),
    status: 'initiated',
    currency: sale.currency,
    subtotal: sale.totals.subtotal,
    shipping: sale.totals.shipping,
    tax: sale.totals.tax,
    total,
    settlement_currency: sale.totals.settlement_currency,
    settlement_subtotal: sale.totals.settlement_subtotal,
    settlement_shipping: sale.totals.settlement_shipping,
    settlement_tax: sale.totals.settlement_tax,
    settlement_total: sale.totals.settlement_total,
    total_refunded: 0,
    reference: null,
    description: null,
    referrer: sale.referrer,
    payment_method: method ? { payment_method_id: method.paymentMethodId, type: 'credit_card', data: method.data } : null,
    response_data: { authorization_code: null, avs_match: null, cvv_match: null, message: null },
    gateway_transaction_id: null,
    error_code: null,
    ip_address: request.ipAddress,
    customer_id: sale.customer.customer_id,
    cart_id: 'cart_id' in paidFor ? paidFor.cart_id : null,
    ...('invoice_id' in paidFor ? { invoice_id: paidFor.invoice_id } : {}),
    order_id: null,
    meta: request.body.meta ?? null,
    fingerprint,
    // §4.2: a subscription sale's new card is always saved, by its completion (./subscriptions.ts);
    // through Stripe the card is kept at Stripe instead (`setup_future_usage`), its references answered by the charge.
    ...(method?.card.kind === 'new' && subscribing && !gatewayCharge ? { saved_card: savedCardRef(method.card) } : {}),
    // A limited payer's token, so a completion outside its request (commit, webhook, sweep) gives it the same reach.
    ...(request.principal?.kind === 'limited' ? { payer_token: request.principal.tokenHash } : {}),
  }, clock.nowMs());
  return { settings, promotion, method, total, initiated, gateway, ...(request.principal ? { principal: request.principal } : {}) };
}

/**
 * Step 3 and 4a: charges the locked payment once (keyed by it; a zero total charges nothing). A
 * refusal is recorded (the payment failed, the sale's lock and promotion use released, one
 * transaction) and answered as the failed outcome; a live gateway's wait (3-D Secure, processing,
 * no answer: §4.7) hands the payment off to the commit, the webhook and the sweep, answered as
 * waiting; an approval answers the payment as the gateway left it, for the caller's completion.
 */
export async function chargeSalePayment(platform: Platform, scope: RecordScope, checked: CheckedPayment, sale: PayableSale): Promise<{ approved: PaymentRecord } | { ended: PaymentOutcome }> {
  const { initiated, method, total, settings, promotion, gateway } = checked;
  const charge = initiated.gateway_charge;
  const result = await chargeCard(platform, {
    scope, paymentId: initiated.payment_id, amount: total, currency: sale.currency, card: method?.card,
    fallbackPostalCode: sale.customer.billing_address.postal_code ?? null, settings,
    ...(charge ? { sale: gateway, metadata: charge.metadata, ...(charge.save ? { saveCard: charge.save } : {}) } : {}),
  });
  const answered = withGatewayAnswer(initiated, result, platform.clock.nowMs());
  if (result.outcome === 'approved') return { approved: answered };
  if (isWaiting(result.outcome)) return { ended: { status: 'waiting', payment: await handOffPayment(scope, answered, checked.principal), outcome: result.outcome } };
  const failed = await failPayment(scope, answered, result.outcome, promotion?.promotion_id, answered.modified_ms);
  return { ended: { status: 'failed', payment: failed, outcome: result.outcome } };
}

/**
 * Step 5, after the completion committed: saves the card if asked, serves list license codes
 * and queues remote requests (licenses.md §4.1), and hands the confirmation email over. Each has
 * its own recovery; a failure here is logged and leaves the payment completed.
 */
export async function afterSaleCompleted(platform: Platform, scope: RecordScope, checked: CheckedPayment, completion: CompletedSale, sale: ConfirmationSale): Promise<PaymentOutcome> {
  const { order, confirmation, licenses } = completion;
  const paymentId = completion.completed.payment_id;
  const completed = await saveCardAfterPayment(scope, checked.method, completion.completed, checked.settings.allow_save_cards, platform.clock);
  if (licenses) await openOrderLicenses(platform, licenses, order).catch(afterCommit('Opening the license requests', paymentId));
  await sendOrderConfirmation(platform, confirmation, { order, cart: sale }).catch(afterCommit('The confirmation email', paymentId));
  return { status: 'completed', payment: completed, order };
}
