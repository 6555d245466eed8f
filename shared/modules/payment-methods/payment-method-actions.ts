/** The `/customers/{customer_id}/payment_methods` endpoints (commerce.md §6.1), as actions of the API pipeline. */
import { isWaiting } from '../../platform/ports';
import { readPaymentSettingsCached } from '../accounts';
import { customerDeclaration } from '../customers';
import { booleanParameter } from '../../http/request';
import { declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import { readReachable } from '../../rest/reach';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/records';
import { newCard, FeatureNotEnabledError, gatewayError } from '../payments';
import {
  deletePaymentMethod,
  getCustomerPaymentMethod,
  listPaymentMethods,
  paymentMethodDeclaration,
  storePaymentMethod,
  updatePaymentMethod,
} from './payment-methods';
import { paymentMethodCreate, paymentMethodUpdate } from './payment-method-schemas';

/** The scope, the render context and the customer (within the caller's reach; 404 when missing). */
async function paymentMethodsScope(context: ApiContext): Promise<{ scope: RecordScope; render: RenderContext; customerId: string }> {
  const { principal, scope, render } = await actionScope(context);
  const customer = await readReachable(customerDeclaration, scope, context.params.customer_id!, principal);
  return { scope, render, customerId: customer.customer_id };
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
 * and saves it.
 */
export const createPaymentMethodAction = withBody(paymentMethodCreate, async (context) => {
  const { scope, render, customerId } = await paymentMethodsScope(context);
  const isDefault = context.body.is_default ?? undefined;
  const card = newCard(context.body.data!, 'data', context.platform.clock.nowMs());
  if (scope.mode === 'live') throw new FeatureNotEnabledError('Saving live cards needs a payment gateway integration, which this deployment does not have yet.', null);
  const settings = await readPaymentSettingsCached(scope.accountId);
  const verified = await context.platform.gateway.charge({
    amount: 0,
    currency: settings.settlement_currency,
    card,
    billingPostalCode: (card.billingAddress?.postal_code as string | null | undefined) ?? null,
    ignoreBadCvv: settings.ignore_bad_cvv,
    ignoreBadAvs: settings.ignore_bad_avs,
  });
  if (verified.outcome !== 'approved') throw gatewayError(isWaiting(verified.outcome) ? 'error' : verified.outcome);
  const record = await storePaymentMethod(scope, customerId, card, isDefault, context.platform.clock.nowMs());
  const rendered = await renderResource(paymentMethodDeclaration, record, render);
  return { status: 201, body: rendered, location: rendered.url as string };
});

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
