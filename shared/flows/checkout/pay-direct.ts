/**
 * Direct payments (`POST /payments`, commerce.md §4.3): a charge with no sale; it creates no
 * order. A limited token that makes one is bound to it (one counted binding). An operation: the
 * payment out, no HTTP. Like a cart payment it is stored `initiated` with its recovery due in
 * the same transaction, charged once by its key, and settled by recovery if the process dies.
 */
import { readPaymentSettingsCached } from '../../modules/accounts';
import { assertBindingCapacity, BindingLimitExceededError, bindingWrite, bindingWritten } from '../../modules/identity';
import { type Principal } from '../../core/access/principal';
import { customerDeclaration, saleDetailsOf } from '../../modules/customers';
import { dueEntry } from '../../work/due-work-store';
import { newId } from '../../core/ids';
import { isWaiting, type Platform } from '../../platform/ports';
import { MAX_MONEY } from '../../rest/fields';
import { invalid } from '../../rest/input';
import { roundMoney } from '../../rest/money';
import type { RecordScope } from '../../store/entity';
import { RecordNotFoundError, TransactionRejectedError } from '../../store/errors';
import { getRecord } from '../../store/records';
import { transact } from '../../store/transact';
import { convert } from '../../modules/catalog';
import { FeatureNotEnabledError, newPaymentRecord, type DirectPaymentInput, initiatedEntry } from '../../modules/payments';
import { chargeCard, gatewayChargeOf } from './charge-card';
import { assertChargeable, cardRulesOf, saleGatewayOf } from './sale-gateway';
import { handOffPayment } from './hand-off';
import { assertNotDuplicate, parsePaymentMethod, saveCardAfterPayment } from './checks';
import { completeDirectPayment, failPayment, withGatewayAnswer } from './complete-payment';
import { named, present } from './entries';
import type { PaymentOutcome } from './pay-cart';
import { RECOVERY_DELAY_MS } from './recover-payment';

/**
 * Makes a direct payment (`POST /payments`) from its parsed body (`directPaymentCreate`, which
 * checked types and each amount's range): the currency must be enabled, the parts must agree
 * with `total`, and the total, computed or sent, must stay within the money limit in the
 * payment's currency and in the settlement currency (conventions.md §20; `total` is blamed).
 */
export async function payDirect(platform: Platform, principal: Principal, body: DirectPaymentInput, ipAddress: string): Promise<PaymentOutcome> {
  const scope: RecordScope = { accountId: principal.accountId, mode: principal.mode };
  const settings = await readPaymentSettingsCached(scope.accountId);
  const now = platform.clock.nowMs();

  const currency = body.currency.toUpperCase();
  if (!settings.currencies.includes(currency)) invalid('currency', `The currency ${body.currency} is not enabled for this account.`);
  const amount = (value: number | null | undefined) => (value === null || value === undefined ? undefined : roundMoney(value, currency));
  const subtotalSent = amount(body.subtotal);
  const shipping = amount(body.shipping) ?? 0;
  const tax = amount(body.tax) ?? 0;
  const totalSent = amount(body.total);
  if (totalSent === undefined && subtotalSent === undefined) invalid('total', 'Send total, or subtotal with optional shipping and tax.', 'required');
  const subtotal = subtotalSent ?? roundMoney((totalSent as number) - shipping - tax, currency);
  const total = totalSent ?? roundMoney(subtotal + shipping + tax, currency);
  if (subtotalSent !== undefined && totalSent !== undefined && roundMoney(subtotal + shipping + tax, currency) !== total) {
    invalid('total', 'The total disagrees with subtotal + shipping + tax.', 'conflict');
  }
  if (subtotal < 0) invalid('total', 'The total is less than shipping + tax.', 'conflict');
  const settlement = (value: number) => convert(value, currency, settings.settlement_currency, settings);
  if (total > MAX_MONEY || settlement(total) > MAX_MONEY) {
    invalid('total', `The total must be at most ${MAX_MONEY.toLocaleString('en')}, in ${currency} and in the settlement currency ${settings.settlement_currency}.`, 'out_of_range');
  }
  const reference = body.reference ?? null;
  const description = body.description ?? null;
  const referrer = body.referrer ?? null;
  const meta = body.meta ?? null;
  // The payer (§4.3): a saved customer linked by `customer_id` (not for limited tokens, as on
  // carts), or a new customer the sent `customer` fields make when the payment completes.
  let customerId: string | null = null;
  const [linkProperty, linkedId] = body.customer_id ? ['customer_id', body.customer_id] : ['customer.customer_id', body.customer?.customer_id];
  if (linkedId && principal.kind !== 'limited') {
    customerId = linkedId;
    await getRecord(customerDeclaration, scope, linkedId).catch((error: unknown) => {
      if (error instanceof RecordNotFoundError) invalid(linkProperty, `The customer ${linkedId} does not exist.`, 'not_found');
      throw error;
    });
  }
  const payerDetails = customerId === null ? saleDetailsOf(body.customer) : undefined;
  const sale = total > 0 ? await saleGatewayOf(platform, scope, settings) : undefined;
  const method = total > 0 ? await parsePaymentMethod(body.payment_method, now, scope, customerId, cardRulesOf(sale, settings)) : undefined;
  const card = method?.card;
  const fingerprint = method?.fingerprint ?? null;
  if (fingerprint && body.allow_duplicate !== true) await assertNotDuplicate(scope, fingerprint, currency, total, settings.duplicate_payment_timeout, now);
  if (!sale && total > 0) throw new FeatureNotEnabledError('Live card payments need the account\'s Stripe connection (/settings/payment stripe_live).', null);
  assertChargeable(sale, total, currency);

  const paymentId = newId();
  const stripeFields = { sale, metadata: { account_id: scope.accountId, payment_id: paymentId }, ...(method?.save && settings.allow_save_cards ? { saveCard: { email: body.customer?.email ?? null, name: body.customer?.name ?? null } } : {}) };
  const gatewayCharge = gatewayChargeOf({ ...stripeFields, amount: total, currency, card, fallbackPostalCode: null, settings });
  assertBindingCapacity(principal, `payments/${paymentId}`);
  const initiated = newPaymentRecord(scope, paymentId, {
    ...(gatewayCharge ? { gateway_charge: gatewayCharge } : {}),
    status: 'initiated', currency, subtotal, shipping, tax, total,
    settlement_currency: settings.settlement_currency,
    settlement_subtotal: settlement(subtotal), settlement_shipping: settlement(shipping), settlement_tax: settlement(tax), settlement_total: settlement(total),
    total_refunded: 0, reference, description, referrer,
    payment_method: method ? { payment_method_id: method.paymentMethodId, type: 'credit_card', data: method.data } : null,
    response_data: { authorization_code: null, avs_match: null, cvv_match: null, message: null },
    gateway_transaction_id: null, error_code: null, ip_address: ipAddress, customer_id: customerId, cart_id: null, order_id: null, meta, fingerprint,
    ...(payerDetails ? { payer: { customer_id: newId(), details: payerDetails } } : {}),
  }, platform.clock.nowMs());
  const binding = named('token.binding', bindingWrite(principal, `payments/${paymentId}`));
  try {
    await transact(present(initiatedEntry(initiated), dueEntry('payment-recovery', scope, paymentId, now + RECOVERY_DELAY_MS + 1000, now), binding));
  } catch (error) {
    if (error instanceof TransactionRejectedError && error.refused('token.binding')) throw new BindingLimitExceededError();
    throw error;
  }
  if (binding) bindingWritten(principal, `payments/${paymentId}`);

  const result = await chargeCard(platform, { scope, paymentId, amount: total, currency, card, fallbackPostalCode: null, settings, ...(gatewayCharge ? stripeFields : {}) });
  const answered = withGatewayAnswer(initiated, result, platform.clock.nowMs());
  if (isWaiting(result.outcome)) return { status: 'waiting', payment: await handOffPayment(scope, answered), outcome: result.outcome };
  if (result.outcome !== 'approved') {
    return { status: 'failed', payment: await failPayment(scope, answered, result.outcome, undefined, answered.modified_ms), outcome: result.outcome };
  }
  const finished = await completeDirectPayment(scope, answered, answered.modified_ms);
  return { status: 'completed', payment: await saveCardAfterPayment(scope, method, finished, settings.allow_save_cards, platform.clock), order: null };
}
