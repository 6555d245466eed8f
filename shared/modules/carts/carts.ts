/**
 * Carts (commerce.md §3): declarations, validation of writes, pricing and storage.
 *
 * A cart is one record (its store keys it by account, mode and id) listed by creation and by
 * modification. Every write reads the products of its lines and the
 * current settings, prices the cart with `computeSale` and stores the result in `totals`, so
 * the stored totals are always what the client was last shown and what a payment charges.
 * Writes are conditional on the version read (`modified_ms`), on the cart being open and on
 * its payment lock being as read, so a payment that starts meanwhile is never overwritten.
 */
import { OtherModeError, RecordNotFoundError } from '../../store/errors';
import type { Clock } from '../../platform/ports';
import type { PaymentSettings, TaxSettings } from '../accounts';
import { assertBindingCapacity, bindingWrite, bindingWritten } from '../identity';
import { type Principal } from '../../core/access/principal';
import type { SubscriptionPlan } from '../catalog';
import { customerDeclaration, mergeSaleDetails, saleCustomerOf, type CustomerRecord } from '../customers';
import { newId } from '../../core/ids';
import { MAX_MONEY } from '../../rest/fields';
import { addressJson, emptyAddress } from '../../rest/addresses';
import { declareResource, type FormattedShape } from '../../rest/declarations';
import { isCountryCode } from '../../rest/formatted';
import { invalid, sends } from '../../rest/input';
import type { RenderContext } from '../../rest/render-context';
import type { Revision } from '../../store/entity';
import { getRecord, type RecordScope } from '../../store/records';
import { computeSale, SALE_MONEY, saleTotalsJson, taxLocationOf, taxTreatmentOf, type SaleLineInput, type SaleLineTotals } from '../pricing';
import { activeShippingMethods, quoteMethods, selectQuote, shippingCountryOf } from '../shipping';
import { currentSalePromotion, hasEligibleLine, InvalidPromotionCodeError, promotionDiscounts, resolvePromotionCode, termsOf } from '../promotions';
import { insertCart } from './cart-store';
import type { CartInput } from './cart-schemas';
import { CartLockedError, CartPaidError, BodyTokenTypeMismatchError } from './errors';
import {
  checkSentLines,
  itemEntries,
  keepItems,
  priceLines,
  productIdsToRead,
  readLineProducts,
  replaceItems,
  resolveProductId,
  type ItemEntry,
  type LineIntent,
} from './items';
import { nationalCurrency } from './national-currencies';
import { cartOptions, type ShippingQuote } from './options';
import type { CartItemRecord, CartRecord, SaleCustomer } from './types';

// ---------------------------------------------------------------------------------------------
// Declarations

const LINE_MONEY = [
  'price',
  'price_original',
  'subtotal',
  'subtotal_original',
  'discount',
  'tax',
  'tax_original',
  'total',
  'total_original',
] as const;
const LINE_SETTLEMENT = [
  'settlement_price',
  'settlement_subtotal',
  'settlement_subtotal_original',
  'settlement_discount',
  'settlement_tax',
  'settlement_tax_original',
  'settlement_total',
  'settlement_total_original',
] as const;
/** The amounts of a line as the API shows them (§1.3), in output order. */
const LINE_AMOUNTS = [...LINE_MONEY.slice(0, 5), 'tax_rate', ...LINE_MONEY.slice(5), ...LINE_SETTLEMENT] as const;

function moneyShape(properties: readonly string[], currency: string): Record<string, string> {
  return Object.fromEntries(properties.map((property) => [property, currency]));
}

/** Formattable properties of a line (cart items and the shipping line). */
const LINE_SHAPE: FormattedShape = {
  money: { ...moneyShape(LINE_MONEY, 'currency'), ...moneyShape(LINE_SETTLEMENT, 'settlement_currency') },
  percents: ['tax_rate'],
};
const ADDRESS_SHAPE: FormattedShape = { countries: ['country'] };

/** What a cart item is rendered from: the stored line, its priced twin, and the cart it is in. */
export interface CartItemView {
  item_id: string;
  cart: CartRecord;
  item: CartItemRecord;
}

/** `Every 1 month`, `Every 2 weeks, 6 times`: the description of a subscription plan (as products show it). */
function planDescription(plan: SubscriptionPlan): string {
  const unit = plan.billing_interval === 1 ? plan.billing_interval_unit : `${plan.billing_interval_unit}s`;
  const every = `Every ${plan.billing_interval} ${unit}`;
  return plan.end_at_billing_count === null ? every : `${every}, ${plan.end_at_billing_count} times`;
}

/** The path of a cart below the API root. */
export function cartPath(cartId: string): string {
  return `carts/${encodeURIComponent(cartId)}`;
}

/** The priced line of an item (zero amounts if the totals somehow lack it). */
function lineOf(cart: CartRecord, item: CartItemRecord): SaleLineTotals | undefined {
  return cart.totals.items.find((line) => line.item_id === item.item_id);
}

/** The cart item declaration: an element of `cart.items` and of `/carts/{id}/items`. */
export const cartItemDeclaration = declareResource<CartItemView>({
  name: 'cart_item',
  collection: 'items',
  idField: 'item_id',
  permission: 'carts',
  scope: 'mode',
  links: { product: 'product' },
  formatted: LINE_SHAPE,
  idOf: (view) => view.item_id,
  toJson({ cart, item }, context) {
    const line = lineOf(cart, item);
    const amounts: Record<string, unknown> = {};
    for (const name of LINE_AMOUNTS) amounts[name] = line?.[name] ?? 0;
    return {
      object: 'item',
      url: context.url(`${cartPath(cart.cart_id)}/items/${encodeURIComponent(item.item_id)}`),
      item_id: item.item_id,
      product_id: item.product_id,
      test: cart.mode === 'test',
      account_id: cart.account_id,
      name: item.name,
      type: item.type,
      quantity: item.quantity,
      currency: cart.currency,
      ...amounts,
      settlement_currency: cart.totals.settlement_currency,
      tax_code: item.tax_code,
      product: context.url(`products/${encodeURIComponent(item.product_id)}`),
      subscription_plan: item.subscription_plan ? { ...item.subscription_plan, description: planDescription(item.subscription_plan) } : null,
      subscription_terms: item.subscription_plan ? { description: planDescription(item.subscription_plan) } : null,
      meta: item.meta ?? null,
    };
  },
});

/** The sale customer as the API shows it (commerce.md §1.5); invoices show theirs the same way. */
export function saleCustomerJson(customer: SaleCustomer, context: RenderContext): Record<string, unknown> {
  const url = customer.customer_id ? context.url(`customers/${encodeURIComponent(customer.customer_id)}`) : null;
  return {
    object: 'customer',
    url,
    customer_id: customer.customer_id,
    name: customer.name,
    email: customer.email,
    company_name: customer.company_name,
    phone: customer.phone,
    tax_number: customer.tax_number,
    username: customer.username,
    billing_address: addressJson(customer.billing_address),
    shipping_address: addressJson(customer.shipping_address),
    payment_methods: url ? `${url}/payment_methods` : null,
  };
}

/** The cart declaration (REST conventions engine). */
export const cartDeclaration = declareResource<CartRecord>({
  name: 'cart',
  collection: 'carts',
  idField: 'cart_id',
  permission: 'carts',
  scope: 'mode',
  links: { customer: 'customer', order: 'order', promotion: 'promotion' },
  subCollections: { payments: { resource: 'payment' } },
  embedded: { items: 'cart_item' },
  // §3.4: computed from the settings in effect and the quotes priced into the cart.
  virtuals: { options: { compute: (cart, context) => cartOptions(cart, context.payment, context.locale, cart.shipping_quotes ?? []) } },
  formatted: {
    money: { ...moneyShape(SALE_MONEY, 'currency'), ...moneyShape(SALE_MONEY.map((name) => `settlement_${name}`), 'settlement_currency') },
    dates: ['date_created', 'date_modified'],
    nested: {
      items: LINE_SHAPE,
      shipping_item: LINE_SHAPE,
      customer: { nested: { billing_address: ADDRESS_SHAPE, shipping_address: ADDRESS_SHAPE } },
    },
  },
  idOf: (stored) => stored.cart_id,
  toJson(stored, context) {
    const url = context.url(cartPath(stored.cart_id));
    const totals = stored.totals;
    const json: Record<string, unknown> = {
      object: 'cart',
      url,
      cart_id: stored.cart_id,
      test: stored.mode === 'test',
      account_id: stored.account_id,
      open: stored.open,
      payment_status: stored.payment_status,
      currency: stored.currency,
      customer: saleCustomerJson(stored.customer, context),
      items: stored.items.map((item) => cartItemDeclaration.toJson({ item_id: item.item_id, cart: stored, item }, context)),
      shipping_method_id: stored.shipping_method_id,
      shipping_item: totals.shipping_item ? { object: 'item', ...totals.shipping_item } : null,
      promotion_code: stored.promotion_code,
      promotion: stored.promotion_id ? context.url(`promotions/${encodeURIComponent(stored.promotion_id)}`) : null,
    };
    Object.assign(json, saleTotalsJson(totals), {
      referrer: stored.referrer,
      affiliate_id: stored.affiliate_id,
      customer_ip_address: stored.customer_ip_address,
      customer_ip_country: stored.customer_ip_country,
      payments: `${url}/payments`,
      order: stored.order_id ? context.url(`orders/${encodeURIComponent(stored.order_id)}`) : null,
      meta: stored.meta ?? null,
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
    });
    return json;
  },
});

// ---------------------------------------------------------------------------------------------
// Writes

/** What a write needs besides the body: who writes, where, and the current settings. */
export interface CartWriteContext {
  scope: RecordScope;
  principal: Principal;
  payment: PaymentSettings;
  tax: TaxSettings;
  /** The platform clock: promotion validity, payment locks and the write's `modified_ms`. */
  clock: Clock;
}

/** Where the creating request came from (commerce.md §3.1: read-only, set on create). */
export interface CartOrigin {
  ipAddress: string | null;
  /** The edge's viewer-country header, when it names a country. */
  ipCountry: string | null;
}

/**
 * The viewer country of a request: the edge's `cloudfront-viewer-country` header, when our own
 * edge vouches for it (`fromOwnEdge`, the request's transport: a client calling the API directly
 * could send any value) and it is a country code.
 */
export function viewerCountry(headers: Record<string, string>, fromOwnEdge: boolean): string | null {
  if (!fromOwnEdge) return null;
  const value = headers['cloudfront-viewer-country']?.trim();
  return value && isCountryCode(value) ? value.toUpperCase() : null;
}

/** 422 once paid, 409 while a payment runs at `now` (epoch ms; commerce.md §3.5). */
export function assertWritable(cart: CartRecord, now: number): void {
  if (!cart.open || cart.payment_status !== 'unpaid') throw new CartPaidError(cart.cart_id);
  if (cart.payment_lock && cart.payment_lock.until_ms >= now) throw new CartLockedError(cart.cart_id);
}

/** A sent `currency`: an enabled ISO 4217 code, case-insensitive in, uppercase out (§1.1). */
function enabledCurrency(value: string, payment: PaymentSettings): string {
  const currency = value.toUpperCase();
  if (!payment.currencies.includes(currency)) invalid('currency', `The currency ${value} is not enabled for this account.`);
  return currency;
}

/** The currency a new cart gets when the client names none (§3.3). */
export function defaultCartCurrency(ipCountry: string | null, payment: PaymentSettings): string {
  const national = nationalCurrency(ipCountry);
  return national && payment.currencies.includes(national) ? national : payment.default_payment_currency;
}

/** An empty guest customer. */
export function guestCustomer(): SaleCustomer {
  return {
    customer_id: null,
    name: null,
    email: null,
    company_name: null,
    phone: null,
    tax_number: null,
    username: null,
    billing_address: emptyAddress(),
    shipping_address: emptyAddress(),
  };
}

/** Reads the saved customer a body links: 400 `not_found` when missing, 400 token_type_mismatch when in the other mode. */
async function linkedCustomer(scope: RecordScope, id: string, property: string): Promise<CustomerRecord> {
  try {
    return await getRecord(customerDeclaration, scope, id);
  } catch (error) {
    if (error instanceof OtherModeError) throw new BodyTokenTypeMismatchError(property, 'customer', id);
    if (error instanceof RecordNotFoundError) invalid(property, `The customer ${id} does not exist.`, 'not_found');
    throw error;
  }
}

/**
 * Applies `customer` and `customer_id` (§1.5, §3.3). Only secret and trusted tokens link a
 * saved customer; for limited tokens `customer_id` is read-only and ignored (they link one by
 * signing in on the cart). Linking another customer copies its details and `tax_exempt`;
 * sending the linked id again changes nothing; null unlinks and keeps the entered details.
 * The sent details then merge on top, property by property; `customer: null` clears them.
 */
export async function applyCustomer(
  cart: Pick<CartRecord, 'customer' | 'customer_tax_exempt'>,
  body: Pick<CartInput, 'customer' | 'customer_id'>,
  write: CartWriteContext,
): Promise<Pick<CartRecord, 'customer' | 'customer_tax_exempt'>> {
  let customer: SaleCustomer = { ...cart.customer };
  let taxExempt = cart.customer_tax_exempt;
  const patch = body.customer ?? null;
  if (write.principal.kind !== 'limited') {
    const [property, value] = body.customer_id !== undefined
      ? ['customer_id', body.customer_id]
      : patch?.customer_id !== undefined
        ? ['customer.customer_id', patch.customer_id]
        : [undefined, undefined];
    if (property !== undefined) {
      if (value === null) {
        customer = { ...customer, customer_id: null, username: null };
        taxExempt = false;
      } else if (value !== customer.customer_id) {
        const saved = await linkedCustomer(write.scope, value, property);
        customer = saleCustomerOf(saved, false);
        taxExempt = saved.tax_exempt;
      }
    }
  }
  if (body.customer === null) {
    customer = { ...guestCustomer(), customer_id: customer.customer_id, username: customer.username };
  }
  if (patch) customer = mergeSaleDetails(customer, patch);
  return { customer, customer_tax_exempt: taxExempt };
}

/**
 * Validates the non-item fields of a create or partial update onto `base` (the stored cart,
 * or a blank one): sent properties change, omitted ones stay, read-only ones are ignored.
 * A sent `promotion_code` is looked up case-insensitively and checked (§11; whether it
 * applies to a line is checked once the lines are priced, `assertCodeApplies`); an unsent one
 * keeps the stored code with its promotion's current terms. A sent `shipping_method_id` is
 * kept as asked; once the cart is priced, `assertShippingQuoted` refuses one not quoted (§3.3).
 */
async function applyFields(base: CartRecord, body: CartInput, write: CartWriteContext): Promise<CartRecord> {
  const next: CartRecord = { ...base };
  if (body.currency !== undefined) next.currency = enabledCurrency(body.currency, write.payment);
  else if (!write.payment.currencies.includes(next.currency)) next.currency = write.payment.default_payment_currency;
  Object.assign(next, await applyCustomer(base, body, write));
  if (body.promotion_code !== undefined) {
    const code = body.promotion_code;
    if (code === null) {
      Object.assign(next, { promotion_code: null, promotion_id: null, promotion_terms: null });
    } else {
      const promotion = await resolvePromotionCode(write.scope, code.trim(), write.clock.nowMs());
      Object.assign(next, { promotion_code: promotion.code, promotion_id: promotion.promotion_id, promotion_terms: termsOf(promotion) });
    }
  } else {
    Object.assign(next, await currentPromotionTerms(base, write.scope, write.clock));
  }
  if (body.shipping_method_id !== undefined) next.shipping_method_id = body.shipping_method_id;
  if (body.referrer !== undefined) next.referrer = body.referrer;
  if (body.affiliate_id !== undefined) next.affiliate_id = body.affiliate_id;
  if (sends(body, 'meta')) next.meta = body.meta;
  return next;
}

/**
 * The terms a re-price applies for a cart's stored code: the promotion's current ones while it
 * is still usable; otherwise the cart keeps the terms it was last priced with (the payment
 * refuses the code then, §4.3 check 4), so a cart with a code always shows its discount.
 */
async function currentPromotionTerms(cart: CartRecord, scope: RecordScope, clock: Clock): Promise<Pick<CartRecord, 'promotion_terms'>> {
  if (cart.promotion_code === null || cart.promotion_id === null) return {};
  const promotion = await currentSalePromotion(scope, cart, clock.nowMs());
  return promotion ? { promotion_terms: termsOf(promotion) } : {};
}

/** 400 invalid_promotion_code `not_applicable` when a code sent with this write applies to none of the priced lines (§11). */
function assertCodeApplies(cart: CartRecord, body: CartInput): void {
  if (body.promotion_code === undefined || cart.promotion_code === null || !cart.promotion_terms) return;
  const lines = cart.items.map((item) => ({ productId: item.product_id, quantity: item.quantity }));
  if (!hasEligibleLine(cart.promotion_terms, lines)) throw new InvalidPromotionCodeError(cart.promotion_code, 'not_applicable');
}

/** 400 invalid_input `shipping_method_id` when the id this write sent is not among the priced cart's quotes (§3.3). */
function assertShippingQuoted(cart: CartRecord, body: CartInput): void {
  const id = body.shipping_method_id;
  if (id === undefined || id === null || cart.shipping_method_id === id) return;
  invalid('shipping_method_id', `The shipping method ${id} is not offered for this cart.`, 'not_found');
}

/** How a write changes the lines, once the products are known (ids in `entries` still as sent). */
export type LinePlan = (resolve: (id: string) => string) => LineIntent[];

/**
 * Prices a cart whose fields are set: reads the products of its lines (one BatchGetItem) and,
 * when it has physical lines, the active shipping methods; plans the lines, checks the ones the request named, prices them in the cart currency,
 * recomputes the totals with the current settings and refuses amounts over the money limit
 * (`overLimitProperty` is blamed unless a line the request named is itself over).
 */
export async function priceCart(
  draft: CartRecord,
  previous: Pick<CartRecord, 'items' | 'currency'>,
  entries: readonly ItemEntry[],
  plan: LinePlan,
  write: CartWriteContext,
  overLimitProperty = 'items',
): Promise<CartRecord> {
  const mode = write.scope.mode;
  const products = await readLineProducts(write.scope, productIdsToRead(previous.items, entries, mode));
  const lines = plan((id) => resolveProductId(id, products, mode));
  await checkSentLines(write.scope, lines, products);
  const items = priceLines(lines, products, previous, draft.currency, write.payment);
  // Only physical goods are shipped (quotes.ts): a cart without them needs no methods read.
  const shippingMethods = items.some((item) => item.type === 'physical') ? await activeShippingMethods(write.scope) : [];
  const priced = withTotals({ ...draft, items, shipping_methods: shippingMethods }, write.payment, write.tax);
  assertWithinMoneyLimit(priced, lines, overLimitProperty);
  return priced;
}

const LIMIT_TEXT = MAX_MONEY.toLocaleString('en');

/**
 * 400 invalid_input, reason `out_of_range`, when an amount of the priced cart exceeds
 * 999,999,999,999 (conventions.md §20: prices, totals and every computed total, settlement
 * twins included), so nothing that large is stored or charged. A line over the limit that
 * the request named blames its quantity (`items[i].quantity`, or `quantity` on the item
 * endpoints); otherwise, when only the sum, tax, shipping or a currency change gets there,
 * `fallback` is blamed (`items`, `currency` or `quantity`).
 */
function assertWithinMoneyLimit(cart: CartRecord, lines: readonly LineIntent[], fallback: string): void {
  const over = (amounts: object, names: readonly string[]) => names.some((name) => Math.abs((amounts as Record<string, number>)[name] ?? 0) > MAX_MONEY);
  const line = cart.totals.items.find((item) => over(item, [...LINE_MONEY, ...LINE_SETTLEMENT]));
  if (line) {
    const sent = lines.find((intent) => intent.productId === line.product_id)?.sent;
    const property = sent ? (sent.at ? `${sent.at}.quantity` : 'quantity') : fallback;
    invalid(property, `The amounts of ${line.quantity} × ${line.product_id} would exceed ${LIMIT_TEXT}, the largest amount a sale may have.`, 'out_of_range');
  }
  const shipping = cart.totals.shipping_item;
  if (over(cart.totals, [...SALE_MONEY, ...SALE_MONEY.map((name) => `settlement_${name}`)]) || (shipping && over(shipping, [...LINE_MONEY, ...LINE_SETTLEMENT]))) {
    invalid(fallback, `The cart total would exceed ${LIMIT_TEXT}, the largest amount a sale may have.`, 'out_of_range');
  }
}

/** One line `withTotals` prices: a cart item, or an invoice line (whose custom lines have no product). */
export type PricedLine = Pick<CartItemRecord, 'item_id' | 'name' | 'type' | 'quantity' | 'unit_price_original' | 'tax_code'> & { product_id: string | null };

/** What `withTotals` prices: a cart, or a sale of the same shape (an invoice). */
export type PricedSale = Pick<
  CartRecord,
  'currency' | 'customer' | 'customer_tax_exempt' | 'customer_ip_country' | 'promotion_code' | 'promotion_terms' | 'shipping_methods' | 'shipping_method_id' | 'shipping_quotes' | 'totals'
> & { items: readonly PricedLine[] };

/**
 * The cart with `totals` recomputed from its lines, customer, applied promotion terms, the
 * selected shipping quote and the settings (§1.3, §1.4, §3.3, §11). Synchronous: the
 * promotion's terms and the shipping methods travel with the cart.
 */
export function withTotals<Sale extends PricedSale>(cart: Sale, payment: PaymentSettings, tax: TaxSettings): Sale {
  const hasPhysical = cart.items.some((item) => item.type === 'physical');
  const lines: SaleLineInput[] = cart.items.map((item) => ({
    itemId: item.item_id,
    // A line without a product (an invoice's custom line) is priced as one, under no product id.
    productId: item.product_id ?? '',
    name: item.name,
    type: item.type,
    quantity: item.quantity,
    unitPriceOriginal: item.unit_price_original,
    taxCode: item.tax_code,
  }));
  const taxLocation = taxLocationOf({
    hasPhysical,
    shippingAddress: cart.customer.shipping_address,
    billingAddress: cart.customer.billing_address,
    ipCountry: cart.customer_ip_country,
  });
  const terms = cart.promotion_code !== null ? cart.promotion_terms : null;
  if (terms) {
    // The gross-up of amount discounts depends on how this sale is taxed (§11).
    const treatment = taxTreatmentOf(taxLocation, cart.customer_tax_exempt, tax);
    // Only product lines take a promotion (§11): a custom line counts as no units of no product.
    const discountLines = lines.map((line, index) => (cart.items[index]!.product_id === null ? { ...line, quantity: 0 } : line));
    const discounts = promotionDiscounts(terms, discountLines, cart.currency, payment, treatment);
    lines.forEach((line, index) => {
      line.discount = discounts[index] ?? 0;
    });
  }
  const quoted = quoteMethods(
    cart.shipping_methods ?? [],
    {
      hasPhysical,
      country: shippingCountryOf({ shippingAddress: cart.customer.shipping_address, billingAddress: cart.customer.billing_address, ipCountry: cart.customer_ip_country }),
      currency: cart.currency,
    },
    payment,
  );
  const sale = (shipping: (typeof quoted)[number] | null) =>
    computeSale({
      currency: cart.currency,
      lines,
      shipping: shipping && { methodId: shipping.method.shipping_method_id, name: shipping.method.name, priceOriginal: shipping.priceOriginal },
      taxLocation,
      customerTaxExempt: cart.customer_tax_exempt,
      payment,
      tax,
    });
  const selected = selectQuote(quoted, cart.shipping_method_id);
  const totals = sale(selected);
  // Each quote priced as if selected, so its `total` carries the shipping tax this sale would pay.
  const quotes: ShippingQuote[] = quoted.map((quote) => {
    const line = (quote === selected ? totals : sale(quote)).shipping_item!;
    return {
      method_id: quote.method.shipping_method_id,
      name: quote.method.name,
      description: quote.method.description,
      details: quote.method.details,
      price: line.price,
      price_original: line.price_original,
      total: line.total,
      total_original: line.total_original,
    };
  });
  return { ...cart, shipping_method_id: selected?.method.shipping_method_id ?? null, shipping_quotes: quotes, totals };
}

/** The `items` plan of a body: its replace semantics when sent, else the lines unchanged. */
function bodyPlan(current: readonly CartItemRecord[], body: CartInput): { entries: ItemEntry[]; plan: LinePlan } {
  if (body.items === undefined) return { entries: [], plan: () => keepItems(current) };
  const entries = itemEntries(body.items);
  return { entries, plan: (resolve) => replaceItems(current, entries.map((entry) => ({ ...entry, productId: resolve(entry.productId) }))) };
}

/** What a create or update that goes over the money limit blames, unless a sent line is over itself. */
function overLimitProperty(body: CartInput): string {
  return body.items === undefined && body.currency !== undefined ? 'currency' : 'items';
}

/**
 * Creates a cart (`POST /carts`). A limited token becomes bound to it in the same
 * transaction; at its 21st binding nothing is created (422 binding_limit_exceeded).
 */
export async function createCart(body: CartInput, origin: CartOrigin, write: CartWriteContext): Promise<CartRecord> {
  const { scope, principal, payment } = write;
  const cartId = newId();
  const path = `carts/${cartId}`;
  assertBindingCapacity(principal, path);
  const now = write.clock.nowMs();
  const blank: CartRecord = {
    cart_id: cartId,
    account_id: scope.accountId,
    mode: scope.mode,
    open: true,
    payment_status: 'unpaid',
    currency: defaultCartCurrency(origin.ipCountry, payment),
    customer: guestCustomer(),
    customer_tax_exempt: false,
    items: [],
    shipping_method_id: null,
    promotion_code: null,
    promotion_id: null,
    promotion_terms: null,
    referrer: null,
    affiliate_id: null,
    customer_ip_address: origin.ipAddress,
    customer_ip_country: origin.ipCountry,
    meta: null,
    // Set by `priceCart` below, before anything reads or stores the cart.
    totals: undefined as unknown as CartRecord['totals'],
    order_id: null,
    payment_lock: null,
    created_ms: now,
    modified_ms: now,
  };
  const draft = await applyFields(blank, body, write);
  const { entries, plan } = bodyPlan([], body);
  const cart = await priceCart(draft, { items: [], currency: draft.currency }, entries, plan, write, overLimitProperty(body));
  assertCodeApplies(cart, body);
  assertShippingQuoted(cart, body);
  const binding = bindingWrite(principal, path);
  await insertCart(cart, binding);
  if (binding) bindingWritten(principal, path);
  return cart;
}

/** A partial update of a cart (`POST /carts/{id}`): the create fields, re-priced (the store's `updateCart` saves it). */
export async function changeCart(current: CartRecord, body: CartInput, write: CartWriteContext): Promise<Revision<CartRecord>> {
  assertWritable(current, write.clock.nowMs());
  const draft = await applyFields(current, body, write);
  const { entries, plan } = bodyPlan(current.items, body);
  const priced = await priceCart(draft, current, entries, plan, write, overLimitProperty(body));
  assertCodeApplies(priced, body);
  assertShippingQuoted(priced, body);
  return { next: priced };
}

/**
 * Changes the lines of a cart (the item endpoints) and re-prices it with the current settings:
 * `plan` gets the product-id resolver and returns the new lines. Amounts over the money limit
 * blame `overLimit` (default `items`) unless a sent entry's line is over itself.
 */
export async function changeCartLines(
  current: CartRecord,
  entries: readonly ItemEntry[],
  plan: LinePlan,
  write: CartWriteContext,
  overLimit = 'items',
): Promise<Revision<CartRecord>> {
  assertWritable(current, write.clock.nowMs());
  const draft = { ...current, ...(await currentPromotionTerms(current, write.scope, write.clock)) };
  if (!write.payment.currencies.includes(draft.currency)) draft.currency = write.payment.default_payment_currency;
  return { next: await priceCart(draft, current, entries, plan, write, overLimit) };
}
