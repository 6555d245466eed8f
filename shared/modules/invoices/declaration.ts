/**
 * The invoice as the API shows it (commerce.md §9): the cart's fields and line shape, plus its
 * state, due and publishing dates, `total_payments` and `total_remaining`, and where it lists:
 * `GET /invoices` (cursor) and under its customer (`customer.invoices`, an offset sub-collection).
 */
import { declareResource, type FormattedShape } from '../../rest/declarations';
import { firstPageOf } from '../../rest/offset-list';
import type { RenderContext } from '../../rest/render-context';
import { roundMoney } from '../../rest/money';
import { cartOptions, saleCustomerJson } from '../carts';
import { SALE_MONEY, saleTotalsJson, type SaleLineTotals } from '../pricing';
import type { InvoiceItemRecord, InvoiceRecord } from './records';
import { invoicesOfCustomer } from './invoice-store';

const LINE_MONEY = ['price', 'price_original', 'subtotal', 'subtotal_original', 'discount', 'tax', 'tax_original', 'total', 'total_original'] as const;
const LINE_SETTLEMENT = LINE_MONEY.filter((name) => name !== 'price_original').map((name) => `settlement_${name}`);
const LINE_AMOUNTS = [...LINE_MONEY.slice(0, 5), 'tax_rate', ...LINE_MONEY.slice(5), ...LINE_SETTLEMENT] as const;

function moneyShape(properties: readonly string[], currency: string): Record<string, string> {
  return Object.fromEntries(properties.map((property) => [property, currency]));
}

const LINE_SHAPE: FormattedShape = {
  money: { ...moneyShape(LINE_MONEY, 'currency'), ...moneyShape(LINE_SETTLEMENT, 'settlement_currency'), reference_price: 'reference_currency' },
  percents: ['tax_rate'],
};
const ADDRESS_SHAPE: FormattedShape = { countries: ['country'] };

/** The path of an invoice below the API root. */
export function invoicePath(invoiceId: string): string {
  return `invoices/${encodeURIComponent(invoiceId)}`;
}

/** What an invoice line is rendered from: the stored line and the invoice it is in. */
export interface InvoiceItemView {
  invoice: InvoiceRecord;
  item: InvoiceItemRecord;
}

function lineOf(invoice: InvoiceRecord, item: InvoiceItemRecord): SaleLineTotals | undefined {
  return invoice.totals.items.find((line) => line.item_id === item.item_id);
}

/** What is still to pay: `total − total_payments`, never below zero. */
export function totalRemaining(invoice: Pick<InvoiceRecord, 'totals' | 'total_payments' | 'currency'>): number {
  return Math.max(0, roundMoney(invoice.totals.total - invoice.total_payments, invoice.currency));
}

/** The invoice line declaration: an element of `invoice.items` (embedded, so `items.product` expands). */
export const invoiceItemDeclaration = declareResource<InvoiceItemView>({
  name: 'invoice_item',
  collection: 'items',
  idField: 'item_id',
  permission: 'invoices',
  scope: 'mode',
  links: { product: 'product' },
  formatted: LINE_SHAPE,
  idOf: (view) => view.item.item_id,
  toJson({ invoice, item }, context) {
    const line = lineOf(invoice, item);
    const amounts: Record<string, unknown> = {};
    for (const name of LINE_AMOUNTS) amounts[name] = (line as unknown as Record<string, number> | undefined)?.[name] ?? 0;
    return {
      object: 'item',
      item_id: item.item_id,
      product_id: item.product_id,
      test: invoice.mode === 'test',
      account_id: invoice.account_id,
      name: item.name,
      type: item.type,
      quantity: item.quantity,
      currency: invoice.currency,
      ...amounts,
      settlement_currency: invoice.totals.settlement_currency,
      // Only a product line's override is a reference price (§5.4); a custom line's price is its own.
      reference_price: item.product_id !== null ? item.reference_price : null,
      reference_currency: item.product_id !== null ? item.reference_currency : null,
      tax_code: item.tax_code,
      product: item.product_id !== null ? context.url(`products/${encodeURIComponent(item.product_id)}`) : null,
      subscription_plan: item.subscription_plan,
      meta: item.meta ?? null,
    };
  },
});

/** The invoice declaration (REST conventions engine). */
export const invoiceDeclaration = declareResource<InvoiceRecord>({
  name: 'invoice',
  collection: 'invoices',
  idField: 'invoice_id',
  permission: 'invoices',
  scope: 'mode',
  links: { customer: 'customer', order: 'order', promotion: 'promotion' },
  // `payments` expands to the first page of GET /invoices/{id}/payments (the payments module lists them by `invoice_id`).
  subCollections: { payments: { resource: 'payment' } },
  // Customer scope reads its own invoices (commerce.md §0.1).
  customerOf: (invoice) => invoice.customer.customer_id,
  // `customer.invoices` expands to the first page of GET /customers/{id}/invoices.
  listedUnder: { customer: async (customerId, context) => firstPageOf(await invoicesOfCustomer({ accountId: context.accountId, mode: context.mode }, customerId)) },
  embedded: { items: 'invoice_item' },
  // "As on carts" (§9): the cart's options, with the invoice's quotes.
  virtuals: { options: { compute: (invoice, context) => cartOptions({ ...invoice, items: [] } as never, context.payment, context.locale, invoice.shipping_quotes ?? []) } },
  formatted: {
    money: {
      ...moneyShape([...SALE_MONEY, 'total_payments', 'total_remaining'], 'currency'),
      ...moneyShape(SALE_MONEY.map((name) => `settlement_${name}`), 'settlement_currency'),
    },
    dates: ['date_due', 'date_published', 'date_created', 'date_modified'],
    nested: {
      items: LINE_SHAPE,
      shipping_item: LINE_SHAPE,
      customer: { nested: { billing_address: ADDRESS_SHAPE, shipping_address: ADDRESS_SHAPE } },
    },
  },
  idOf: (invoice) => invoice.invoice_id,
  toJson(invoice, context: RenderContext) {
    const url = context.url(invoicePath(invoice.invoice_id));
    const totals = invoice.totals;
    const json: Record<string, unknown> = {
      object: 'invoice',
      url,
      invoice_id: invoice.invoice_id,
      test: invoice.mode === 'test',
      account_id: invoice.account_id,
      draft: invoice.draft,
      open: invoice.open,
      payment_status: invoice.payment_status,
      date_due: invoice.date_due_ms === null ? null : context.date(invoice.date_due_ms),
      date_published: invoice.date_published_ms === null ? null : context.date(invoice.date_published_ms),
      currency: invoice.currency,
      customer_id: invoice.customer.customer_id,
      customer: saleCustomerJson(invoice.customer, context),
      items: invoice.items.map((item) => invoiceItemDeclaration.toJson({ invoice, item }, context)),
      shipping_method_id: invoice.shipping_method_id,
      shipping_item: totals.shipping_item ? { object: 'item', ...totals.shipping_item } : null,
      promotion_code: invoice.promotion_code,
      promotion: invoice.promotion_id ? context.url(`promotions/${encodeURIComponent(invoice.promotion_id)}`) : null,
    };
    Object.assign(json, saleTotalsJson(totals), {
      total_payments: invoice.total_payments,
      total_remaining: totalRemaining(invoice),
      payments: `${url}/payments`,
      order: invoice.order_id ? context.url(`orders/${encodeURIComponent(invoice.order_id)}`) : null,
      meta: invoice.meta ?? null,
      date_created: context.date(invoice.created_ms),
      date_modified: context.date(invoice.modified_ms),
    });
    return json;
  },
});
