/**
 * The subscription endpoints that change nothing but the subscription (commerce.md §10.3), as
 * actions of the API pipeline: the cursor list, one subscription, the update, cancel and
 * un-cancel, the offset lists of its orders and payments, and a customer's subscriptions.
 * `fast_forward` charges, so it is the renewals flow's (shared/flows/renewals).
 *
 * Reach (§0.1): a limited token reads the subscriptions of the sale it paid and customer scope
 * its customer's; customer scope also cancels and un-cancels its own when
 * `allow_customer_subscription_cancel` is on (else 403), and no other limited token ever does.
 */
import { InsufficientPermissionsError } from '../../http/auth-errors';
import { InvalidInputError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareQuery, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { scopeCustomerOf } from '../../core/access/principal';
import { actionScope } from '../../rest/action-scope';
import { cursorQuery, renderCursorList, type CursorSource } from '../../rest/cursor-list';
import { invalid } from '../../rest/input';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { readReachable } from '../../rest/reach';
import { renderElements, renderResource } from '../../rest/render';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/records';
import { readPaymentSettingsCached } from '../accounts';
import { customerDeclaration } from '../customers';
import { orderDeclaration } from '../orders';
import { paymentDeclaration } from '../payments';
import { findCustomerPaymentMethod } from '../payment-methods';
import type { ResourceDeclaration } from '../../rest/declarations';
import { cancelSubscription, changeSubscription, uncancelSubscription } from './changes';
import { recordsByIds, subscriptionDeclaration } from './declaration';
import type { SubscriptionRecord } from './records';
import { subscriptionCancel, subscriptionUpdate } from './schemas';
import { findSubscription, subscriptionPartition, subscriptionsOfCustomer } from './subscription-store';
import { readSubscription } from './reads';

const STATUSES = ['active', 'cancelled', 'completed', 'trial'] as const;

/** `GET /subscriptions/{subscription_id}`. */
export async function getSubscriptionAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  return { status: 200, body: await renderResource(subscriptionDeclaration, await readSubscription(context, scope), render) };
}

/** `GET /subscriptions`: cursor list; filters `status`, `customer_id`, `in_grace_period`. */
export async function listSubscriptionsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const request = cursorQuery(context.query, render);
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  const status = context.query.status;
  if (status !== undefined && status !== '') {
    if (!(STATUSES as readonly string[]).includes(status)) throw new InvalidInputError(`The parameter status must be one of ${STATUSES.join(', ')}.`, { parameter: 'status', reason: 'invalid' });
    conditions.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = status;
  }
  const customerId = context.query.customer_id;
  if (customerId !== undefined && customerId !== '') {
    if (customerId.length > 100) throw new InvalidInputError('The parameter customer_id is too long.', { parameter: 'customer_id', reason: 'too_long' });
    conditions.push('customer_id = :customer_id');
    values[':customer_id'] = customerId;
  }
  const grace = booleanParameter(context.query, 'in_grace_period');
  if (grace !== undefined) {
    conditions.push('in_grace_period = :grace');
    values[':grace'] = grace;
  }
  const source: CursorSource = {
    partition: subscriptionPartition(scope),
    idOf: (item) => item.subscription_id as string,
    find: async (id) => (await findSubscription(scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values, ...(Object.keys(names).length ? { names } : {}) } } : {}),
  };
  return { status: 200, body: await renderCursorList(source, request, subscriptionDeclaration, render, 'subscriptions') };
}

/** `POST /subscriptions/{subscription_id}`: `payment_method_id` (the customer's own), `meta`, `cancel_at_current_period_end: false`. */
export const updateSubscriptionAction = withBody(subscriptionUpdate, async (context) => {
  const { scope, render } = await actionScope(context);
  const body = context.body;
  const current = await readSubscription(context, scope);
  if (body.payment_method_id !== undefined) {
    const method = await findCustomerPaymentMethod(scope, current.customer_id, body.payment_method_id);
    if (!method) invalid('payment_method_id', "The payment method is not one of the subscription's customer's.", 'not_found');
  }
  if (body.cancel_at_current_period_end === true) invalid('cancel_at_current_period_end', 'Cancel with POST /subscriptions/{id}/cancel; an update only clears a pending cancellation.', 'not_allowed');
  const saved = await changeSubscription(
    scope,
    current.subscription_id,
    {
      ...(body.payment_method_id !== undefined ? { paymentMethodId: body.payment_method_id } : {}),
      ...(body.meta !== undefined ? { meta: body.meta } : {}),
      ...(body.cancel_at_current_period_end === false ? { uncancel: true } : {}),
    },
    context.platform.clock.nowMs(),
    () => readSubscription(context, scope),
  );
  return { status: 200, body: await renderResource(subscriptionDeclaration, saved, render) };
});

/**
 * Customer scope cancels and un-cancels its own subscriptions only when the account allows it
 * (403); other limited tokens never do (403). Secret and trusted tokens hold the permission.
 */
async function assertMayCancel(context: ApiContext): Promise<void> {
  const principal = requirePrincipal(context);
  if (principal.kind !== 'limited') return;
  if (scopeCustomerOf(principal) === undefined) throw new InsufficientPermissionsError();
  const settings = await readPaymentSettingsCached(principal.accountId);
  if (!settings.allow_customer_subscription_cancel) throw new InsufficientPermissionsError('The account does not let customers cancel their subscriptions.');
}

/** `POST /subscriptions/{subscription_id}/cancel`: at the period end (default) or now. */
export const cancelSubscriptionAction = withBody(subscriptionCancel, async (context) => {
  const { scope, render } = await actionScope(context);
  const current = await readSubscription(context, scope);
  await assertMayCancel(context);
  const saved = await cancelSubscription(
    scope,
    current.subscription_id,
    context.body.cancel_at_current_period_end !== false,
    context.body.cancellation_reason ?? null,
    context.platform.clock.nowMs(),
    () => readSubscription(context, scope),
  );
  return { status: 200, body: await renderResource(subscriptionDeclaration, saved, render) };
});

/** `POST /subscriptions/{subscription_id}/uncancel`: clears a pending cancellation (422 with none). */
export async function uncancelSubscriptionAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const current = await readSubscription(context, scope);
  await assertMayCancel(context);
  const saved = await uncancelSubscription(scope, current.subscription_id, context.platform.clock.nowMs(), () => readSubscription(context, scope));
  return { status: 200, body: await renderResource(subscriptionDeclaration, saved, render) };
}

/** An offset page of a whole list read at once (a subscription's or a customer's lists are small). */
async function pageOf(context: ApiContext, render: RenderContext, declaration: ResourceDeclaration, records: unknown[], path: string): Promise<ApiResult> {
  const page = offsetPage(context.query);
  const ordered = booleanParameter(context.query, 'desc') ? [...records].reverse() : records;
  const data = await renderElements(declaration, ordered.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, records.length, pageUrlBuilder(render.url(path), context.query, 'offset')) };
}

/** `GET /subscriptions/{subscription_id}/orders`: the originating order, then the renewal orders. */
export async function listSubscriptionOrdersAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const subscription = await readSubscription(context, scope);
  return pageOf(context, render, orderDeclaration, await recordsByIds('orders', subscription, subscription.order_ids), `subscriptions/${subscription.subscription_id}/orders`);
}

/** `GET /subscriptions/{subscription_id}/payments`: the initial payment, then each renewal attempt's. */
export async function listSubscriptionPaymentsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const subscription = await readSubscription(context, scope);
  return pageOf(context, render, paymentDeclaration, await recordsByIds('payments', subscription, subscription.payment_ids), `subscriptions/${subscription.subscription_id}/payments`);
}

/** `GET /customers/{customer_id}/subscriptions`: the customer's subscriptions (`me` for customer scope). */
export async function listCustomerSubscriptionsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const customer = await readReachable(customerDeclaration, scope, context.params.customer_id!, requirePrincipal(context));
  return pageOf(context, render, subscriptionDeclaration, await subscriptionsOfCustomer(scope, customer.customer_id), `customers/${customer.customer_id}/subscriptions`);
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listSubscriptionsAction, { list: 'cursor', filters: { status: 'active, cancelled, completed or trial', customer_id: 'Subscriptions of one customer', in_grace_period: 'true or false' } });
declareQuery(listSubscriptionOrdersAction, { list: 'offset' });
declareQuery(listSubscriptionPaymentsAction, { list: 'offset' });
declareQuery(listCustomerSubscriptionsAction, { list: 'offset' });
