/**
 * The sales report's arithmetic (commerce.md §12) over aggregates built by the real entries:
 * quarter hours land in the zone's buckets, orders enter in the report currency from their own
 * amounts, their settlement amounts, or their settlement amounts converted at current rates,
 * and hour items written before the day items read as the same quarters.
 */
import { describe, expect, it } from 'vitest';
import type { PaymentSettings } from '../../../shared/modules/accounts';
import { orderSaleEntry, refundSaleEntry, type OrderSale } from '../../../shared/modules/reports';
import { bucketsOf, fillBuckets, summaryOf } from '../../../shared/modules/reports/sales-report';
import type { TransactEntry } from '../../../shared/store/transact';
import { configureStore } from '../../../shared/store/client';
import { dayItemsOf, legacyHourItemsOf, quartersOf } from './sales-items';
import type { SalesQuarter } from '../../../shared/modules/reports/sales-store';

// The entries name the table; nothing is read or written here.
configureStore({ tableName: 'cartwheel-test', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:9' } });

const scope = { accountId: 'A', mode: 'test' as const };
const payment = { default_payment_currency: 'USD', currencies: ['USD', 'EUR', 'JPY'], settlement_currency: 'USD', exchange_rates: { EUR: 0.5, JPY: 100 } } as unknown as PaymentSettings;

/** The quarters the report reads after `entries` were written (what DynamoDB's ADD leaves, read back). */
const quartersAfter = (entries: TransactEntry[]) => quartersOf(dayItemsOf(entries));

const sale = (createdMs: number, currency: string, total: number, settlementTotal: number): OrderSale => ({
  createdMs, currency, settlementCurrency: 'USD', quantity: 1, subtotal: total, discount: 0, shipping: 0, tax: 0, total,
  settlement: { subtotal: settlementTotal, discount: 0, shipping: 0, tax: 0, total: settlementTotal },
});

describe('sales report arithmetic', () => {
  it('puts Kathmandu quarter hours on the right side of midnight', () => {
    const before = Date.parse('2027-03-13T18:10:00Z'); // 23:55 in Kathmandu
    const after = Date.parse('2027-03-13T18:20:00Z'); // 00:05 on the 14th
    const hours = quartersAfter([orderSaleEntry(scope, sale(before, 'USD', 10, 10)), orderSaleEntry(scope, sale(after, 'USD', 20, 20))]);
    const ranges = bucketsOf(Date.parse('2027-03-12T18:15:00Z'), Date.parse('2027-03-14T18:14:59.999Z'), 'Asia/Kathmandu', 'day')!;
    expect(fillBuckets(ranges, hours, 'USD', payment).map((bucket) => bucket.figures.total)).toEqual([10, 20]);
  });

  it('takes own amounts, settlement amounts, or converted settlement amounts', () => {
    const at = Date.parse('2027-06-01T12:00:00Z');
    const hours = quartersAfter([
      orderSaleEntry(scope, sale(at, 'USD', 10, 10)),
      orderSaleEntry(scope, sale(at, 'EUR', 4, 8)), // settled as 8 USD
      orderSaleEntry(scope, sale(at, 'JPY', 1000, 10)), // settled as 10 USD
      refundSaleEntry(scope, { createdMs: at, currency: 'EUR', settlementCurrency: 'USD', total: 1, settlementTotal: 2 }),
    ]);
    const ranges = bucketsOf(Date.parse('2027-06-01T00:00:00Z'), Date.parse('2027-06-01T23:59:59.999Z'), 'UTC', 'day')!;
    const usd = summaryOf(fillBuckets(ranges, hours, 'USD', payment), 'USD');
    expect(usd).toMatchObject({ order_count: 3, total: 28, refund_count: 1, refunded: 2, net: 26, average_order_total: 9.33 });
    // In EUR: its own 4, and the others' USD settlement (10 + 10) at 0.5.
    const eur = summaryOf(fillBuckets(ranges, hours, 'EUR', payment), 'EUR');
    expect(eur).toMatchObject({ order_count: 3, total: 14, refunded: 1 });
    // In JPY (no decimals): its own 1000, and (10 + 8) USD at 100.
    expect(summaryOf(fillBuckets(ranges, hours, 'JPY', payment), 'JPY')).toMatchObject({ total: 2800, refunded: 200 });
  });

  it('puts each UTC quarter of a day item in its slot, the last one included', () => {
    const entries = [
      orderSaleEntry(scope, sale(Date.parse('2027-03-14T00:00:00Z'), 'USD', 1, 1)),
      orderSaleEntry(scope, sale(Date.parse('2027-03-14T09:29:59.999Z'), 'USD', 2, 2)),
      orderSaleEntry(scope, sale(Date.parse('2027-03-14T23:45:00Z'), 'USD', 4, 4)),
    ];
    expect(entries.map((entry) => (entry.item.Update!.Key as { sk: string }).sk)).toEqual(Array(3).fill('day#2027-03-14#USDUSD#0'));
    expect(quartersAfter(entries).map((quarter) => new Date(quarter.startMs).toISOString())).toEqual(['2027-03-14T00:00:00.000Z', '2027-03-14T09:15:00.000Z', '2027-03-14T23:45:00.000Z']);
  });

  it('leaves zero amounts out of the day item, and still counts a free order', () => {
    const free = orderSaleEntry(scope, sale(Date.parse('2027-06-01T12:00:00Z'), 'USD', 0, 0));
    expect(Object.values(free.item.Update!.ExpressionAttributeNames!)).toEqual(['48on', 'don', '48oq', 'doq']);
    const ranges = bucketsOf(Date.parse('2027-06-01T00:00:00Z'), Date.parse('2027-06-01T23:59:59.999Z'), 'UTC', 'day')!;
    expect(summaryOf(fillBuckets(ranges, quartersAfter([free]), 'USD', payment), 'USD')).toMatchObject({ order_count: 1, item_quantity: 1, total: 0 });
  });

  it('reads hour items written before the day items as the same quarters, and adds both', () => {
    const at = (time: string) => Date.parse(`2027-10-02T${time}Z`);
    const before = [orderSaleEntry(scope, sale(at('13:40:00'), 'EUR', 4, 8)), refundSaleEntry(scope, { createdMs: at('13:50:00'), currency: 'EUR', settlementCurrency: 'USD', total: 1, settlementTotal: 2 })];
    const after = [orderSaleEntry(scope, sale(at('13:55:00'), 'USD', 10, 10)), orderSaleEntry(scope, sale(at('16:20:00'), 'EUR', 4, 8))];
    // The format the hour entries wrote: `<quarter><kind><C><S><metric>`, zeros included.
    expect(legacyHourItemsOf(before)[0]).toMatchObject({ sk: 'hour#2027-10-02T13', hour_ms: at('13:00:00'), '2oEURUSDT': 400, '2xEURUSDT': 800, '2oEURUSDd': 0, '3rEURUSDr': 100, '3yEURUSDr': 200 });
    const nonZero = (quarters: SalesQuarter[]) => quarters.map((quarter) => ({ ...quarter, counters: quarter.counters.filter(([, value]) => value !== 0).sort() }));
    expect(nonZero(quartersOf(legacyHourItemsOf(before)))).toEqual(nonZero(quartersAfter(before)));
    // Lord Howe (+10:30 in October after the 3rd, +11 before): the quarters land in its 3 October.
    const ranges = bucketsOf(Date.parse('2027-10-01T13:30:00Z'), Date.parse('2027-10-03T12:59:59.999Z'), 'Australia/Lord_Howe', 'day')!;
    const mixed = fillBuckets(ranges, quartersOf([...legacyHourItemsOf(before), ...dayItemsOf(after)]), 'USD', payment);
    const whole = fillBuckets(ranges, quartersAfter([...before, ...after]), 'USD', payment);
    expect(mixed).toEqual(whole);
    expect(summaryOf(mixed, 'USD')).toMatchObject({ order_count: 3, total: 26, refund_count: 1, refunded: 2 });
  });

  it('refuses more buckets than the limits', () => {
    expect(bucketsOf(Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-12-31T23:59:59.999Z'), 'UTC', 'day')).toHaveLength(365);
    expect(bucketsOf(Date.parse('2024-01-01T00:00:00Z'), Date.parse('2025-01-01T00:00:00Z'), 'UTC', 'day')).toBeUndefined();
    expect(bucketsOf(Date.parse('2016-01-01T00:00:00Z'), Date.parse('2025-12-31T23:59:59.999Z'), 'UTC', 'month')).toHaveLength(120);
    expect(bucketsOf(Date.parse('2016-01-01T00:00:00Z'), Date.parse('2026-01-01T00:00:00Z'), 'UTC', 'month')).toBeUndefined();
  });
});
