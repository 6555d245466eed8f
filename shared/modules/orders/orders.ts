/**
 * Orders (commerce.md §5): made once, when a sale's payment completes, from the sale's stored
 * amounts; items copy the sale lines and their meta (§5.2). Cursor-listed by date.
 */
import type { Dated } from '../../store/keys';
import { declareResource, type FormattedShape } from '../../rest/declarations';
import type { RenderContext } from '../../rest/render-context';
import { derivedId } from '../../core/ids';
import type { RecordScope } from '../../store/records';
import { formOptions, type CartRecord } from '../carts';
import type { LineAmounts, SaleTotals, ShippingLineTotals } from '../pricing';
import { licensePath } from '../licenses';
import { paymentDeclaration } from '../payments';
import { firstPageOf } from '../../rest/offset-list';
import { findRecord } from '../../store/records';
import { customerOrders, findOrder } from './order-store';

/** A stored order item. */
export interface OrderItemRecord extends LineAmounts {
  item_id: string;
  product_id: string;
  name: string;
  type: 'digital' | 'physical' | 'service';
  quantity: number;
  tax_code: string | null;
  subscription_plan: unknown;
  fulfilled: boolean;
  /** Units shipped so far (physical items; absent: none). Only shipments change it (`shippedQuantitiesEntry`). */
  shipped?: number;
  /** The subscription the item started (commerce.md §10.1), or its renewal order's subscription; absent: none. */
  subscription_id?: string | null;
  /** The id of the item's license (licenses.md §7), once a code was stored. */
  license: string | null;
  license_pending: boolean;
  /** The license service the product named when the order was made (licenses.md §3); absent or null: none. */
  license_service_id?: string | null;
  meta: unknown;
  /** Set when an invoice line overrode the catalog price (commerce.md §5.4, §9); absent otherwise. */
  reference_price?: number | null;
  reference_currency?: string | null;
}

/** A stored order. */
export interface OrderRecord extends Dated {
  order_id: string;
  account_id: string;
  mode: 'live' | 'test';
  payment_status: 'pending' | 'completed' | 'refunded';
  fulfilled: boolean;
  totals: Omit<SaleTotals, 'items' | 'shipping_item'>;
  items: OrderItemRecord[];
  shipping_item: ShippingLineTotals | null;
  total_refunded: number;
  customer_ip_address: string | null;
  customer_ip_country: string | null;
  referrer: string | null;
  affiliate_id: string | null;
  promotion_code: string | null;
  /** The promotion the code was applied as (absent on orders made before promotions existed). */
  promotion_id?: string | null;
  customer_id: string;
  cart_id: string | null;
  /** The invoice whose payment made the order (absent on cart orders and orders made before invoices). */
  invoice_id?: string | null;
  payment_id: string;
  /** A renewal order's subscription (commerce.md §10.2); absent otherwise. */
  subscription_id?: string | null;
  meta: unknown;
  /** Confirmation email: `held` while licenses are pending, then `sent`. */
  confirmation_email: 'pending' | 'held' | 'sent';
  /** License requests still `queued` or `retry` (licenses.md §9: the email waits for none); absent on orders without licenses. */
  licenses_outstanding?: number;
  /** License requests that ended `failed` and were not completed since. */
  licenses_failed?: number;
  /** How many times shipments changed the items' shipped quantities (absent: never); the license entry holds to it. */
  shipment_writes?: number;
  /**
   * What refunds reserved of this order (done or running): money by part, each line's refunded
   * units and amounts, the shipping refunded, and how many times it changed (`seq`), written only
   * over the `seq` read (order-store.ts). Absent until the first refund.
   */
  refund_ledger?: OrderRefundLedger;
}

/** An order's refund ledger (see `OrderRecord.refund_ledger`). */
export interface OrderRefundLedger {
  seq: number;
  reserved: Record<string, number>;
  lines?: Record<string, { quantity: number; subtotal: number; tax: number; total: number }>;
  shipping?: { subtotal: number; tax: number };
}

const LINE_MONEY = ['price', 'price_original', 'subtotal', 'subtotal_original', 'discount', 'tax', 'tax_original', 'total', 'total_original'] as const;
const SALE_MONEY = ['subtotal', 'subtotal_original', 'shipping', 'shipping_original', 'discount', 'tax', 'tax_original', 'total', 'total_original'] as const;

/** Money map for `formatted`: each amount in `currency`, each `settlement_` twin in `settlement_currency`. */
function moneyShape(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => [[name, 'currency'], [`settlement_${name}`, 'settlement_currency']]));
}

/** The JSON of an order item. */
function orderItemJson(order: OrderRecord, item: OrderItemRecord, context: RenderContext): Record<string, unknown> {
  const orderUrl = context.url(`orders/${order.order_id}`);
  return {
    object: 'order_item',
    url: `${orderUrl}/items/${encodeURIComponent(item.item_id)}`,
    item_id: item.item_id,
    // An invoice's custom line has no product (stored as '').
    product_id: item.product_id || null,
    order_id: order.order_id,
    name: item.name,
    type: item.type,
    quantity: item.quantity,
    ...Object.fromEntries([...LINE_MONEY, 'tax_rate', 'currency'].map((name) => [name, item[name as keyof LineAmounts]])),
    reference_price: item.reference_price ?? null,
    reference_currency: item.reference_currency ?? null,
    tax_code: item.tax_code,
    ...Object.fromEntries(Object.keys(item).filter((name) => name.startsWith('settlement_')).map((name) => [name, item[name as keyof OrderItemRecord]])),
    fulfilled: item.fulfilled,
    product: item.product_id ? context.url(`products/${encodeURIComponent(item.product_id)}`) : null,
    subscription: item.subscription_id ? context.url(`subscriptions/${item.subscription_id}`) : null,
    shipments: `${orderUrl}/items/${encodeURIComponent(item.item_id)}/shipments`,
    license: item.license ? context.url(licensePath(item.license)) : null,
    license_pending: item.license_pending,
    download: null,
    meta: item.meta ?? null,
    date_created: context.date(order.created_ms),
    date_modified: context.date(order.modified_ms),
  };
}

/** What an order item is rendered from: the stored line and the order it is in. */
export interface OrderItemView {
  order: OrderRecord;
  item: OrderItemRecord;
}

/** Formattable properties of an order item. */
const ITEM_SHAPE: FormattedShape = { money: moneyShape(LINE_MONEY), percents: ['tax_rate'], dates: ['date_created', 'date_modified'] };

/**
 * The order item declaration: an element of `order.items` (embedded, so `items.product`
 * expands at any depth) and of `/orders/{id}/items`. It is never read on its own: its
 * `collection` is the path segment under its order.
 */
export const orderItemDeclaration = declareResource<OrderItemView>({
  name: 'order_item',
  collection: 'items',
  idField: 'item_id',
  permission: 'orders',
  scope: 'mode',
  links: { product: 'product', license: 'license', subscription: 'subscription' },
  formatted: ITEM_SHAPE,
  idOf: (view) => view.item.item_id,
  toJson: ({ order, item }, context) => orderItemJson(order, item, context),
});

/** The order declaration (REST conventions engine). */
export const orderDeclaration = declareResource<OrderRecord>({
  name: 'order',
  collection: 'orders',
  idField: 'order_id',
  permission: 'orders',
  scope: 'mode',
  links: { customer: 'customer', payment: 'payment', cart: 'cart', invoice: 'invoice', promotion: 'promotion', subscription: 'subscription' },
  // Customer scope reads its customer's orders (commerce.md §0.1).
  customerOf: (order) => order.customer_id,
  // `payments` expands to the first page of GET /orders/{id}/payments: the payment that completed the order.
  subCollections: {
    // `refunds` expands to the first page of GET /orders/{id}/refunds (the refunds module lists them).
    refunds: { resource: 'refund' },
    payments: {
      resource: 'payment',
      async firstPage(orderId, context, parent) {
        const scope = { accountId: context.accountId, mode: context.mode };
        // The order the engine already read, or (inline, without its record) read here.
        const order = (parent as OrderRecord | undefined) ?? (await findOrder(scope, orderId));
        const payment = order && (await findRecord(paymentDeclaration, scope, order.payment_id));
        return firstPageOf(payment ? [payment] : []);
      },
    },
    // `shipments` expands to the first page of GET /orders/{id}/shipments (the shipments module's `listedUnder.order`).
    shipments: { resource: 'shipment' },
  },
  // `customer.orders` expands to the first page of GET /customers/{id}/orders.
  listedUnder: { customer: async (customerId, context) => firstPageOf(await customerOrders({ accountId: context.accountId, mode: context.mode }, customerId)) },
  embedded: { items: 'order_item' },
  // §5.3: the settings part of the cart options, as the account's settings say now.
  virtuals: { options: { compute: (_order, context) => formOptions(context.payment, context.locale) } },
  formatted: {
    money: moneyShape(SALE_MONEY),
    dates: ['date_created', 'date_modified'],
    nested: {
      items: ITEM_SHAPE,
      shipping_item: { money: moneyShape(LINE_MONEY), percents: ['tax_rate'] },
    },
  },
  idOf: (order) => order.order_id,
  toJson(order, context) {
    const url = context.url(`orders/${order.order_id}`);
    return {
      object: 'order',
      url,
      order_id: order.order_id,
      account_id: order.account_id,
      test: order.mode === 'test',
      payment_status: order.payment_status,
      fulfilled: order.fulfilled,
      ...order.totals,
      total_refunded: order.total_refunded,
      customer_ip_address: order.customer_ip_address,
      customer_ip_country: order.customer_ip_country,
      referrer: order.referrer,
      affiliate_id: order.affiliate_id,
      promotion_code: order.promotion_code,
      items: order.items.map((item) => orderItemDeclaration.toJson({ order, item }, context)),
      shipping_item: order.shipping_item,
      customer: context.url(`customers/${order.customer_id}`),
      cart: order.cart_id ? context.url(`carts/${order.cart_id}`) : null,
      payment: context.url(`payments/${order.payment_id}`),
      payments: `${url}/payments`,
      invoice: order.invoice_id ? context.url(`invoices/${order.invoice_id}`) : null,
      promotion: order.promotion_id ? context.url(`promotions/${encodeURIComponent(order.promotion_id)}`) : null,
      subscription: order.subscription_id ? context.url(`subscriptions/${order.subscription_id}`) : null,
      refunds: `${url}/refunds`,
      shipments: `${url}/shipments`,
      meta: order.meta ?? null,
      date_created: context.date(order.created_ms),
      date_modified: context.date(order.modified_ms),
    };
  },
});

/**
 * The id of the order a cart payment makes: derived from the payment, so a reader of the
 * payment can read its order in the same call (payment-actions.ts), and a repeated completion
 * can only ever name the same order.
 */
export function orderIdOfPayment(scope: RecordScope, paymentId: string): string {
  return derivedId(`order:${scope.accountId}:${scope.mode}:${paymentId}`);
}

/**
 * What an order is made from: a paid cart, or a paid invoice (its lines may carry a
 * `reference_price` and, for custom lines, no product).
 */
export type OrderSource = Pick<CartRecord, 'totals' | 'customer_ip_address' | 'customer_ip_country' | 'referrer' | 'affiliate_id' | 'promotion_code' | 'promotion_id' | 'meta'> & {
  cart_id?: string;
  invoice_id?: string;
  items: ReadonlyArray<Pick<CartRecord['items'][number], 'item_id' | 'subscription_plan' | 'meta'> & { reference_price?: number | null; reference_currency?: string | null }>;
};

/**
 * The order a paid cart (or invoice) becomes (§5.1 step 1 and 3): amounts as the cart showed them, meta
 * copied. `licenseServices` names the license service of each licensed product (licenses.md
 * §4.1): those items start with `license_pending: true`, and the order counts them outstanding.
 */
export function orderFromCart(
  scope: RecordScope,
  orderId: string,
  sale: CartRecord | OrderSource,
  paymentId: string,
  customerId: string,
  now: number,
  licenseServices: ReadonlyMap<string, string> = new Map(),
): OrderRecord {
  const cart: OrderSource = sale;
  const { items, shipping_item, ...totals } = cart.totals;
  const metaOf = new Map(cart.items.map((item) => [item.item_id, item]));
  const orderItems: OrderItemRecord[] = items.map((line) => {
    const source = metaOf.get(line.item_id);
    const licenseServiceId = licenseServices.get(line.product_id) ?? null;
    return {
      ...line,
      subscription_plan: source?.subscription_plan ?? null,
      // Services are fulfilled at creation, digital goods once no license is pending.
      fulfilled: line.type === 'service' || (line.type === 'digital' && licenseServiceId === null),
      license: null,
      license_pending: licenseServiceId !== null,
      license_service_id: licenseServiceId,
      meta: structuredClone(source?.meta ?? null),
      ...(source?.reference_price != null ? { reference_price: source.reference_price, reference_currency: source.reference_currency ?? null } : {}),
    };
  });
  const licensed = orderItems.filter((item) => item.license_service_id).length;
  return {
    order_id: orderId,
    account_id: scope.accountId,
    mode: scope.mode,
    payment_status: 'completed',
    fulfilled: orderItems.every((item) => item.fulfilled),
    totals,
    items: orderItems,
    shipping_item,
    total_refunded: 0,
    customer_ip_address: cart.customer_ip_address,
    customer_ip_country: cart.customer_ip_country,
    referrer: cart.referrer,
    affiliate_id: cart.affiliate_id,
    promotion_code: cart.promotion_code,
    promotion_id: cart.promotion_id,
    customer_id: customerId,
    cart_id: cart.cart_id ?? null,
    ...(cart.invoice_id ? { invoice_id: cart.invoice_id } : {}),
    payment_id: paymentId,
    meta: structuredClone(cart.meta ?? null),
    confirmation_email: 'pending',
    ...(licensed ? { licenses_outstanding: licensed, licenses_failed: 0 } : {}),
    created_ms: now,
    modified_ms: now,
  };
}
