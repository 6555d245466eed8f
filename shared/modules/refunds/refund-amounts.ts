/**
 * The amounts of a refund (commerce.md §7, §1.2), as pure rules over what was paid and what is
 * already refunded or reserved: by items (each unit refunds its line's total over its quantity;
 * `shipping: true` adds the remaining shipping and its tax), by amount (split over subtotal,
 * shipping and tax in proportion to the sale), or full (everything still refundable). Every part
 * is rounded on its own, half away from zero, in integer minor units (no binary drift); the
 * refund that leaves nothing refundable takes exactly what remains of every part, so the
 * rounding remainder lands on the final refund and the refunds always add up to the sale.
 */
import { InvalidInputError, InvalidStateError } from '../../http/errors';
import { minorUnits, roundMoney } from '../../rest/money';

/** The money parts of a sale or a refund, with their settlement twins. */
export type RefundParts = {
  subtotal: number;
  shipping: number;
  tax: number;
  total: number;
  settlement_subtotal: number;
  settlement_shipping: number;
  settlement_tax: number;
  settlement_total: number;
};

const PARTS = ['subtotal', 'shipping', 'tax', 'total'] as const;
const SETTLEMENT_PARTS = ['settlement_subtotal', 'settlement_shipping', 'settlement_tax', 'settlement_total'] as const;

/** Nothing refunded. */
export const NO_PARTS: RefundParts = { subtotal: 0, shipping: 0, tax: 0, total: 0, settlement_subtotal: 0, settlement_shipping: 0, settlement_tax: 0, settlement_total: 0 };

/** What a line has refunded (or reserved) so far. */
export interface RefundedLine {
  quantity: number;
  subtotal: number;
  tax: number;
  total: number;
}

/** An order line as a refund sees it. */
export interface RefundableLine {
  item_id: string;
  product_id: string;
  name: string;
  quantity: number;
  subtotal: number;
  tax: number;
  total: number;
}

/**
 * A sale's refund ledger, kept on the payment (money) and on the order (money, lines and
 * shipping): what is reserved by refunds that are done or running. `seq` counts its changes, so
 * a write conditioned on it proves nothing was reserved meanwhile.
 */
export interface RefundLedger {
  seq: number;
  reserved: RefundParts;
  /** Order ledgers only: per item id, what its units refunded. */
  lines?: Record<string, RefundedLine>;
  /** Order ledgers only: the shipping subtotal and shipping tax refunded. */
  shipping?: { subtotal: number; tax: number };
}

/** What a refund is computed against. */
export interface Refundable {
  currency: string;
  settlementCurrency: string;
  /** Tax-inclusive sale: `total = subtotal + shipping`, tax is inside them. */
  taxInclusive: boolean;
  /** What was paid. */
  sale: RefundParts;
  ledger: RefundLedger;
  /** The order's lines and shipping line (absent for a payment without an order). */
  lines?: readonly RefundableLine[];
  shippingLine?: { subtotal: number; tax: number } | null;
}

/** The three forms of a refund request (exactly one). */
export type RefundAsk =
  | { kind: 'items'; items: ReadonlyArray<{ item_id: string; quantity: number }>; shipping: boolean }
  | { kind: 'amount'; total: number }
  | { kind: 'full' };

/** A refunded line, as the refund shows it. */
export interface RefundItem {
  item_id: string;
  product_id: string;
  name: string;
  quantity: number;
  subtotal: number;
  tax: number;
  total: number;
}

/** A computed refund: its parts and items, the ledger after it, and whether it leaves nothing refundable. */
export interface ComputedRefund {
  parts: RefundParts;
  items: RefundItem[];
  ledger: RefundLedger;
  final: boolean;
  /** The shipping (subtotal and tax) a by-items refund with `shipping: true` took from the order's ledger, to give back if it fails. */
  shippingTaken: { subtotal: number; tax: number } | null;
}

/** Integer minor units of a rounded amount. */
function minor(amount: number, digits: number): number {
  return Math.round(amount * 10 ** digits);
}

/** The amount of `units` minor units. */
function major(units: number, digits: number): number {
  return units / 10 ** digits;
}

/** `amount × part / whole` in minor units, rounded half away from zero (all non-negative), exactly. */
export function share(amount: number, part: number, whole: number): number {
  if (whole === 0) return 0;
  const numerator = 2n * BigInt(amount) * BigInt(part) + BigInt(whole);
  return Number(numerator / (2n * BigInt(whole)));
}

/** What is still refundable of each part (sale − reserved). */
export function remainingParts(refundable: Pick<Refundable, 'sale' | 'ledger' | 'currency' | 'settlementCurrency'>): RefundParts {
  const out = { ...NO_PARTS };
  for (const name of PARTS) out[name] = roundMoney(refundable.sale[name] - refundable.ledger.reserved[name], refundable.currency);
  for (const name of SETTLEMENT_PARTS) out[name] = roundMoney(refundable.sale[name] - refundable.ledger.reserved[name], refundable.settlementCurrency);
  return out;
}

/** Adds (sign 1) or takes away (sign -1) `parts` from `base`, rounded per currency. */
export function addParts(base: RefundParts, parts: RefundParts, currency: string, settlementCurrency: string, sign: 1 | -1 = 1): RefundParts {
  const out = { ...NO_PARTS };
  for (const name of PARTS) out[name] = roundMoney(base[name] + sign * parts[name], currency);
  for (const name of SETTLEMENT_PARTS) out[name] = roundMoney(base[name] + sign * parts[name], settlementCurrency);
  return out;
}

/** The settlement twins of `parts`, in proportion to the sale's settlement amounts. */
function settlementOf(refundable: Refundable, parts: Pick<RefundParts, 'subtotal' | 'shipping' | 'tax' | 'total'>): RefundParts {
  const digits = minorUnits(refundable.currency);
  const settlementDigits = minorUnits(refundable.settlementCurrency);
  const twin = (name: 'subtotal' | 'shipping' | 'tax' | 'total') => {
    const saleMinor = minor(refundable.sale[name], digits);
    // A part the sale did not have (no shipping) is converted with the sale's total rate.
    const [from, to] = saleMinor > 0 ? [saleMinor, minor(refundable.sale[`settlement_${name}`], settlementDigits)] : [minor(refundable.sale.total, digits), minor(refundable.sale.settlement_total, settlementDigits)];
    return major(share(minor(parts[name], digits), to, from), settlementDigits);
  };
  return { ...parts, settlement_subtotal: twin('subtotal'), settlement_shipping: twin('shipping'), settlement_tax: twin('tax'), settlement_total: twin('total') };
}

/**
 * Computes the refund `ask` of `refundable`. Throws 422 `invalid_state` when nothing is
 * refundable, and 400 `invalid_input` for an unknown item, a quantity or total above what is
 * still refundable, a total that is not positive or has more decimals than the currency.
 *
 * @example computeRefund(refundable, { kind: 'amount', total: 10 }).parts.total // 10
 */
export function computeRefund(refundable: Refundable, ask: RefundAsk): ComputedRefund {
  const { currency } = refundable;
  const digits = minorUnits(currency);
  const remaining = remainingParts(refundable);
  if (remaining.total <= 0) throw new InvalidStateError('Nothing of this payment is left to refund.', { reason: 'refunded' });
  const totalMinor = minor(refundable.sale.total, digits);
  const remainingMinor = minor(remaining.total, digits);
  const ledger: RefundLedger = structuredClone(refundable.ledger);
  ledger.seq += 1;
  const items: RefundItem[] = [];
  let parts: RefundParts;
  let final: boolean;
  let shippingTaken: ComputedRefund['shippingTaken'] = null;

  if (ask.kind === 'items') {
    if (!refundable.lines) throw new InvalidInputError('A payment without an order is refunded by amount; items are refunded through its order.', { property: 'items', reason: 'not_allowed' });
    if (ask.items.length === 0 && !ask.shipping) throw new InvalidInputError('Name at least one item to refund.', { property: 'items', reason: 'required' });
    ledger.lines ??= {};
    let subtotal = 0;
    let tax = 0;
    let total = 0;
    const seen = new Set<string>();
    ask.items.forEach((asked, index) => {
      const line = refundable.lines!.find((candidate) => candidate.item_id === asked.item_id);
      if (!line) throw new InvalidInputError(`The order has no item ${asked.item_id}.`, { property: `items[${index}].item_id`, reason: 'not_found' });
      if (seen.has(line.item_id)) throw new InvalidInputError(`The item ${asked.item_id} is named twice.`, { property: `items[${index}].item_id`, reason: 'conflict' });
      seen.add(line.item_id);
      const done = ledger.lines![line.item_id] ?? { quantity: 0, subtotal: 0, tax: 0, total: 0 };
      if (asked.quantity > line.quantity - done.quantity) {
        throw new InvalidInputError(`Only ${line.quantity - done.quantity} of the item ${line.item_id} can still be refunded.`, { property: `items[${index}].quantity`, reason: 'out_of_range' });
      }
      const last = done.quantity + asked.quantity === line.quantity;
      const lineTotal = last ? minor(line.total, digits) - minor(done.total, digits) : share(asked.quantity, minor(line.total, digits), line.quantity);
      const lineTax = last ? minor(line.tax, digits) - minor(done.tax, digits) : share(asked.quantity, minor(line.tax, digits), line.quantity);
      const lineSubtotal = refundable.taxInclusive ? lineTotal : lineTotal - lineTax;
      items.push({ item_id: line.item_id, product_id: line.product_id, name: line.name, quantity: asked.quantity, subtotal: major(lineSubtotal, digits), tax: major(lineTax, digits), total: major(lineTotal, digits) });
      ledger.lines![line.item_id] = {
        quantity: done.quantity + asked.quantity,
        subtotal: major(minor(done.subtotal, digits) + lineSubtotal, digits),
        tax: major(minor(done.tax, digits) + lineTax, digits),
        total: major(minor(done.total, digits) + lineTotal, digits),
      };
      subtotal += lineSubtotal;
      tax += lineTax;
      total += lineTotal;
    });
    let shipping = 0;
    if (ask.shipping && refundable.shippingLine) {
      const doneShipping = ledger.shipping ?? { subtotal: 0, tax: 0 };
      shipping = minor(refundable.shippingLine.subtotal, digits) - minor(doneShipping.subtotal, digits);
      const shippingTax = minor(refundable.shippingLine.tax, digits) - minor(doneShipping.tax, digits);
      ledger.shipping = { subtotal: refundable.shippingLine.subtotal, tax: refundable.shippingLine.tax };
      shippingTaken = { subtotal: major(shipping, digits), tax: major(shippingTax, digits) };
      tax += shippingTax;
      total += refundable.taxInclusive ? shipping : shipping + shippingTax;
    }
    if (total <= 0) throw new InvalidInputError('The items named have nothing left to refund.', { property: 'items', reason: 'out_of_range' });
    if (total > remainingMinor) throw new InvalidInputError(`Only ${major(remainingMinor, digits)} ${currency} can still be refunded.`, { property: 'items', reason: 'out_of_range' });
    const everyLine = refundable.lines.every((line) => (ledger.lines![line.item_id]?.quantity ?? 0) === line.quantity);
    const shippingDone = !refundable.shippingLine || minor(refundable.shippingLine.subtotal, digits) === 0 || ledger.shipping?.subtotal === refundable.shippingLine.subtotal;
    final = total === remainingMinor || (everyLine && shippingDone);
    parts = final ? remaining : settlementOf(refundable, { subtotal: major(subtotal, digits), shipping: major(shipping, digits), tax: major(tax, digits), total: major(total, digits) });
  } else {
    const asked = ask.kind === 'full' ? remainingMinor : minor(ask.total, digits);
    if (ask.kind === 'amount') {
      if (!(ask.total > 0)) throw new InvalidInputError('The refund total must be greater than 0.', { property: 'total', reason: 'out_of_range' });
      if (roundMoney(ask.total, currency) !== ask.total) throw new InvalidInputError(`The total has more decimals than ${currency} allows.`, { property: 'total', reason: 'precision' });
      if (asked > remainingMinor) throw new InvalidInputError(`Only ${major(remainingMinor, digits)} ${currency} can still be refunded.`, { property: 'total', reason: 'out_of_range' });
    }
    final = asked === remainingMinor;
    if (final) parts = remaining;
    else {
      const shipping = share(asked, minor(refundable.sale.shipping, digits), totalMinor);
      const tax = share(asked, minor(refundable.sale.tax, digits), totalMinor);
      const subtotal = refundable.taxInclusive ? asked - shipping : asked - shipping - tax;
      parts = settlementOf(refundable, { subtotal: major(subtotal, digits), shipping: major(shipping, digits), tax: major(tax, digits), total: major(asked, digits) });
    }
  }
  ledger.reserved = final ? { ...refundable.sale } : addParts(refundable.ledger.reserved, parts, currency, refundable.settlementCurrency);
  return { parts, items, ledger, final, shippingTaken };
}

/** The ledger after a refund that did not happen is given back (its reservation released). */
export function releasedLedger(ledger: RefundLedger, refund: { parts: RefundParts; items: readonly RefundItem[]; shippingTaken: { subtotal: number; tax: number } | null }, currency: string, settlementCurrency: string): RefundLedger {
  const next: RefundLedger = structuredClone(ledger);
  next.seq += 1;
  next.reserved = addParts(ledger.reserved, refund.parts, currency, settlementCurrency, -1);
  for (const item of refund.items) {
    const line = next.lines?.[item.item_id];
    if (!line) continue;
    next.lines![item.item_id] = {
      quantity: line.quantity - item.quantity,
      subtotal: roundMoney(line.subtotal - item.subtotal, currency),
      tax: roundMoney(line.tax - item.tax, currency),
      total: roundMoney(line.total - item.total, currency),
    };
  }
  const taken = refund.shippingTaken;
  if (taken && next.shipping) next.shipping = { subtotal: roundMoney(next.shipping.subtotal - taken.subtotal, currency), tax: roundMoney(next.shipping.tax - taken.tax, currency) };
  return next;
}
