/**
 * Invoices (commerce.md §9): validation of writes, pricing and the state rules of §9.2.
 *
 * An invoice is priced as a cart is (the carts module's `withTotals`: one calculator for lines,
 * promotion, shipping, tax and settlement), from lines of two kinds: product lines, priced from
 * the catalog unless a secret or trusted token set `price` (kept as `reference_price` in the
 * currency it was set in, converted when the currency changes), and custom lines with a name,
 * type and price of their own (no product, never discounted by a promotion).
 *
 * State rules: a draft takes every writable field, and is published or deleted; an open invoice
 * takes every writable field from secret and trusted tokens, only `currency`,
 * `shipping_method_id`, `customer` and `meta` from limited tokens (a pay link, customer scope),
 * and is paid or cancelled; paid and cancelled invoices are final (422 invalid_state).
 */
import { type Principal } from '../../core/access/principal';
import { newId } from '../../core/ids';
import { InsufficientPermissionsError } from '../../http/auth-errors';
import type { Clock } from '../../platform/ports';
import { roundMoney } from '../../rest/money';
import { invalid, sends } from '../../rest/input';
import { parseDateInput } from '../../rest/dates';
import type { Revision } from '../../store/entity';
import type { RecordScope } from '../../store/records';
import type { TransactEntry } from '../../store/transact';
import type { PaymentSettings, TaxSettings } from '../accounts';
import { convert, unitPrice, type ProductRecord } from '../catalog';
import { applySaleCustomer, guestCustomer, isSellable, readLineProducts, withTotals } from '../carts';
import { eventEntries } from '../events';
import { currentSalePromotion, hasEligibleLine, InvalidPromotionCodeError, resolvePromotionCode, termsOf } from '../promotions';
import { activeShippingMethods } from '../shipping';
import { InvoiceLockedError, InvoiceStateError } from './errors';
import { invoiceEmailDueWrite } from './invoice-email';
import { invoiceLockHeld, insertInvoice } from './invoice-store';
import { invoiceState, type InvoiceItemRecord, type InvoiceRecord } from './records';
import type { InvoiceInput, InvoiceLineInput } from './schemas';

/** Most lines one invoice holds (as a cart, one DynamoDB item). */
export const MAX_INVOICE_LINES = 50;

/** The fields a limited token (a pay link, customer scope) may change on an invoice (§9.1). */
const LIMITED_FIELDS = new Set(['currency', 'shipping_method_id', 'customer', 'meta']);

/** What a write needs besides the body: who writes, where, the settings and the clock. */
export interface InvoiceWriteContext {
  scope: RecordScope;
  principal: Principal;
  payment: PaymentSettings;
  tax: TaxSettings;
  clock: Clock;
  /** The caller's zone, for a date-only `date_due` (conventions.md §13). */
  zone: string;
}

/** 422 in a final state, 409 while a payment runs (§9.2). */
function assertChangeable(invoice: InvoiceRecord, now: number, action: string): void {
  const state = invoiceState(invoice);
  if (state === 'paid' || state === 'cancelled') throw new InvoiceStateError(invoice.invoice_id, state, action);
  if (invoiceLockHeld(invoice, now)) throw new InvoiceLockedError(invoice.invoice_id);
}

/** A sent `currency`: an enabled ISO 4217 code (§1.1). */
function enabledCurrency(value: string, payment: PaymentSettings): string {
  const currency = value.toUpperCase();
  if (!payment.currencies.includes(currency)) invalid('currency', `The currency ${value} is not enabled for this account.`);
  return currency;
}

/** An amount the client sent in `currency`: no more decimals than its minor units (§1.2). */
function exactAmount(amount: number, currency: string, property: string): number {
  if (roundMoney(amount, currency) !== amount) invalid(property, `The amount ${amount} has more decimals than ${currency} allows.`, 'precision');
  return amount;
}

/** A set price in the invoice currency (a kept reference converted when the currency changed). */
function referenceIn(item: Pick<InvoiceItemRecord, 'reference_price' | 'reference_currency'>, currency: string, payment: PaymentSettings): number {
  const from = item.reference_currency ?? currency;
  if (from === currency) return item.reference_price ?? 0;
  const source = from === payment.default_payment_currency || payment.exchange_rates[from] ? from : payment.default_payment_currency;
  return convert(item.reference_price ?? 0, source, currency, payment);
}

/** The line priced in `currency`: its set price, else its product's, else what it was (a product gone since). */
function repriced(item: InvoiceItemRecord, product: ProductRecord | undefined, previousCurrency: string, currency: string, payment: PaymentSettings): InvoiceItemRecord {
  if (item.reference_price !== null) return { ...item, unit_price_original: referenceIn(item, currency, payment) };
  if (product) return { ...item, name: product.name, type: product.type, tax_code: product.tax_code, subscription_plan: product.subscription_plan, unit_price_original: unitPrice(product.prices, currency, payment) };
  if (previousCurrency === currency) return item;
  return { ...item, unit_price_original: convert(item.unit_price_original, previousCurrency, currency, payment) };
}

/**
 * The lines of a write: `items` replaces the list (§3.2) with the cart's rules for product lines
 * (keyed by product, the last entry wins, `quantity: 0` drops, an omitted quantity or meta is
 * kept) and custom lines keyed by `item_id` (a new one gets a generated id). Sent product lines
 * must be sellable; a `price` is a secret or trusted token's override in the invoice currency.
 */
async function planLines(current: InvoiceRecord, sent: readonly InvoiceLineInput[] | null | undefined, write: InvoiceWriteContext, currency: string): Promise<InvoiceItemRecord[]> {
  const mode = write.scope.mode;
  // Sent product ids (and their `.test`-less twins), and chosen custom ids: a custom line may not take a product's id.
  const sentIds = (sent ?? []).flatMap((line) => (line.product_id ? [line.product_id, ...(mode === 'test' && line.product_id.endsWith('.test') ? [line.product_id.slice(0, -5)] : [])] : line.item_id ? [line.item_id] : []));
  const products = await readLineProducts(write.scope, [...new Set([...current.items.flatMap((item) => (item.product_id ? [item.product_id] : [])), ...sentIds])]);
  if (sent === undefined) return current.items.map((item) => repriced(item, products.get(item.product_id ?? ''), current.currency, currency, write.payment));
  const existing = new Map(current.items.map((item) => [item.item_id, item]));
  const lines = new Map<string, InvoiceItemRecord>();
  const mayPrice = write.principal.kind !== 'limited';
  for (const [index, line] of (sent ?? []).entries()) {
    const at = `items[${index}]`;
    if (line.price !== undefined && !mayPrice) throw new InsufficientPermissionsError('Only secret and trusted tokens may set invoice prices.', { property: `${at}.price` });
    const price = line.price === undefined ? undefined : exactAmount(line.price, currency, `${at}.price`);
    if (line.product_id) {
      const id = products.has(line.product_id) || !(mode === 'test' && line.product_id.endsWith('.test')) ? line.product_id : line.product_id.slice(0, -5);
      const product = products.get(id);
      if (!isSellable(product)) invalid(`${at}.product_id`, `The product ${line.product_id} does not exist or cannot be sold.`, 'not_found');
      const before = existing.get(id);
      if (before && before.product_id === null) invalid(`${at}.product_id`, `The item id ${id} is a custom line's.`, 'conflict');
      const reference = price !== undefined ? { reference_price: price, reference_currency: currency } : before?.product_id === id ? { reference_price: before.reference_price, reference_currency: before.reference_currency } : { reference_price: null, reference_currency: null };
      lines.delete(id);
      lines.set(id, repriced({
        item_id: id,
        product_id: id,
        name: product.name,
        type: product.type,
        quantity: line.quantity ?? before?.quantity ?? 1,
        meta: sends(line, 'meta') ? line.meta : (before?.meta ?? null),
        tax_code: product.tax_code,
        subscription_plan: product.subscription_plan,
        unit_price_original: 0,
        ...reference,
      }, product, currency, currency, write.payment));
      continue;
    }
    // A custom line (defined here): no product; name, type and price of its own.
    if (!mayPrice) throw new InsufficientPermissionsError('Only secret and trusted tokens may add custom invoice lines.', { property: `${at}.product_id` });
    const before = line.item_id ? existing.get(line.item_id) : undefined;
    const custom = before && before.product_id === null ? before : undefined;
    if (line.item_id && before && before.product_id !== null) invalid(`${at}.item_id`, `The item ${line.item_id} is a product line.`, 'conflict');
    const name = line.name ?? custom?.name;
    const type = line.type ?? custom?.type;
    if (!name) invalid(`${at}.name`, 'A custom line needs a name (or a product_id).', 'required');
    if (!type) invalid(`${at}.type`, 'A custom line needs a type: digital, physical or service.', 'required');
    if (price === undefined && !custom) invalid(`${at}.price`, 'A custom line needs a price.', 'required');
    const itemId = line.item_id ?? newId();
    if (products.has(itemId) || (lines.has(itemId) && lines.get(itemId)!.product_id !== null)) invalid(`${at}.item_id`, `The item id ${itemId} is taken by a product line.`, 'conflict');
    lines.delete(itemId);
    lines.set(itemId, repriced({
      item_id: itemId,
      product_id: null,
      name,
      type,
      quantity: line.quantity ?? custom?.quantity ?? 1,
      meta: sends(line, 'meta') ? line.meta : (custom?.meta ?? null),
      tax_code: null,
      subscription_plan: null,
      unit_price_original: 0,
      reference_price: price ?? custom!.reference_price,
      reference_currency: price !== undefined ? currency : custom!.reference_currency,
    }, undefined, currency, currency, write.payment));
  }
  const kept = [...lines.values()].filter((item) => item.quantity > 0);
  if (kept.length > MAX_INVOICE_LINES) invalid('items', `An invoice holds at most ${MAX_INVOICE_LINES} lines.`, 'too_long');
  return kept;
}

/** The body's fields a limited token may not change (403 when it sends one). */
function assertLimitedFields(body: InvoiceInput, principal: Principal): void {
  if (principal.kind !== 'limited') return;
  const denied = Object.keys(body).filter((name) => !LIMITED_FIELDS.has(name) && (body as Record<string, unknown>)[name] !== undefined);
  if (denied.length) throw new InsufficientPermissionsError(`A limited token may change only ${[...LIMITED_FIELDS].join(', ')} of an invoice.`, { properties: denied });
}

/**
 * Applies a create or update body to `base` and prices the result (one read of the products, the
 * shipping methods when it has physical lines, and the promotion). A sent code that applies to
 * no product line is 400 invalid_promotion_code `not_applicable`; an unquoted shipping method 400.
 */
async function applyBody(base: InvoiceRecord, body: InvoiceInput, write: InvoiceWriteContext): Promise<InvoiceRecord> {
  const next: InvoiceRecord = { ...base };
  if (body.currency !== undefined) next.currency = enabledCurrency(body.currency, write.payment);
  else if (!write.payment.currencies.includes(next.currency)) next.currency = write.payment.default_payment_currency;
  Object.assign(next, await applySaleCustomer(base, { customer: body.customer, customer_id: body.customer_id }, write));
  if (body.promotion_code !== undefined) {
    if (body.promotion_code === null) Object.assign(next, { promotion_code: null, promotion_id: null, promotion_terms: null });
    else {
      const promotion = await resolvePromotionCode(write.scope, body.promotion_code.trim(), write.clock.nowMs());
      Object.assign(next, { promotion_code: promotion.code, promotion_id: promotion.promotion_id, promotion_terms: termsOf(promotion) });
    }
  } else if (base.promotion_code !== null && base.promotion_id !== null) {
    const promotion = await currentSalePromotion(write.scope, base, write.clock.nowMs());
    if (promotion) next.promotion_terms = termsOf(promotion);
  }
  if (body.shipping_method_id !== undefined) next.shipping_method_id = body.shipping_method_id;
  if (body.date_due !== undefined) {
    next.date_due_ms = body.date_due === null ? null : parseDateInput(body.date_due, { edge: 'last', zone: write.zone, now: write.clock.nowMs(), name: 'date_due', kind: 'property' });
  }
  if (sends(body, 'meta')) next.meta = body.meta;
  next.items = await planLines(base, body.items, write, next.currency);
  const shippingMethods = next.items.some((item) => item.type === 'physical') ? await activeShippingMethods(write.scope) : [];
  const priced = withTotals({ ...next, shipping_methods: shippingMethods }, write.payment, write.tax);
  if (body.promotion_code && priced.promotion_terms) {
    const lines = priced.items.flatMap((item) => (item.product_id ? [{ productId: item.product_id, quantity: item.quantity }] : []));
    if (!hasEligibleLine(priced.promotion_terms, lines)) throw new InvalidPromotionCodeError(priced.promotion_code!, 'not_applicable');
  }
  const shippingId = body.shipping_method_id;
  if (shippingId !== undefined && shippingId !== null && priced.shipping_method_id !== shippingId) {
    invalid('shipping_method_id', `The shipping method ${shippingId} is not offered for this invoice.`, 'not_found');
  }
  return priced;
}

/** 400 unless an invoice can be published: it has lines and a customer email (§9.1). */
function assertPublishable(invoice: InvoiceRecord): void {
  if (invoice.items.length === 0) invalid('items', 'An invoice needs at least one item to be published.', 'required');
  if (!invoice.customer.email) invalid('customer.email', 'An invoice needs the customer email to be published.', 'required');
}

/** The invoice published at `now`, and the entry that makes its email due (claimed by the writer). */
function published(invoice: InvoiceRecord, now: number): { next: InvoiceRecord; extra: TransactEntry[] } {
  assertPublishable(invoice);
  const next: InvoiceRecord = { ...invoice, draft: false, open: true, date_published_ms: now };
  return { next, extra: [invoiceEmailDueWrite(next, now, newId())] };
}

/**
 * Creates an invoice (`POST /invoices`): a draft, or published at once with `draft: false`.
 * One transaction writes it with `invoice:created` (and, when published, its email's due work).
 */
export async function createInvoice(body: InvoiceInput, write: InvoiceWriteContext): Promise<{ invoice: InvoiceRecord; extra: TransactEntry[] }> {
  const now = write.clock.nowMs();
  const blank: InvoiceRecord = {
    invoice_id: newId(),
    account_id: write.scope.accountId,
    mode: write.scope.mode,
    draft: true,
    open: false,
    payment_status: 'unpaid',
    date_due_ms: null,
    date_published_ms: null,
    currency: write.payment.default_payment_currency,
    customer: guestCustomer(),
    customer_tax_exempt: false,
    items: [],
    shipping_method_id: null,
    promotion_code: null,
    promotion_id: null,
    promotion_terms: null,
    referrer: null,
    affiliate_id: null,
    customer_ip_address: null,
    customer_ip_country: null,
    meta: null,
    totals: undefined as unknown as InvoiceRecord['totals'],
    total_payments: 0,
    order_id: null,
    payment_lock: null,
    created_ms: now,
    modified_ms: now,
  };
  const priced = await applyBody(blank, body, write);
  const { next: invoice, extra } = body.draft === false ? published(priced, now) : { next: priced, extra: [] };
  await insertInvoice(invoice, [...eventEntries(write.scope, [{ type: 'invoice:created', resource: 'invoice', id: invoice.invoice_id, record: invoice }], now), ...extra]);
  return { invoice, extra };
}

/**
 * A partial update (`POST /invoices/{id}`): the fields the caller may change in the invoice's
 * state, re-priced; `draft: false` publishes a draft (its email made due in the same write).
 */
export async function changeInvoice(current: InvoiceRecord, body: InvoiceInput, write: InvoiceWriteContext): Promise<Revision<InvoiceRecord>> {
  const now = write.clock.nowMs();
  assertChangeable(current, now, 'changed');
  assertLimitedFields(body, write.principal);
  if (body.draft === true && !current.draft) throw new InvoiceStateError(current.invoice_id, 'open', 'made a draft again');
  const priced = await applyBody(current, body, write);
  if (body.draft === false && current.draft) return published(priced, now);
  return { next: priced };
}

/** `POST /invoices/{id}/publish`: draft to open (§9.1); 422 unless a draft, 400 without items or email. */
export function publishInvoice(current: InvoiceRecord, now: number): Revision<InvoiceRecord> {
  if (!current.draft) throw new InvoiceStateError(current.invoice_id, invoiceState(current), 'published');
  return published(current, now);
}

/** `POST /invoices/{id}/cancel`: open to cancelled (§9.2); 422 otherwise, 409 while a payment runs. */
export function cancelInvoice(current: InvoiceRecord, now: number): Revision<InvoiceRecord> {
  const state = invoiceState(current);
  if (state !== 'open') throw new InvoiceStateError(current.invoice_id, state, 'cancelled');
  if (invoiceLockHeld(current, now)) throw new InvoiceLockedError(current.invoice_id);
  return { next: { ...current, open: false, payment_status: 'cancelled' } };
}

/** `DELETE /invoices/{id}`: drafts only (§9.1); 422 otherwise. */
export function assertDeletable(current: InvoiceRecord): void {
  if (!current.draft) throw new InvoiceStateError(current.invoice_id, invoiceState(current), 'deleted');
}
