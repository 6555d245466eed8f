/**
 * The refund reads (commerce.md §7, §4.6, §5.6, §6.1), as actions of the API pipeline: the
 * cursor list, one refund, and the offset sub-collections under a payment, an order and a
 * customer. Creating a refund moves money across modules: that is the refunds flow's
 * (shared/flows/refunds/refund-actions.ts).
 */
import { reaches, type Principal } from '../../core/access/principal';
import { InvalidInputError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareQuery, requirePrincipal, type ApiContext, type ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { cursorQuery, renderCursorList, type CursorSource } from '../../rest/cursor-list';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { outOfReach, readReachable, reachesStored } from '../../rest/reach';
import { renderElements, renderResource } from '../../rest/render';
import type { RenderContext } from '../../rest/render-context';
import { OtherModeError } from '../../store/errors';
import type { RecordScope } from '../../store/records';
import { customerDeclaration } from '../customers';
import { orderDeclaration } from '../orders';
import { paymentDeclaration } from '../payments';
import { refundDeclaration, type RefundRecord } from './refund-records';
import { findRefund, refunds, refundsOfCustomer, refundsOfPayment, refundsPartition, SETTLED_FILTER } from './refund-store';

/**
 * Whether the caller reaches a settled refund: by permission (checked on the route), by customer
 * scope over its customer, or (commerce.md §0.1) through the paid sale it refunds: a limited
 * token that reaches the order or the payment reads their refunds.
 */
function reachesRefund(principal: Principal, refund: RefundRecord): boolean {
  if (principal.kind !== 'limited') return true;
  return reachesStored(principal, refundDeclaration, refund) || (refund.order_id !== null && reaches(principal, `orders/${refund.order_id}`)) || reaches(principal, `payments/${refund.payment_id}`);
}

/** `GET /refunds/{refund_id}`: a settled refund within the caller's reach (404 otherwise; 400 when it is in the other mode). */
export async function getRefundAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render, principal } = await actionScope(context);
  const refundId = context.params.refund_id!;
  const refund = await findRefund(scope, refundId);
  if (!refund || refund.status === 'pending') {
    // Another mode's refund is named only to a caller that could read refunds at all.
    if (principal.kind !== 'limited' && (await findRefund({ ...scope, mode: scope.mode === 'live' ? 'test' : 'live' }, refundId))) throw new OtherModeError('refund', refundId);
    throw outOfReach(refundDeclaration);
  }
  if (!reachesRefund(principal, refund)) throw outOfReach(refundDeclaration);
  return { status: 200, body: await renderResource(refundDeclaration, refund, render) };
}

/** `GET /refunds`: cursor list; filters `payment_id`, `order_id`, `customer_id`. */
export async function listRefundsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const request = cursorQuery(context.query, render);
  const conditions = [SETTLED_FILTER.expression];
  const values: Record<string, unknown> = { ...SETTLED_FILTER.values };
  for (const name of ['payment_id', 'order_id', 'customer_id'] as const) {
    const value = context.query[name];
    if (value === undefined || value === '') continue;
    if (value.length > 100) throw new InvalidInputError(`The parameter ${name} is too long.`, { parameter: name, reason: 'too_long' });
    conditions.push(`${name} = :${name}`);
    values[`:${name}`] = value;
  }
  const source: CursorSource = {
    partition: refundsPartition(scope),
    idOf: (item) => item.refund_id as string,
    find: async (id) => {
      const found = await refunds.find(scope, id);
      return found && found.status !== 'pending' ? (found as unknown as Record<string, unknown>) : undefined;
    },
    filter: { expression: conditions.join(' AND '), values, names: SETTLED_FILTER.names },
  };
  return { status: 200, body: await renderCursorList(source, request, refundDeclaration, render, 'refunds') };
}

/** An offset page of a whole sub-collection (a sale's or a customer's refunds are few). */
async function offsetPageOf(context: ApiContext, render: RenderContext, records: RefundRecord[], path: string): Promise<ApiResult> {
  const page = offsetPage(context.query);
  const ordered = booleanParameter(context.query, 'desc') ? [...records].reverse() : records;
  const data = await renderElements(refundDeclaration, ordered.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, records.length, pageUrlBuilder(render.url(path), context.query, 'offset')) };
}

/** `GET /payments/{payment_id}/refunds`: the payment's refunds, for a caller that reaches the payment. */
export async function listPaymentRefundsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const payment = await readReachable(paymentDeclaration, scope, context.params.payment_id!, requirePrincipal(context));
  return offsetPageOf(context, render, await refundsOfPayment(scope, payment.payment_id), `payments/${payment.payment_id}/refunds`);
}

/** `GET /orders/{order_id}/refunds`: the order's refunds (those of its payment), for a caller that reaches the order. */
export async function listOrderRefundsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const order = await readReachable(orderDeclaration, scope, context.params.order_id!, requirePrincipal(context));
  return offsetPageOf(context, render, await refundsOfPayment(scope, order.payment_id), `orders/${order.order_id}/refunds`);
}

/** `GET /customers/{customer_id}/refunds`: the customer's refunds (`me` for customer scope). */
export async function listCustomerRefundsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const customer = await readReachable(customerDeclaration, scope, context.params.customer_id!, requirePrincipal(context));
  return offsetPageOf(context, render, await refundsOfCustomer(scope as RecordScope, customer.customer_id), `customers/${customer.customer_id}/refunds`);
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listRefundsAction, { list: 'cursor', filters: { payment_id: 'Refunds of one payment', order_id: 'Refunds of one order', customer_id: 'Refunds of one customer' } });
declareQuery(listPaymentRefundsAction, { list: 'offset' });
declareQuery(listOrderRefundsAction, { list: 'offset' });
declareQuery(listCustomerRefundsAction, { list: 'offset' });
