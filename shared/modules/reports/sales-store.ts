/**
 * The sales report's aggregates (commerce.md §12), kept incrementally: one item per account,
 * mode, UTC day and currency pair, added to in the same transaction that completes a sale's
 * order (checkout, renewals) or a refund of one, so a report reads one item per UTC day of its
 * range (per currency pair sold that day) and never an order.
 *
 * Each day item holds its 96 quarter hours apart (and their totals): every zone's midnight
 * falls on a quarter hour (Asia/Kathmandu is +05:45, Australia/Lord_Howe moves by 30 minutes),
 * so day and month buckets of any zone are sums of whole quarters, and a zone's day spans at
 * most two UTC days. Counters only grow (DynamoDB `ADD`); money is in minor units (integers, no
 * drift). Attribute names are `<slot><kind><metric>`, the slot two digits (`00`–`95`, the
 * quarter of the UTC day), kinds `o` (orders: count `n`, quantity `q`, subtotal `s`, discount
 * `d`, shipping `h`, tax `t`, total `T`, in the order's currency `C`), `x` (the same money in
 * the settlement currency `S`, kept only when `S` differs from `C`), `r` (refunds: count `n`,
 * refunded `r`, in `C`) and `y` (refunded in `S`, only when it differs); `C` and `S` are in the
 * item's key (`day#2027-03-14#EURUSD#0`), e.g. `37oT` is the total of the EUR orders settled
 * in USD made from 09:15 to 09:30 UTC, and `doT` the day's. Zeros are left out. The report shows an order in the report currency from its own
 * amounts, its settlement amounts, or its settlement amounts converted at current rates, so
 * both are kept.
 *
 * Why one day item written in the completion's own transaction (and not hour items compacted
 * into days later): the write that completes a sale is the only write that counts it, so a crash
 * at any line or a retried completion counts it exactly once (the transaction applies whole or
 * not at all, and the completion's own conditions refuse a second run), and a late write into a
 * day already reported (a refund today, a renewal completed late) is just one more `ADD`. A
 * compaction would need its own exactly-once bookkeeping (a marker per folded hour, a read of
 * the not-yet-folded hours) for no gain. The entry replaces the hour entry it succeeds, so a
 * completion's transaction has as many items as before (DynamoDB allows 100).
 *
 * Why per currency pair: an item is at most 400 KB. One pair's full day is at most 96 × 15
 * attributes of about 10 bytes (4-byte names, numbers of a few bytes), about 14 KB, whatever
 * the number of currencies an account sells in; one item for all pairs would pass 400 KB at
 * around 30 busy currencies and then refuse checkouts. A shop selling in one currency reads
 * 366 items a year (a year of hours was 8,760 with longer names and zeros kept: a third of the
 * bytes now). What a read costs follows the attributes more than the items, though (the
 * emulator and the SDK parse each one, DynamoDB bills by size), and a day of quarter slots has
 * about as many as its 24 hours had: a year by day in New York reads 24 times fewer items but
 * takes only a fifth to a third less CPU (`npm run bench:reports`). Hence the day totals
 * (`d<kind><metric>`, added in the same update as the slot, so always the slots' sum): a day
 * that no bucket boundary splits lies whole in one bucket, so when such days are most of a
 * range (a report by month, or by day in UTC) the day items are read for their totals only (a
 * projection) and the few split days whole; a year by month then takes about a quarter of the
 * CPU (DynamoDB still bills a projected read by the whole item; the answer is what shrinks). Reports by day in other zones split every UTC day and read the slots: fewer attributes
 * there would need coarser slots (hours) in a second item per completion, the entry's callers
 * taking a list.
 *
 * Hot spot: all of a moment's completions add to the same item, as with hour items (the
 * current hour's then, the current day's now), so conflicts (`transact` reruns those) are as
 * frequent as before; but an update is billed by the item's size, up to about 14 KB (28 write
 * units in a transaction) late in a busy day against under 1 KB for an hour item, and one item
 * takes at most 1,000 write units a second, so a pair's day item saturates around 35 completions
 * a second. `DAY_SHARDS` spreads a day over N items (the shard from the sale's millisecond);
 * readers take every item of a day whatever its shard, so raising it needs no migration, at N
 * times the items read per day.
 *
 * Hour items written before the day items (`hour#2027-03-14T07`, names
 * `<quarter><kind><C><S><metric>`) stay where they are and are still read: a report reads both
 * (each sale was counted in exactly one of them, so their sums add); no backfill is needed, and
 * they are never written again.
 */
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
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

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const QUARTER_MS = 900_000;

/** Items one UTC day and currency pair is spread over (see the hot spot above); readers take any number. */
export const DAY_SHARDS = 1;

/** The partition of a scope's sales days. */
function dayPartition(scope: RecordScope): string {
  return `${scope.accountId}#${scope.mode}#sales-days`;
}

/** The partition of a scope's sales hours (written before the day items; read only). */
function hourPartition(scope: RecordScope): string {
  return `${scope.accountId}#${scope.mode}#sales-hours`;
}

/** The UTC date of `epochMs` (`2027-03-14`). */
function utcDate(epochMs: number): string {
  return new Date(Math.floor(epochMs / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** The sort key of a day item: its UTC date, currency pair and shard (`day#2027-03-14#EURUSD#0`). */
export function dayKey(epochMs: number, pair: string, shard: number): string {
  return `day#${utcDate(epochMs)}#${pair}#${shard}`;
}

/** The sort key of the (legacy) hour containing `epochMs` (`hour#2027-03-14T07`). */
export function hourKey(epochMs: number): string {
  return `hour#${new Date(Math.floor(epochMs / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13)}`;
}

/** The quarter of its UTC day (`00`–`95`) that `epochMs` falls in. */
function slotOf(epochMs: number): string {
  return String(Math.floor((((epochMs % DAY_MS) + DAY_MS) % DAY_MS) / QUARTER_MS)).padStart(2, '0');
}

/** An amount in minor units of `currency` (integers add without drift). */
export function minor(amount: number, currency: string): number {
  return Math.round(amount * 10 ** minorUnits(currency));
}

/**
 * The `ADD` entry of `counters` (`<kind><metric>` → increment; the count is never 0, so there
 * is always one) on the slot of `epochMs` in the day item of `pair`, in the shard the sale's
 * millisecond picks.
 */
function addEntry(scope: RecordScope, epochMs: number, pair: string, counters: Record<string, number>, name: string): TransactEntry {
  const slot = slotOf(epochMs);
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  // Adding 0 changes no sum: leaving zeros out (no discount, no shipping) keeps items smaller.
  // Each amount goes to its slot and to the day's total (`d<kind><metric>`), in the same update.
  const adds = Object.entries(counters).filter(([, amount]) => amount !== 0).map(([counter, amount], index) => {
    names[`#a${index}`] = `${slot}${counter}`;
    names[`#d${index}`] = `d${counter}`;
    values[`:v${index}`] = amount;
    return `#a${index} :v${index}, #d${index} :v${index}`;
  });
  return {
    name,
    item: {
      Update: {
        TableName: table(),
        Key: { pk: dayPartition(scope), sk: dayKey(epochMs, pair, Math.abs(Math.floor(epochMs)) % DAY_SHARDS) },
        UpdateExpression: `ADD ${adds.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

/** The entry that counts a completed order in its day (written in the order's own transaction). */
export function orderSaleEntry(scope: RecordScope, sale: OrderSale): TransactEntry {
  const counters: Record<string, number> = { on: 1, oq: sale.quantity };
  const letters = { subtotal: 's', discount: 'd', shipping: 'h', tax: 't', total: 'T' } as const;
  for (const [metric, letter] of Object.entries(letters) as Array<[keyof typeof letters, string]>) {
    counters[`o${letter}`] = minor(sale[metric], sale.currency);
    if (sale.settlementCurrency !== sale.currency) counters[`x${letter}`] = minor(sale.settlement[metric], sale.settlementCurrency);
  }
  return addEntry(scope, sale.createdMs, `${sale.currency}${sale.settlementCurrency}`, counters, 'sales-day.order');
}

/** The entry that counts a completed refund of an order in its own day (written in the refund's transaction). */
export function refundSaleEntry(scope: RecordScope, refund: RefundSale): TransactEntry {
  return addEntry(scope, refund.createdMs, `${refund.currency}${refund.settlementCurrency}`, {
    rn: 1,
    rr: minor(refund.total, refund.currency),
    ...(refund.settlementCurrency !== refund.currency ? { yr: minor(refund.settlementTotal, refund.settlementCurrency) } : {}),
  }, 'sales-day.refund');
}

/** One quarter hour with sales: its start and its counters (`<kind><C><S><metric>` → sum). */
export interface SalesQuarter {
  startMs: number;
  counters: Array<[string, number]>;
}

/** Collects quarters by start, adding the counters of every item that has one. */
export class QuarterSums {
  private readonly byStart = new Map<number, Array<[string, number]>>();

  add(startMs: number, counter: string, value: number): void {
    let counters = this.byStart.get(startMs);
    if (!counters) this.byStart.set(startMs, (counters = []));
    counters.push([counter, value]);
  }

  sorted(): SalesQuarter[] {
    return [...this.byStart].sort((a, b) => a[0] - b[0]).map(([startMs, counters]) => ({ startMs, counters }));
  }
}

const HOUR_QUARTER = /^([0-3])([oxry][A-Z]{6}[a-zA-Z])$/;

/** Counter names (`<kind><C><S><metric>`) by pair and `<kind><metric>`: a year has 175,000 slot values and a few dozen names. */
const counterNames = new Map<string, string>();
function counterName(pair: string, kindMetric: string): string {
  const key = pair + kindMetric;
  let name = counterNames.get(key);
  if (name === undefined) counterNames.set(key, (name = `${kindMetric[0]}${pair}${kindMetric[1]}`));
  return name;
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/** Adds a stored day item's slots (`<slot><kind><metric>`) to `sums` (the pair and the date from its key). */
export function addDayItem(sums: QuarterSums, item: Record<string, unknown>): void {
  const [, date, pair] = String(item.sk).split('#');
  const dayMs = Date.parse(`${date}T00:00:00Z`);
  for (const name in item) {
    const value = item[name];
    if (name.length !== 4 || typeof value !== 'number' || !isDigit(name.charCodeAt(0)) || !isDigit(name.charCodeAt(1))) continue;
    const slot = (name.charCodeAt(0) - 48) * 10 + name.charCodeAt(1) - 48;
    sums.add(dayMs + slot * QUARTER_MS, counterName(pair!, name.slice(2)), value);
  }
}

/** Adds a stored (legacy) hour item's quarters to `sums`. */
export function addHourItem(sums: QuarterSums, item: Record<string, unknown>): void {
  const hourMs = item.hour_ms as number;
  for (const [name, value] of Object.entries(item)) {
    const match = HOUR_QUARTER.exec(name);
    if (match && typeof value === 'number') sums.add(hourMs + Number(match[1]) * QUARTER_MS, match[2]!, value);
  }
}

/** Every item of `partition` with a sort key from `from` to `to` (only `projection` when given), and how many were read. */
async function queryRange(partition: string, from: string, to: string, each: (item: Record<string, unknown>) => void, projection?: readonly string[]): Promise<number> {
  const projected = projection ? { ProjectionExpression: projection.map((_, index) => `#p${index}`).join(', '), ExpressionAttributeNames: Object.fromEntries(projection.map((name, index) => [`#p${index}`, name])) } : {};
  let itemsRead = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': partition, ':from': from, ':to': to },
        ...projected,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    itemsRead += page.ScannedCount ?? page.Items?.length ?? 0;
    for (const item of page.Items ?? []) each(item as Record<string, unknown>);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return itemsRead;
}

/** The whole items of `keys` (BatchGetItem, 100 keys a call, unprocessed keys asked again), and how many were read. */
async function getItems(keys: ReadonlyArray<Record<string, unknown>>, each: (item: Record<string, unknown>) => void): Promise<number> {
  const chunks: Array<Array<Record<string, unknown>>> = [];
  for (let at = 0; at < keys.length; at += 100) chunks.push(keys.slice(at, at + 100));
  const counts = await Promise.all(
    chunks.map(async (chunk) => {
      let itemsRead = 0;
      let pending: Array<Record<string, unknown>> = chunk;
      for (let round = 0; pending.length; round++) {
        if (round) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** round)));
        const answer = await db().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: pending } } }));
        for (const item of answer.Responses?.[table()] ?? []) {
          itemsRead++;
          each(item as Record<string, unknown>);
        }
        pending = (answer.UnprocessedKeys?.[table()]?.Keys ?? []) as Array<Record<string, unknown>>;
      }
      return itemsRead;
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** The names of a day item's totals: `d<kind><metric>` for every kind and its metrics. */
const TOTAL_NAMES = ['on', 'oq', 'os', 'od', 'oh', 'ot', 'oT', 'xs', 'xd', 'xh', 'xt', 'xT', 'rn', 'rr', 'yr'].map((counter) => `d${counter}`);

/** Adds a day item's totals (read alone) to `sums` as one quarter at the start of its UTC day. */
function addDayTotals(sums: QuarterSums, item: Record<string, unknown>): void {
  const [, date, pair] = String(item.sk).split('#');
  const dayMs = Date.parse(`${date}T00:00:00Z`);
  for (const name of TOTAL_NAMES) {
    const value = item[name];
    if (typeof value === 'number') sums.add(dayMs, counterName(pair!, name.slice(1)), value);
  }
}

/**
 * The UTC days (their starts) from `startMs` to `endMs` that a bucket's start or the range's
 * end splits: their quarters are needed; any other day lies in one bucket whole.
 */
function splitDays(buckets: ReadonlyArray<{ startMs: number; endMs: number }>): Set<number> {
  const edges = [...buckets.map((bucket) => bucket.startMs), buckets.at(-1)!.endMs + 1];
  return new Set(edges.filter((edge) => edge % DAY_MS !== 0).map((edge) => Math.floor(edge / DAY_MS) * DAY_MS));
}

/**
 * The quarters with sales of the UTC days of `buckets` (sorted by start; the caller drops those
 * outside its range), from the day items and the hour items written before them, and how many
 * items were read. A day no bucket boundary splits counts whole in one bucket, so when such
 * days are most of the range (months; days in UTC) the day items are read for their totals
 * only, and the few split days whole (BatchGetItem); otherwise every day item is read whole.
 */
export async function readSalesQuarters(scope: RecordScope, buckets: ReadonlyArray<{ startMs: number; endMs: number }>): Promise<{ quarters: SalesQuarter[]; itemsRead: number }> {
  const startMs = buckets[0]!.startMs;
  const endMs = buckets.at(-1)!.endMs;
  const sums = new QuarterSums();
  const split = splitDays(buckets);
  const dayCount = (Math.floor(endMs / DAY_MS) - Math.floor(startMs / DAY_MS)) + 1;
  const readDays = async (): Promise<number> => {
    const from = `day#${utcDate(startMs)}`;
    const to = `day#${utcDate(endMs)}#~`;
    if (split.size * 2 > dayCount) return queryRange(dayPartition(scope), from, to, (item) => addDayItem(sums, item));
    const whole: Array<Record<string, unknown>> = [];
    const totalsRead = await queryRange(dayPartition(scope), from, to, (item) => {
      if (split.has(Date.parse(`${String(item.sk).split('#')[1]}T00:00:00Z`))) whole.push({ pk: dayPartition(scope), sk: item.sk });
      else addDayTotals(sums, item);
    }, ['sk', ...TOTAL_NAMES]);
    return totalsRead + (await getItems(whole, (item) => addDayItem(sums, item)));
  };
  const [days, hours] = await Promise.all([readDays(), queryRange(hourPartition(scope), hourKey(startMs), hourKey(endMs), (item) => addHourItem(sums, item))]);
  return { quarters: sums.sorted(), itemsRead: days + hours };
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
