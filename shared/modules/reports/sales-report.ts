/**
 * The sales report (commerce.md §12) from the quarter-hour aggregates (./sales-store.ts): buckets by
 * day or month in the requested zone (luxon follows each zone's daylight-saving rules, so a
 * New York day in March is 23 hours and a Lord Howe day 23.5), every bucket present (zeros when
 * empty), orders and refunds each on their own dates, in the report currency: an order's own
 * amounts when its currency is the report's, else its settlement amounts when those are in the
 * report currency, else its settlement amounts converted at current rates (per bucket). Pure.
 */
import { DateTime } from 'luxon';
import type { PaymentSettings } from '../accounts';
import { convert } from '../catalog';
import { minorUnits, roundMoney } from '../../rest/money';
import { METRICS, MONEY_LETTERS, type SalesQuarter } from './sales-store';

/** Bucket sizes and their limits (§12). */
export const GROUP_LIMITS = { day: 366, month: 120 } as const;
export type GroupBy = keyof typeof GROUP_LIMITS;

/** The metrics of a bucket or the summary. */
export interface SalesFigures {
  order_count: number;
  item_quantity: number;
  subtotal: number;
  discount: number;
  shipping: number;
  tax: number;
  total: number;
  refund_count: number;
  refunded: number;
  net: number;
  average_order_total: number;
}

/** A bucket: its first and last millisecond, and its figures. */
export interface SalesBucket {
  startMs: number;
  endMs: number;
  figures: SalesFigures;
}

/**
 * The buckets from `startMs` to `endMs` (both inclusive) in `zone`; undefined when there would
 * be more than the limit of `groupBy`.
 */
export function bucketsOf(startMs: number, endMs: number, zone: string, groupBy: GroupBy): Array<{ startMs: number; endMs: number }> | undefined {
  const buckets: Array<{ startMs: number; endMs: number }> = [];
  let cursor = DateTime.fromMillis(startMs, { zone });
  while (cursor.toMillis() <= endMs) {
    if (buckets.length === GROUP_LIMITS[groupBy]) return undefined;
    const next = cursor.startOf(groupBy).plus({ [`${groupBy}s`]: 1 });
    buckets.push({ startMs: cursor.toMillis(), endMs: Math.min(next.toMillis() - 1, endMs) });
    cursor = next;
  }
  return buckets;
}

/** Running sums of one bucket: minor units of the report currency, and settlement sums still to convert, by currency. */
interface Sums {
  direct: Record<string, number>;
  toConvert: Map<string, Record<string, number>>;
}

const emptySums = (): Sums => ({ direct: {}, toConvert: new Map() });
const add = (into: Record<string, number>, metric: string, amount: number) => (into[metric] = (into[metric] ?? 0) + amount);

/** Where a counter adds in the report: its figure, and the currency its amount is in. */
interface CounterPlan {
  metric: string;
  from: string;
}

/**
 * Where the counter `<kind><C><S><metric>` adds in the report currency `currency` (null: it
 * does not): counts as they are; money from the order's own amounts when `C` is the report
 * currency, else from its settlement amounts (`x`/`y`, or the own amounts when `S` is `C`),
 * directly when `S` is the report currency and converted otherwise.
 */
function planOf(name: string, currency: string): CounterPlan | null {
  const kind = name[0]!;
  const orderCurrency = name.slice(1, 4);
  const settlementCurrency = name.slice(4, 7);
  const letter = name.slice(7);
  const refund = kind === 'r' || kind === 'y';
  const metric = letter === 'n' && refund ? 'refund_count' : METRICS[letter as keyof typeof METRICS];
  if (!metric) return null;
  const own = kind === 'o' || kind === 'r';
  if (!MONEY_LETTERS.has(letter)) return own ? { metric, from: currency } : null;
  // Which amounts stand for this order in the report currency, and in which currency they are.
  if (orderCurrency === currency) return own ? { metric, from: orderCurrency } : null;
  if (settlementCurrency === orderCurrency) return { metric, from: orderCurrency }; // its own amounts are its settlement amounts
  return own ? null : { metric, from: settlementCurrency };
}

/** Adds one quarter's counters to `sums` where their plans (`planFor`, cached per name) say. */
function addQuarter(sums: Sums, counters: Array<[string, number]>, planFor: (name: string) => CounterPlan | null, currency: string): void {
  for (const [name, value] of counters) {
    const plan = planFor(name);
    if (!plan) continue;
    if (plan.from === currency) add(sums.direct, plan.metric, value);
    else {
      const pending = sums.toConvert.get(plan.from) ?? {};
      add(pending, plan.metric, value);
      sums.toConvert.set(plan.from, pending);
    }
  }
}

/** The figures of a bucket's sums in `currency`. */
function figuresOf(sums: Sums, currency: string, payment: PaymentSettings): SalesFigures {
  const digits = 10 ** minorUnits(currency);
  const money = (metric: string): number => {
    let amount = (sums.direct[metric] ?? 0) / digits;
    for (const [from, pending] of sums.toConvert) {
      if (pending[metric]) amount += convert(pending[metric]! / 10 ** minorUnits(from), from, currency, payment);
    }
    return roundMoney(amount, currency);
  };
  const orderCount = sums.direct.count ?? 0;
  const total = money('total');
  const refunded = money('refunded');
  return {
    order_count: orderCount,
    item_quantity: sums.direct.quantity ?? 0,
    subtotal: money('subtotal'),
    discount: money('discount'),
    shipping: money('shipping'),
    tax: money('tax'),
    total,
    refund_count: sums.direct.refund_count ?? 0,
    refunded,
    net: roundMoney(total - refunded, currency),
    average_order_total: orderCount ? roundMoney(total / orderCount, currency) : 0,
  };
}

/** The summary: the sums of the buckets' figures. */
export function summaryOf(buckets: readonly SalesBucket[], currency: string): SalesFigures {
  const sum = (metric: keyof SalesFigures) => buckets.reduce((total, bucket) => total + bucket.figures[metric], 0);
  const total = roundMoney(sum('total'), currency);
  const refunded = roundMoney(sum('refunded'), currency);
  const orderCount = sum('order_count');
  return {
    order_count: orderCount,
    item_quantity: sum('item_quantity'),
    subtotal: roundMoney(sum('subtotal'), currency),
    discount: roundMoney(sum('discount'), currency),
    shipping: roundMoney(sum('shipping'), currency),
    tax: roundMoney(sum('tax'), currency),
    total,
    refund_count: sum('refund_count'),
    refunded,
    net: roundMoney(total - refunded, currency),
    average_order_total: orderCount ? roundMoney(total / orderCount, currency) : 0,
  };
}

/**
 * Fills `buckets` from the quarters read (sorted by start): each quarter hour counts in the
 * bucket its start falls in; quarters outside the range count nowhere.
 */
export function fillBuckets(buckets: ReadonlyArray<{ startMs: number; endMs: number }>, quarters: readonly SalesQuarter[], currency: string, payment: PaymentSettings): SalesBucket[] {
  const sums = buckets.map(() => emptySums());
  // A report sees a few dozen counter names: decide each once, not once per quarter.
  const plans = new Map<string, CounterPlan | null>();
  const planFor = (name: string) => {
    let plan = plans.get(name);
    if (plan === undefined) plans.set(name, (plan = planOf(name, currency)));
    return plan;
  };
  let index = 0;
  for (const quarter of quarters) {
    while (index < buckets.length && buckets[index]!.endMs < quarter.startMs) index++;
    if (index >= buckets.length) break;
    if (quarter.startMs < buckets[index]!.startMs) continue;
    addQuarter(sums[index]!, quarter.counters, planFor, currency);
  }
  return buckets.map((bucket, at) => ({ ...bucket, figures: figuresOf(sums[at]!, currency, payment) }));
}
