/** The payment endpoints (commerce.md §4), as actions of the API pipeline. */
import { readPaymentSettingsCached } from '../../modules/accounts';
import { assertReach } from '../../modules/identity';
import { InvalidInputError, InvalidStateError } from '../../http/errors';
import { declareAnswer, declareQuery, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { cursorQuery, type CursorSource, renderCursorList } from '../../rest/cursor-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import type { RenderContext } from '../../rest/render-context';
import { batchGetItems, collectionPartition, findRecord, getRecord, recordKey, type RecordScope } from '../../store/records';
import { parseExpand, withLegacyOptions } from '../../rest/paths';
import { orderDeclaration, orderIdOfPayment } from '../../modules/orders';
import { viewerCountry, allowedCustomerCountries, formOptions, carts } from '../../modules/carts';
import { payCart, type PaymentOutcome } from './pay-cart';
import { acceptedPaymentMethods, gatewayError, paymentDeclaration, type PaymentRecord, cartPaymentCreate, directPaymentCreate, paymentUpdate, paymentsOfCart, updatePayment } from '../../modules/payments';
import { payDirect } from './pay-direct';
import { recoverPayment } from './recover-payment';
import type { FailedChargeOutcome } from '../../platform/ports';

/** The failed outcome of a stored `error_code` (the inverse of `gatewayErrorCode`). */
function outcomeOfCode(code: string | null): FailedChargeOutcome {
  const outcomes: Record<string, FailedChargeOutcome> = { payment_declined: 'declined', invalid_cvv: 'invalid_cvv', invalid_avs: 'invalid_avs', bank_network_error: 'error', bank_network_timeout: 'timeout' };
  return outcomes[code ?? ''] ?? 'declined';
}
import { sends } from '../../rest/input';
import { assertReachesStored, mayReachId, outOfReach, readReachable } from '../../rest/reach';
import type { Principal } from '../../core/access/principal';

const STATUSES = ['initiated', 'pending', 'completed', 'failed', 'refunded', 'cancelled'];

/**
 * The answer of a payment attempt: 201 with the payment and its Location, or the gateway's
 * 402/502/504 error carrying the failed payment in `meta.payment`.
 */
export async function paymentAnswer(outcome: PaymentOutcome, render: RenderContext): Promise<ApiResult> {
  const body = await renderResource(paymentDeclaration, outcome.payment, render);
  if (outcome.status === 'failed') throw gatewayError(outcome.outcome, { payment: body });
  // §4.7: no answer from Stripe in time is 504 with the payment still `initiated` (the lookup settles it).
  if (outcome.status === 'waiting' && outcome.outcome === 'no_answer' && outcome.payment.status === 'initiated') throw gatewayError('timeout', { payment: body });
  return { status: 201, body, location: render.url(`payments/${outcome.payment.payment_id}`) };
}

/** `POST /carts/{cart_id}/payments`: charges the cart and creates its order. */
export const payCartAction = withBody(cartPaymentCreate, async (context) => {
  const { render } = await actionScope(context);
  const outcome = await payCart(context.platform, { principal: requirePrincipal(context), cartId: context.params.cart_id!, body: context.body, ipAddress: context.sourceIp });
  return paymentAnswer(outcome, render);
});

/** `GET /carts/{cart_id}/payments`: the cart's payment attempts (offset list). */
export async function listCartPaymentsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const principal = requirePrincipal(context);
  const cartId = context.params.cart_id!;
  assertReach(principal, `carts/${cartId}`, 'cart');
  await carts.get(scope, cartId);
  const page = offsetPage(context.query);
  const all = await paymentsOfCart(scope, cartId);
  const data = await renderElements(paymentDeclaration, all.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, all.length, pageUrlBuilder(render.url(`carts/${cartId}/payments`), context.query, 'offset')) };
}

/** `GET /payments/{payment_id}`. */
export async function getPaymentAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const paymentId = context.params.payment_id!;
  const principal = requirePrincipal(context);
  const wantsOrder = 'order' in parseExpand(withLegacyOptions(context.query.expand, context.query), 'single');
  const payment = wantsOrder ? await readWithOrder(scope, paymentId, render, principal) : await readReachable(paymentDeclaration, scope, paymentId, principal);
  return { status: 200, body: await renderResource(paymentDeclaration, payment, render) };
}

/**
 * The payment and, in the same strongly consistent batch read, the order its id predicts
 * (`orderIdOfPayment`): `expand=order`, the shopper's read after paying, costs one call. The
 * order is handed to expansion only when the payment really names it (expansion still checks
 * the caller may read it); otherwise expansion reads the order the payment names as usual.
 * Reach is checked as `readReachable` does (404 out of reach, before revealing another mode's).
 */
async function readWithOrder(scope: RecordScope, paymentId: string, render: RenderContext, principal: Principal): Promise<PaymentRecord> {
  if (!mayReachId(principal, paymentDeclaration, paymentId)) throw outOfReach(paymentDeclaration);
  const paymentKey = recordKey(paymentDeclaration, scope, paymentId);
  const orderKey = recordKey(orderDeclaration, scope, orderIdOfPayment(scope, paymentId));
  const found = await batchGetItems([paymentKey, orderKey], { consistent: true });
  const payment = found.get(paymentKey.pk) as PaymentRecord | undefined;
  // Absent: the usual answer (404, or 400 when it exists in the other mode to a caller that reaches it by path).
  if (!payment) return readReachable(paymentDeclaration, scope, paymentId, principal);
  assertReachesStored(principal, paymentDeclaration, payment);
  const order = found.get(orderKey.pk);
  if (order && payment.order_id === orderIdOfPayment(scope, paymentId)) render.preread.set(orderKey.pk, order);
  return payment;
}

/** `POST /payments`: a direct payment (no order). */
export const payDirectAction = withBody(directPaymentCreate, async (context) => {
  const { render } = await actionScope(context);
  return paymentAnswer(await payDirect(context.platform, requirePrincipal(context), context.body, context.sourceIp), render);
});

/** `POST /payments/{payment_id}`: changes only `reference`, `description` and `meta`. */
export const updatePaymentAction = withBody(paymentUpdate, async (context) => {
  const { scope, render } = await actionScope(context);
  const paymentId = context.params.payment_id!;
  assertReach(requirePrincipal(context), `payments/${paymentId}`, 'payment');
  const body = context.body;
  const changes: Partial<PaymentRecord> = {};
  if (body.reference !== undefined) changes.reference = body.reference;
  if (body.description !== undefined) changes.description = body.description;
  if (sends(body, 'meta')) changes.meta = body.meta;
  const saved = await updatePayment(scope, paymentId, (current) => {
    if (!Object.keys(changes).length) return { next: current, write: false };
    return { next: { ...current, ...changes, modified_ms: Math.max(context.platform.clock.nowMs(), current.modified_ms + 1) } };
  });
  return { status: 200, body: await renderResource(paymentDeclaration, saved, render) };
});

/**
 * `POST /payments/{payment_id}/commit` (§4.6, §4.7): a Stripe payment its paying request left
 * `initiated` (after 3-D Secure) is settled by asking Stripe, through the same completion as the
 * webhook and the sweep; a failure found now is the gateway's error with the payment. The
 * built-in gateway never leaves a payment `initiated`, so a completed payment answers 200
 * unchanged and a failed one 422.
 */
export async function commitPaymentAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const paymentId = context.params.payment_id!;
  const principal = requirePrincipal(context);
  assertReach(principal, `payments/${paymentId}`, 'payment');
  let payment = await getRecord(paymentDeclaration, scope, paymentId);
  if (payment.status === 'initiated' && payment.gateway_charge?.handed_off) {
    await recoverPayment(context.platform, scope, paymentId, { principal });
    payment = await getRecord(paymentDeclaration, scope, paymentId);
    if (payment.status === 'failed') {
      throw gatewayError(outcomeOfCode(payment.error_code), { payment: await renderResource(paymentDeclaration, payment, render) });
    }
  }
  if (payment.status === 'failed' || payment.status === 'cancelled') {
    throw new InvalidStateError(`The payment is ${payment.status} and cannot be committed.`, { status: payment.status });
  }
  return { status: 200, body: await renderResource(paymentDeclaration, payment, render) };
}

/** `GET /payments`: cursor list; filters `status`, `customer_id`, `currency`. */
export async function listPaymentsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const request = cursorQuery(context.query, render);
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  const { status, customer_id: customerId, currency } = context.query;
  if (status) {
    if (!STATUSES.includes(status)) throw new InvalidInputError(`The parameter status must be one of ${STATUSES.join(', ')}.`, { parameter: 'status', reason: 'invalid' });
    conditions.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = status;
  }
  if (customerId) {
    conditions.push('customer_id = :customer');
    values[':customer'] = customerId;
  }
  if (currency) {
    conditions.push('currency = :currency');
    values[':currency'] = currency.toUpperCase();
  }
  const source: CursorSource = {
    partition: collectionPartition(paymentDeclaration, scope),
    idOf: (item) => item.payment_id as string,
    find: async (id) => (await findRecord(paymentDeclaration, scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values, ...(Object.keys(names).length ? { names } : {}) } } : {}),
  };
  return { status: 200, body: await renderCursorList(source, request, paymentDeclaration, render, 'payments') };
}

/**
 * `GET /payments/options`: what a checkout form needs (any valid token), the same field paths,
 * card types, currencies and countries a cart's `options` gives (commerce.md §3.4, §4.6).
 */
export async function paymentOptionsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const settings = await readPaymentSettingsCached(scope.accountId);
  const form = formOptions(settings, render.locale);
  return {
    status: 200,
    body: {
      object: 'payment_options',
      payment_methods: acceptedPaymentMethods(settings),
      card_types: form.card_types,
      allowed_customer_countries: allowedCustomerCountries(settings),
      customer_default_country: viewerCountry(context.headers, context.fromOwnEdge),
      customer_default_currency: render.currency,
      currencies: form.currencies,
      customer_required_fields: form.customer_required_fields,
      customer_optional_fields: form.customer_optional_fields,
      // §4.7: the token's mode's Stripe publishable key, for Stripe.js in the shopper's browser.
      stripe_publishable_key: (scope.mode === 'live' ? settings.stripe_live : settings.stripe_test)?.publishable_key ?? null,
    },
  };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listCartPaymentsAction, { list: 'offset' });
declareQuery(listPaymentsAction, { list: 'cursor', filters: { status: 'initiated, pending, completed, failed, refunded or cancelled', customer_id: 'Payments of one customer', currency: 'Payments in one currency' } });

declareAnswer(commitPaymentAction, { resource: 'payment' });
declareAnswer(paymentOptionsAction, { shape: 'payment_options', summary: 'Retrieve the payment options', description: 'What a checkout form needs: the accepted payment methods and card types, currencies, countries, the customer fields and the Stripe publishable key.' });
