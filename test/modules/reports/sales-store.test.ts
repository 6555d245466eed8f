/**
 * The sales aggregates in the local DynamoDB emulator: a year's report reads one item per UTC
 * day (counted by an SDK middleware on the shared client, not by the store; by month, or in
 * UTC, their totals only, plus the days a boundary splits whole), a sale completed
 * after its day was already reported counts exactly once (and a rerun of its completion not at
 * all: the day item's `ADD` rides in the completion's transaction), and the hour items written
 * before the day items, and day items spread over shards, are read with them.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentSettings } from '../../../shared/modules/accounts';
import { orderSaleEntry, refundSaleEntry, type OrderSale } from '../../../shared/modules/reports';
import { readSalesQuarters } from '../../../shared/modules/reports/sales-store';
import { bucketsOf, fillBuckets, summaryOf, type GroupBy } from '../../../shared/modules/reports/sales-report';
import { baseDb, db, table } from '../../../shared/store/client';
import { transact, type TransactEntry } from '../../../shared/store/transact';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { dayItemsOf, legacyHourItemsOf } from './sales-items';

const harness = new Harness();
useEmulatedTable(harness);

const payment = { default_payment_currency: 'USD', currencies: ['USD', 'EUR'], settlement_currency: 'USD', exchange_rates: { EUR: 0.5 } } as unknown as PaymentSettings;
const sale = (createdMs: number, total: number, currency = 'USD', settlementTotal = total): OrderSale => ({
  createdMs, currency, settlementCurrency: 'USD', quantity: 1, subtotal: total, discount: 0, shipping: 0, tax: 0, total,
  settlement: { subtotal: settlementTotal, discount: 0, shipping: 0, tax: 0, total: settlementTotal },
});

/** Items DynamoDB answered with (Query, GetItem, BatchGetItem), counted under the store. */
let itemsAnswered = 0;
const countItems: InitializeMiddleware<object, object> = (next) => async (args) => {
  const result = await next(args);
  const output = result.output as { Items?: unknown[]; Item?: unknown; Responses?: Record<string, unknown[]> };
  const batched = Object.values(output.Responses ?? {}).reduce((sum, items) => sum + items.length, 0);
  itemsAnswered += (output.Items?.length ?? 0) + (output.Item ? 1 : 0) + batched;
  return result;
};
beforeAll(() => baseDb().middlewareStack.add(countItems as InitializeMiddleware<any, any>, { step: 'initialize', name: 'testCountItems' }));
afterAll(() => void baseDb().middlewareStack.remove('testCountItems'));

/** The report of `scope` from `first` to `last` (local dates) in `zone`, read as the action reads it, and the items read. */
async function report(scope: { accountId: string; mode: 'test' }, first: string, last: string, zone: string, groupBy: GroupBy = 'day') {
  const startMs = Date.parse(`${first}T00:00:00Z`) - offsetMs(`${first}T00:00:00`, zone);
  const endMs = Date.parse(`${last}T00:00:00Z`) + 86_400_000 - offsetMs(`${last}T23:59:59`, zone) - 1;
  const before = itemsAnswered;
  const ranges = bucketsOf(startMs, endMs, zone, groupBy)!;
  const { quarters } = await readSalesQuarters(scope, ranges);
  const buckets = fillBuckets(ranges, quarters, 'USD', payment);
  return { buckets, summary: summaryOf(buckets, 'USD'), itemsRead: itemsAnswered - before };
}

/** The offset of `zone` at the local time `local` (by Intl, not luxon), in ms. */
function offsetMs(local: string, zone: string): number {
  const guess = Date.parse(`${local}Z`);
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(guess)).map((part) => [part.type, part.value]));
  return Date.parse(`${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}Z`) - guess;
}

/** The local date of an instant in `zone`, by Intl. */
const localDate = (at: number, zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(at));

/** A completion's transaction: the order, written once (a rerun fails its condition), and its sale entry. */
function completion(scope: { accountId: string }, orderId: string, sold: OrderSale): TransactEntry[] {
  return [
    { name: 'order.complete', item: { Put: { TableName: table(), Item: { pk: `${scope.accountId}#order#${orderId}`, sk: 'order' }, ConditionExpression: 'attribute_not_exists(pk)' } } },
    orderSaleEntry({ accountId: scope.accountId, mode: 'test' }, sold),
  ];
}

describe('sales aggregates in DynamoDB', () => {
  it('reads one item per UTC day for a year, and the days add up', async () => {
    const scope = { accountId: 'YEAR', mode: 'test' as const };
    const zone = 'Australia/Lord_Howe';
    // An order every 5 hours 50 minutes of 2027 in Lord Howe, and the hours either side of it.
    const sales: OrderSale[] = [];
    for (let at = Date.parse('2026-12-31T12:00:00Z'); at < Date.parse('2028-01-01T00:00:00Z'); at += 21_000_000) sales.push(sale(at, 10 + (sales.length % 7)));
    for (const item of dayItemsOf(sales.map((sold) => orderSaleEntry(scope, sold)))) await db().send(new PutCommand({ TableName: table(), Item: item }));

    const { buckets, summary, itemsRead } = await report(scope, '2027-01-01', '2027-12-31', zone);
    expect(buckets).toHaveLength(365);
    // 2027 in Lord Howe spans 366 UTC dates (from 31 December 2026 13:00 UTC).
    expect(itemsRead).toBeLessThanOrEqual(367);
    expect(itemsRead).toBeGreaterThanOrEqual(365);
    const inYear = sales.filter((sold) => localDate(sold.createdMs, zone).startsWith('2027-'));
    expect(summary.order_count).toBe(inYear.length);
    expect(summary.total).toBe(inYear.reduce((sum, sold) => sum + sold.total, 0));
    const byDay = new Map<string, number>();
    for (const sold of inYear) byDay.set(localDate(sold.createdMs, zone), (byDay.get(localDate(sold.createdMs, zone)) ?? 0) + 1);
    expect(buckets.map((bucket) => bucket.figures.order_count)).toEqual(buckets.map((bucket) => byDay.get(localDate(bucket.startMs, zone)) ?? 0));

    // By month, the days no month boundary splits are read for their totals only, the 13 split ones whole too.
    const months = await report(scope, '2027-01-01', '2027-12-31', zone, 'month');
    expect(months.buckets).toHaveLength(12);
    expect(months.summary).toEqual(summary);
    const byMonth = (key: (at: number) => string) => months.buckets.map((bucket) => inYear.filter((sold) => key(sold.createdMs) === key(bucket.startMs)).length);
    expect(months.buckets.map((bucket) => bucket.figures.order_count)).toEqual(byMonth((at) => localDate(at, zone).slice(0, 7)));
    expect(months.itemsRead).toBe(itemsRead + 13);

    // In UTC no day is split: every day item is read for its totals only.
    const utc = await report(scope, '2027-01-01', '2027-12-31', 'UTC');
    const inUtcYear = sales.filter((sold) => new Date(sold.createdMs).getUTCFullYear() === 2027);
    expect(utc.itemsRead).toBe(365);
    expect(utc.summary.order_count).toBe(inUtcYear.length);
    expect(utc.buckets.map((bucket) => bucket.figures.order_count)).toEqual(utc.buckets.map((bucket) => inUtcYear.filter((sold) => Math.floor(sold.createdMs / 86_400_000) * 86_400_000 === bucket.startMs).length));
  });

  it('counts a sale completed after its day was reported exactly once, and a rerun of its completion not at all', async () => {
    const scope = { accountId: 'LATE', mode: 'test' as const };
    const zone = 'Asia/Kathmandu';
    const at = (time: string) => Date.parse(`2027-03-14T${time}Z`); // Kathmandu's 14 March: 13 March 18:15 UTC to 14 March 18:15
    await transact(completion(scope, 'o1', sale(at('01:00:00'), 10)));
    await transact(completion(scope, 'o2', sale(at('18:14:00'), 20)));
    await transact(completion(scope, 'o3', sale(at('18:15:00'), 40))); // 00:00 on the 15th in Kathmandu
    const first = await report(scope, '2027-03-14', '2027-03-15', zone);
    expect(first.buckets.map((bucket) => bucket.figures.total)).toEqual([30, 40]);
    // In UTC the 14th is whole: read from the day's totals, which the same ADDs keep.
    expect((await report(scope, '2027-03-14', '2027-03-14', 'UTC')).summary).toMatchObject({ order_count: 3, total: 70 });

    // A renewal completed late, dated earlier the same day, and a refund dated that day.
    await transact(completion(scope, 'o4', sale(at('00:30:00'), 5)));
    await transact([refundSaleEntry(scope, { createdMs: at('12:00:00'), currency: 'USD', settlementCurrency: 'USD', total: 3, settlementTotal: 3 })]);
    // The late completion runs again (a retry after a lost answer): its transaction is refused whole.
    await expect(transact(completion(scope, 'o4', sale(at('00:30:00'), 5)))).rejects.toThrow();

    const second = await report(scope, '2027-03-14', '2027-03-15', zone);
    expect(second.buckets.map((bucket) => [bucket.figures.order_count, bucket.figures.total, bucket.figures.refunded])).toEqual([[3, 35, 3], [1, 40, 0]]);
    expect(await report(scope, '2027-03-14', '2027-03-15', zone)).toEqual(second);
    expect((await report(scope, '2027-03-14', '2027-03-14', 'UTC')).summary).toMatchObject({ order_count: 4, total: 75, refund_count: 1, refunded: 3 });
  });

  it('reads the hour items written before the day items, and every shard of a day, with the day items', async () => {
    const scope = { accountId: 'MIXED', mode: 'test' as const };
    const zone = 'America/New_York';
    // New York's 14 March 2027 is 23 hours: 05:00 UTC to 04:00 UTC on the 15th.
    const legacy = [orderSaleEntry(scope, sale(Date.parse('2027-03-14T05:00:00Z'), 1)), orderSaleEntry(scope, sale(Date.parse('2027-03-14T09:10:00Z'), 2, 'EUR', 4))];
    for (const item of legacyHourItemsOf(legacy)) await db().send(new PutCommand({ TableName: table(), Item: item }));
    await transact(completion(scope, 'n1', sale(Date.parse('2027-03-14T09:20:00Z'), 8)));
    await transact(completion(scope, 'n2', sale(Date.parse('2027-03-15T03:59:00Z'), 16)));
    await transact(completion(scope, 'n3', sale(Date.parse('2027-03-15T04:00:00Z'), 32))); // the 15th in New York
    // A second shard of the 14th's USD day (what raising DAY_SHARDS writes).
    const [shardItem] = dayItemsOf([orderSaleEntry(scope, sale(Date.parse('2027-03-14T23:00:00Z'), 64))]);
    await db().send(new PutCommand({ TableName: table(), Item: { ...shardItem, sk: String(shardItem!.sk).replace(/#0$/, '#1') } }));

    const { buckets, itemsRead } = await report(scope, '2027-03-14', '2027-03-15', zone);
    expect(buckets.map((bucket) => [bucket.figures.order_count, bucket.figures.total])).toEqual([[5, 1 + 4 + 8 + 16 + 64], [1, 32]]);
    // Two legacy hours (05:00 and 09:00 UTC), the 14th's USD day in two shards, the 15th's.
    expect(itemsRead).toBe(2 + 3);
  });
});
