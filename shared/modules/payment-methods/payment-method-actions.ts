/** The `/customers/{customer_id}/payment_methods` endpoints (commerce.md §6.1), as actions of the API pipeline. */
import { isWaiting } from '../../platform/ports';
import { openStripeConnection, readPaymentSettingsCached, type PaymentSettings } from '../accounts';
import { customerDeclaration, rememberStripeCustomer, type CustomerRecord } from '../customers';
import { newId } from '../../core/ids';
import { mergeAddress } from '../../rest/addresses';
import type { ChargeOutcome, FailedChargeOutcome, NewCard, SavedCardRef } from '../../platform/ports';
import { booleanParameter } from '../../http/request';
import { declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import { readReachable } from '../../rest/reach';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/records';
import { brandNumberLength, cardBrand, gatewayBrandName, gatewayCard, FeatureNotEnabledError, gatewayError, type PaymentCardDataInput } from '../payments';
import {
  deletePaymentMethod,
  getCustomerPaymentMethod,
  listPaymentMethods,
  paymentMethodDeclaration,
  storePaymentMethod,
  type PaymentMethodRecord,
  updatePaymentMethod,
} from './payment-methods';
import { paymentMethodCreate, paymentMethodUpdate } from './payment-method-schemas';

/** The scope, the render context and the customer (within the caller's reach; 404 when missing). */
async function paymentMethodsScope(context: ApiContext): Promise<{ scope: RecordScope; render: RenderContext; customerId: string; customer: CustomerRecord }> {
  const { principal, scope, render } = await actionScope(context);
  const customer = await readReachable(customerDeclaration, scope, context.params.customer_id!, principal);
  return { scope, render, customerId: customer.customer_id, customer };
}

/** `GET /customers/{customer_id}/payment_methods`: offset list, oldest first (`desc=true` reverses). */
export async function listPaymentMethodsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render, customerId } = await paymentMethodsScope(context);
  const methods = await listPaymentMethods(scope, customerId);
  const page = offsetPage(context.query);
  const ordered = booleanParameter(context.query, 'desc') ? [...methods].reverse() : methods;
  const data = await renderElements(paymentMethodDeclaration, ordered.slice(page.offset, page.offset + page.limit), render);
  const url = render.url(`customers/${encodeURIComponent(customerId)}/payment_methods`);
  return { status: 200, body: offsetList(data, page, methods.length, pageUrlBuilder(url, context.query, 'offset')) };
}

/**
 * `POST /customers/{customer_id}/payment_methods`: verifies the card with the gateway (§4.4;
 * nothing is charged or stored on a failure: 402 payment_declined, invalid_cvv, invalid_avs)
 * and saves it. With a Stripe connection for the mode (§4.7) the card is kept at Stripe instead
 * (`saveThroughStripe`); live mode without one has no gateway (409 feature_not_enabled).
 */
export const createPaymentMethodAction = withBody(paymentMethodCreate, async (context) => {
  const { scope, render, customerId, customer } = await paymentMethodsScope(context);
  const isDefault = context.body.is_default ?? undefined;
  const now = context.platform.clock.nowMs();
  const data = context.body.data!;
  const settings = await readPaymentSettingsCached(scope.accountId);
  const connection = await openStripeConnection(scope.accountId, scope.mode, settings, context.platform);
  let record: PaymentMethodRecord;
  if (connection) {
    record = await saveThroughStripe(context, scope, customer, data, settings, connection.secretKey, isDefault);
  } else {
    // Without a Stripe connection cards are verified by the built-in gateway, which has no tokens.
    const card = gatewayCard(data, 'data', { gateway: 'test', allowRawCardData: true }, now) as NewCard;
    if (scope.mode === 'live') throw new FeatureNotEnabledError('Saving live cards needs the account\'s Stripe connection (/settings/payment stripe_live).', null);
    const verified = await context.platform.gateway.charge({
      amount: 0,
      currency: settings.settlement_currency,
      card,
      billingPostalCode: (card.billingAddress?.postal_code as string | null | undefined) ?? null,
      ignoreBadCvv: settings.ignore_bad_cvv,
      ignoreBadAvs: settings.ignore_bad_avs,
    });
    if (verified.outcome !== 'approved') throw gatewayError(isWaiting(verified.outcome) ? 'error' : verified.outcome);
    record = await storePaymentMethod(scope, customerId, card, isDefault, now);
  }
  const rendered = await renderResource(paymentMethodDeclaration, record, render);
  return { status: 201, body: rendered, location: rendered.url as string };
});

/** The API error of a card Stripe did not save: no answer in time is 504, a card still processing 502, one needing 3-D Secure a decline. */
function saveFailure(outcome: ChargeOutcome): FailedChargeOutcome {
  if (outcome === 'no_answer') return 'timeout';
  if (outcome === 'processing') return 'error';
  if (outcome === 'approved' || outcome === 'action_required') return 'declined';
  return outcome;
}

/**
 * Saves a card through the mode's Stripe connection (commerce.md §4.7, Stripe's "save a card
 * for later" flow): `data.token` is a Stripe.js PaymentMethod (`pm_…`); a raw number only when
 * the account sets `allow_raw_card_data` (else 400 `tokenization_required`, as at checkout), and
 * it is never stored. The PaymentMethod is attached to the customer's Stripe customer (made on
 * first use and kept on the customer record) by a SetupIntent confirmed for off-session use;
 * the saved method keeps only the Stripe ids and what Stripe says of the card. A decline is 402
 * as §4.4 says; a card that needs 3-D Secure cannot be saved here and is 402 payment_declined.
 */
async function saveThroughStripe(context: ApiContext, scope: RecordScope, customer: CustomerRecord, data: PaymentCardDataInput, settings: PaymentSettings, secretKey: string, isDefault: boolean | undefined): Promise<PaymentMethodRecord> {
  const now = context.platform.clock.nowMs();
  const card = gatewayCard(data, 'data', { gateway: 'stripe', allowRawCardData: settings.allow_raw_card_data }, now);
  const customerId = customer.customer_id;
  const paymentMethodId = newId();
  const billingAddress = card.kind === 'new' ? card.billingAddress : data.billing_address ? mergeAddress(undefined, data.billing_address) : null;
  const result = await context.platform.stripe.connect(secretKey).saveCard({
    key: `${scope.accountId}#${scope.mode}#${paymentMethodId}`,
    card,
    customer: customer.stripe_customer_id ?? null,
    details: { email: customer.email ?? null, name: customer.name ?? null },
    metadata: { account_id: scope.accountId, customer_id: customerId, payment_method_id: paymentMethodId },
    billingPostalCode: (billingAddress?.postal_code as string | null | undefined) ?? customer.billing_address?.postal_code ?? null,
  });
  // The Stripe customer is kept whatever the card did, so the next card reuses it.
  if (result.customer && result.customer !== customer.stripe_customer_id) await rememberStripeCustomer(scope, customerId, result.customer);
  if (result.outcome !== 'approved' || !result.saved) throw gatewayError(saveFailure(result.outcome));
  const brand = gatewayBrandName(result.card?.brand) ?? (card.kind === 'new' ? cardBrand(card.number) : null);
  const last4 = result.card?.last4 ?? (card.kind === 'new' ? card.number.slice(-4) : '');
  const ref: SavedCardRef = {
    kind: 'saved',
    brand,
    last4,
    numberLength: card.kind === 'new' ? card.number.length : brandNumberLength(brand),
    expMonth: result.card?.expMonth ?? (card.kind === 'new' ? card.expMonth : 0),
    expYear: result.card?.expYear ?? (card.kind === 'new' ? card.expYear : 0),
    cardholderName: data.cardholder_name ?? null,
    billingAddress,
    testBehaviour: 'approve',
    gateway: result.saved,
  };
  return storePaymentMethod(scope, customerId, ref, isDefault, now, paymentMethodId);
}

/** `GET /customers/{customer_id}/payment_methods/{payment_method_id}`. */
export async function getPaymentMethodAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render, customerId } = await paymentMethodsScope(context);
  const record = await getCustomerPaymentMethod(scope, customerId, context.params.payment_method_id!);
  return { status: 200, body: await renderResource(paymentMethodDeclaration, record, render) };
}

/** `POST /customers/{customer_id}/payment_methods/{payment_method_id}`: partial update. */
export const updatePaymentMethodAction = withBody(paymentMethodUpdate, async (context) => {
  const { scope, render, customerId } = await paymentMethodsScope(context);
  const saved = await updatePaymentMethod(scope, customerId, context.params.payment_method_id!, context.body, context.platform.clock);
  return { status: 200, body: await renderResource(paymentMethodDeclaration, saved, render) };
});

/** `DELETE /customers/{customer_id}/payment_methods/{payment_method_id}`: 204. */
export async function deletePaymentMethodAction(context: ApiContext): Promise<ApiResult> {
  const { scope, customerId } = await paymentMethodsScope(context);
  const current = await getCustomerPaymentMethod(scope, customerId, context.params.payment_method_id!);
  // Deleted concurrently meanwhile is the outcome the caller asked for (no error).
  await deletePaymentMethod(scope, current);
  return { status: 204 };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listPaymentMethodsAction, { list: 'offset' });
