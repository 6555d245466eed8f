/**
 * The sales report (commerce.md §12) over HTTP on the manual clock: 120 orders placed around
 * local midnights on the days of the daylight-saving changes of 2027 (America/New_York 14 March
 * and 7 November, Europe/Berlin 28 March and 31 October, Australia/Lord_Howe 4 April and 3
 * October) and in Asia/Kathmandu (+05:45), plus refunds made days after their orders. For each
 * zone, by day and by month, every bucket matches what the test computes independently with
 * `Intl.DateTimeFormat` (the runtime buckets with luxon), refunds on their own dates, empty
 * buckets with zeros; New York's 23- and 25-hour days have the boundaries of the zone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu'] as const;
const DATES = ['03-13', '03-14', '03-15', '03-27', '03-28', '03-29', '04-03', '04-04', '10-02', '10-03', '10-30', '10-31', '11-06', '11-07', '11-08'];
const TIMES = ['03:50', '04:30', '05:10', '13:20', '18:10', '18:20', '22:30', '23:10'];

let runtime: RuntimeProcess;
let base: string;
let secret: string;
/** What happened, as the test saw it: each order's instant, quantity and total; each refund's instant and amount. */
const orders: Array<{ at: number; quantity: number; total: number }> = [];
const refunds: Array<{ at: number; amount: number }> = [];

const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };

/** The local calendar day (`yyyy-mm-dd`) or month (`yyyy-mm`) of an instant in `zone`, by Intl (not luxon). */
function localKey(at: number, zone: string, unit: 'day' | 'month'): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date(at)).map((part) => [part.type, part.value]));
  return unit === 'day' ? `${parts.year}-${parts.month}-${parts.day}` : `${parts.year}-${parts.month}`;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  secret = runtime.bootstrap.tokens.test_secret;
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  expect((await api(`${base}settings/tax`, { method: 'POST', token: secret, body: { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] } })).status).toBe(200);
  expect((await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'thing', name: 'Thing', type: 'digital', prices: [{ currency: 'USD', price: 2.5 }] } })).status).toBe(201);
  const instants = DATES.flatMap((date) => TIMES.map((time) => Date.parse(`2027-${date}T${time}:00Z`))).sort((a, b) => a - b);
  // The secret token pays (a limited token would expire while the clock crosses the year).
  const token = secret;
  const paidOrders: string[] = [];
  for (const [index, at] of instants.entries()) {
    expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { set: new Date(at).toISOString() } })).status).toBe(200);
    const quantity = (index % 4) + 1;
    const cart = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'thing', quantity }], customer: { name: 'Ada', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } } } });
    const paid = await api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token, body: card });
    expect(paid.status, paid.text).toBe(201);
    orders.push({ at, quantity, total: paid.body.total });
    paidOrders.push(paid.body.order.split('/').pop());
    // Every seventh step refunds 1.10 of the order made nine steps before: its own, later, date.
    if (index % 7 === 6 && index >= 9) {
      const refunded = await api(`${base}orders/${paidOrders[index - 9]}/refunds`, { method: 'POST', token: secret, body: { total: 1.1 } });
      expect(refunded.status, refunded.text).toBe(201);
      refunds.push({ at, amount: 1.1 });
    }
  }
}, 600_000);

afterAll(async () => {
  await runtime?.stop();
});

describe('sales report across daylight-saving changes', () => {
  for (const zone of ZONES) {
    for (const unit of ['day', 'month'] as const) {
      it(`${zone} by ${unit}`, async () => {
        const report = await api(`${base}reports/sales?date_start=2027-03-01&date_end=2027-11-30&group_by=${unit}&timezone=${encodeURIComponent(zone)}`, { token: secret });
        expect(report.status, report.text).toBe(200);
        expect(report.body).toMatchObject({ object: 'report', type: 'sales', test: true, currency: 'USD', timezone: zone, group_by: unit });
        const data = report.body.data as any[];
        expect(data).toHaveLength(unit === 'day' ? 275 : 9);
        const expected = new Map<string, { order_count: number; item_quantity: number; total: number; refund_count: number; refunded: number }>();
        const entry = (key: string) => expected.get(key) ?? expected.set(key, { order_count: 0, item_quantity: 0, total: 0, refund_count: 0, refunded: 0 }).get(key)!;
        for (const order of orders) {
          const figures = entry(localKey(order.at, zone, unit));
          figures.order_count++;
          figures.item_quantity += order.quantity;
          figures.total = round2(figures.total + order.total);
        }
        for (const refund of refunds) {
          const figures = entry(localKey(refund.at, zone, unit));
          figures.refund_count++;
          figures.refunded = round2(figures.refunded + refund.amount);
        }
        for (const bucket of data) {
          const key = bucket.date_start.slice(0, unit === 'day' ? 10 : 7);
          const want = expected.get(key) ?? { order_count: 0, item_quantity: 0, total: 0, refund_count: 0, refunded: 0 };
          expect({ key, order_count: bucket.order_count, item_quantity: bucket.item_quantity, total: bucket.total, refund_count: bucket.refund_count, refunded: bucket.refunded })
            .toEqual({ key, ...want });
          expect(bucket.net).toBe(round2(want.total - want.refunded));
          expect(bucket.average_order_total).toBe(want.order_count ? round2(want.total / want.order_count) : 0);
        }
        // Every order and refund landed in some bucket.
        expect(report.body.summary.order_count).toBe(orders.length);
        expect(report.body.summary.refund_count).toBe(refunds.length);
        expect(report.body.summary.total).toBe(round2(orders.reduce((sum, order) => sum + order.total, 0)));
      });
    }
  }

  it("keeps New York's short and long days whole, and formats money when asked", async () => {
    const spring = await api(`${base}reports/sales?date_start=2027-03-14&date_end=2027-03-14&timezone=America/New_York&formatted=true`, { token: secret });
    expect(spring.body.data.map((bucket: any) => [bucket.date_start, bucket.date_end])).toEqual([['2027-03-14T00:00:00-05:00', '2027-03-14T23:59:59-04:00']]);
    expect(spring.body.summary.formatted.total).toMatch(/\$/);
    const autumn = await api(`${base}reports/sales?date_start=2027-11-07&date_end=2027-11-08&timezone=America/New_York`, { token: secret });
    expect(autumn.body.data.map((bucket: any) => [bucket.date_start, bucket.date_end])).toEqual([
      ['2027-11-07T00:00:00-04:00', '2027-11-07T23:59:59-05:00'],
      ['2027-11-08T00:00:00-05:00', '2027-11-08T23:59:59-05:00'],
    ]);
    const kathmandu = await api(`${base}reports/sales?date_start=2027-03-14&date_end=2027-03-14&timezone=Asia/Kathmandu`, { token: secret });
    expect(kathmandu.body.data[0].date_start).toBe('2027-03-14T00:00:00+05:45');
  });

  it('refuses bad parameters', async () => {
    for (const [query, parameter] of [
      ['group_by=week', 'group_by'],
      ['date_start=2026-01-01&date_end=2027-12-31', 'group_by'],
      ['date_start=2017-01-01&date_end=2027-12-31&group_by=month', 'group_by'],
      ['date_start=2027-03-02&date_end=2027-03-01', 'date_end'],
      ['date_start=soon', 'date_start'],
      ['currency=EUR', 'currency'],
      ['timezone=Mars/Olympus', 'timezone'],
    ] as const) {
      const answer = await api(`${base}reports/sales?${query}`, { token: secret });
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.meta.parameter, query).toBe(parameter);
    }
  });
});
