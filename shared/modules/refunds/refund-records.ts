/**
 * Refunds as stored and shown (commerce.md §7): one record per refund, made `pending` (with its
 * reservation on the payment and order and its recovery due) before the gateway is asked, then
 * `completed` or `failed`. A pending refund is the flow's working state: reads never show it
 * (the contract knows only `completed` and `failed`), so a refund appears once it is settled.
 */
import type { Dated } from '../../store/keys';
import { declareResource } from '../../rest/declarations';
import { firstPageOf } from '../../rest/offset-list';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/records';
import { findOrder } from '../orders';
import type { RefundItem, RefundParts } from './refund-amounts';
import { refundsOfCustomer, refundsOfPayment } from './refund-store';

/** Refund statuses: `pending` is internal (never shown). */
export type RefundStatus = 'pending' | 'completed' | 'failed';

/** A stored refund. */
export interface RefundRecord extends Dated, RefundParts {
  refund_id: string;
  account_id: string;
  mode: 'live' | 'test';
  status: RefundStatus;
  reason: string | null;
  currency: string;
  settlement_currency: string;
  items: RefundItem[];
  payment_id: string;
  order_id: string | null;
  customer_id: string | null;
  meta: unknown;
  /** The gateway's id of the refund, once made. */
  gateway_refund_id: string | null;
  error_code: string | null;
  /** What a by-items refund with `shipping: true` took of the order's shipping (given back if it fails). */
  shipping_taken: { subtotal: number; tax: number } | null;
}

const MONEY = ['subtotal', 'shipping', 'tax', 'total'] as const;

/** The refund declaration (REST conventions engine). */
export const refundDeclaration = declareResource<RefundRecord>({
  name: 'refund',
  collection: 'refunds',
  idField: 'refund_id',
  permission: 'refunds',
  scope: 'mode',
  links: { payment: 'payment', order: 'order', customer: 'customer' },
  // Customer scope reads its customer's refunds (commerce.md §0.1).
  customerOf: (refund) => refund.customer_id,
  // `payment.refunds`, `order.refunds` and `customer.refunds` expand to the first page of their sub-collections.
  listedUnder: {
    payment: async (paymentId, context) => firstPageOf(await refundsOfPayment(scopeOf(context), paymentId)),
    order: async (orderId, context) => {
      const order = await findOrder(scopeOf(context), orderId);
      return firstPageOf(order ? await refundsOfPayment(scopeOf(context), order.payment_id) : []);
    },
    customer: async (customerId, context) => firstPageOf(await refundsOfCustomer(scopeOf(context), customerId)),
  },
  formatted: {
    money: {
      ...Object.fromEntries(MONEY.flatMap((name) => [[name, 'currency'], [`settlement_${name}`, 'settlement_currency']])),
    },
    dates: ['date_created', 'date_modified'],
    nested: { items: { money: { subtotal: 'currency', tax: 'currency', total: 'currency' } } },
  },
  idOf: (refund) => refund.refund_id,
  toJson(refund, context: RenderContext) {
    return {
      object: 'refund',
      url: context.url(`refunds/${refund.refund_id}`),
      refund_id: refund.refund_id,
      account_id: refund.account_id,
      test: refund.mode === 'test',
      status: refund.status,
      success: refund.status === 'completed',
      reason: refund.reason,
      is_chargeback: false,
      currency: refund.currency,
      subtotal: refund.subtotal,
      shipping: refund.shipping,
      tax: refund.tax,
      total: refund.total,
      settlement_currency: refund.settlement_currency,
      settlement_subtotal: refund.settlement_subtotal,
      settlement_shipping: refund.settlement_shipping,
      settlement_tax: refund.settlement_tax,
      settlement_total: refund.settlement_total,
      items: refund.items.map((item) => ({ ...item, currency: refund.currency })),
      payment: context.url(`payments/${refund.payment_id}`),
      order: refund.order_id ? context.url(`orders/${refund.order_id}`) : null,
      customer: refund.customer_id ? context.url(`customers/${refund.customer_id}`) : null,
      meta: refund.meta ?? null,
      date_created: context.date(refund.created_ms),
      date_modified: context.date(refund.modified_ms),
    };
  },
});

function scopeOf(context: Pick<RenderContext, 'accountId' | 'mode'>): RecordScope {
  return { accountId: context.accountId, mode: context.mode };
}
