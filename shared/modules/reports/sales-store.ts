/**
 * The sales report's aggregates (commerce.md §12), kept incrementally: one item per account,
 * mode and UTC hour, added to in the same transaction that completes a sale's order (checkout,
 * renewals) or a refund of one, so a report reads at most one item per hour of its range and
 * never an order.
 *
 * Each hour item holds its four quarter hours apart: every zone's midnight falls on a quarter
 * hour (Asia/Kathmandu is +05:45, Australia/Lord_Howe moves by 30 minutes), so day and month
 * buckets of any zone are sums of whole quarters. Counters only grow (DynamoDB `ADD`); money is
 * in minor units (integers, no drift). Names are short because a year's report reads 8,760
 * items: `<quarter><kind><C><S><metric>`, with `C` the order's currency and `S` its settlement
 * currency (ISO codes, three letters each), kinds `o` (orders: count `n`, quantity `q`,
 * subtotal `s`, discount `d`, shipping `h`, tax `t`, total `T`, in `C`), `x` (the same money in
 * `S`, kept only when `S` differs from `C`), `r` (refunds: count `n`, refunded `r`, in `C`) and
 * `y` (refunded in `S`, only when it differs). The report shows an order in the report currency
 * from its own amounts, its settlement amounts, or its settlement amounts converted at current
 * rates, so both are kept; e.g. `2oUSDUSDT` is the total of the USD orders settled in USD made
 * in the hour's third quarter.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../../store/client';
import type { RecordScope } from '../../store/entity';
import type { TransactEntry } from '../../store/transact';
import { minorUnits } from '../../rest/money';
import type { SaleTotals } from '../pricing';

/** Metric letters and the report figure each adds to (money ones in minor units). */
export const METRICS = { n: 'count', q: 'quantity', s: 'subtotal', d: 'discount', h: 'shipping', t: 'tax', T: 'total', r: 'refunded' } as const;
/** The money metrics (converted and divided into units; counts are not). */
export const MONEY_LETTERS: ReadonlySet<string> = new Set(['s', 'd', 'h', 't', 'T', 'r']);

/** What a completed order adds to the report (its amounts as the order stores them). */
export interface OrderSale {
  createdMs: number;
  currency: string;
  settlementCurrency: string;
  quantity: number;
  /** Before the discount (§12: `subtotal − discount + shipping + tax = total` in its example). */
  subtotal: number;
  discount: number;
  shipping: number;
  tax: number;
  total: number;
  settlement: { subtotal: number; discount: number; shipping: number; tax: number; total: number };
}

/** What a completed refund of an order adds to the report. */
export interface RefundSale {
  createdMs: number;
  currency: string;
  settlementCurrency: string;
  total: number;
  settlementTotal: number;
}

const HOUR_MS = 3_600_000;
const QUARTER_MS = 900_000;

/** The partition of a scope's sales hours. */
function partition(scope: RecordScope): string {
  return `${scope.accountId}#${scope.mode}#sales-hours`;
}

/** The sort key of the hour containing `epochMs` (`hour#2027-03-14T07`). */
export function hourKey(epochMs: number): string {
  return `hour#${new Date(Math.floor(epochMs / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13)}`;
}

/** The quarter (0–3) of its hour that `epochMs` falls in. */
function quarterOf(epochMs: number): number {
  return Math.floor((epochMs % HOUR_MS) / QUARTER_MS);
}

/** An amount in minor units of `currency` (integers add without drift). */
export function minor(amount: number, currency: string): number {
  return Math.round(amount * 10 ** minorUnits(currency));
}

/** The `ADD` entry of `counters` (attribute name → increment) on the hour of `epochMs`. */
function addEntry(scope: RecordScope, epochMs: number, counters: Record<string, number>, name: string): TransactEntry {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const adds = Object.entries(counters).map(([attribute, amount], index) => {
    names[`#a${index}`] = attribute;
    values[`:v${index}`] = amount;
    return `#a${index} :v${index}`;
  });
  const hourStart = Math.floor(epochMs / HOUR_MS) * HOUR_MS;
  return {
    name,
    item: {
      Update: {
        TableName: table(),
        Key: { pk: partition(scope), sk: hourKey(epochMs) },
        UpdateExpression: `SET hour_ms = :hour ADD ${adds.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ':hour': hourStart },
      },
    },
  };
}

/** The entry that counts a completed order in its hour (written in the order's own transaction). */
export function orderSaleEntry(scope: RecordScope, sale: OrderSale): TransactEntry {
  const pair = `${sale.currency}${sale.settlementCurrency}`;
  const own = `${quarterOf(sale.createdMs)}o${pair}`;
  const settled = `${quarterOf(sale.createdMs)}x${pair}`;
  const counters: Record<string, number> = { [`${own}n`]: 1, [`${own}q`]: sale.quantity };
  const letters = { subtotal: 's', discount: 'd', shipping: 'h', tax: 't', total: 'T' } as const;
  for (const [metric, letter] of Object.entries(letters) as Array<[keyof typeof letters, string]>) {
    counters[`${own}${letter}`] = minor(sale[metric], sale.currency);
    if (sale.settlementCurrency !== sale.currency) counters[`${settled}${letter}`] = minor(sale.settlement[metric], sale.settlementCurrency);
  }
  return addEntry(scope, sale.createdMs, counters, 'sales-hour.order');
}

/** The entry that counts a completed refund of an order in its own hour (written in the refund's transaction). */
export function refundSaleEntry(scope: RecordScope, refund: RefundSale): TransactEntry {
  const pair = `${refund.currency}${refund.settlementCurrency}`;
  const quarter = quarterOf(refund.createdMs);
  return addEntry(scope, refund.createdMs, {
    [`${quarter}r${pair}n`]: 1,
    [`${quarter}r${pair}r`]: minor(refund.total, refund.currency),
    ...(refund.settlementCurrency !== refund.currency ? { [`${quarter}y${pair}r`]: minor(refund.settlementTotal, refund.settlementCurrency) } : {}),
  }, 'sales-hour.refund');
}

/** One stored hour: its start and its counters. */
export interface SalesHour {
  hourMs: number;
  counters: Record<string, number>;
}

/** The hours with sales from the hour of `startMs` to the hour of `endMs`, and how many items were read. */
export async function readSalesHours(scope: RecordScope, startMs: number, endMs: number): Promise<{ hours: SalesHour[]; itemsRead: number }> {
  const hours: SalesHour[] = [];
  let itemsRead = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': partition(scope), ':from': hourKey(startMs), ':to': hourKey(endMs) },
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    itemsRead += page.ScannedCount ?? page.Items?.length ?? 0;
    for (const item of page.Items ?? []) {
      const { pk: _pk, sk: _sk, hour_ms: hourMs, ...counters } = item as Record<string, unknown>;
      hours.push({ hourMs: hourMs as number, counters: counters as Record<string, number> });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { hours, itemsRead };
}

/** What an order adds to the report: its stored amounts (subtotal before the discount). */
export function saleOfOrder(order: { created_ms: number; items: ReadonlyArray<{ quantity: number }>; totals: Omit<SaleTotals, 'items' | 'shipping_item'> }): OrderSale {
  const { totals } = order;
  return {
    createdMs: order.created_ms,
    currency: totals.currency,
    settlementCurrency: totals.settlement_currency,
    quantity: order.items.reduce((sum, item) => sum + item.quantity, 0),
    subtotal: totals.subtotal_original,
    discount: totals.discount,
    shipping: totals.shipping,
    tax: totals.tax,
    total: totals.total,
    settlement: { subtotal: totals.settlement_subtotal_original, discount: totals.settlement_discount, shipping: totals.settlement_shipping, tax: totals.settlement_tax, total: totals.settlement_total },
  };
}
