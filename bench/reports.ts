/**
 * The sales report (commerce.md §12) over a year of 50,000 orders: latency of a report by day
 * (365 buckets) and by month (12), and DynamoDB items read by each. Not a test: it prints figures.
 *
 * Seeding 50,000 orders over HTTP takes about an hour on a loaded 2-core machine, so the bench
 * seeds the aggregates directly: each order's real entry (`orderSaleEntry`, what checkout writes
 * in its transaction) is built, the entries of one hour are summed into that hour's item, and the
 * items are written to a local DynamoDB emulator (the one the runtime uses). The report is then
 * read the way `GET /reports/sales` reads it (`readSalesHours` + bucketing in the zone); the HTTP
 * layer around it (authentication, rendering) is what `npm run bench:http` measures.
 *
 *   npm run bench:reports [-- --orders 50000 --runs 30 --zone America/New_York]
 */
import { parseArgs } from 'node:util';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DateTime } from 'luxon';
import { Harness, emulatedStore } from '../test/local/fixtures/dynamo-harness';
import { configureStore, db, table } from '../shared/store/client';
import { orderSaleEntry, saleOfOrder } from '../shared/modules/reports';
import { readSalesHours } from '../shared/modules/reports/sales-store';
import { bucketsOf, fillBuckets, summaryOf } from '../shared/modules/reports/sales-report';
import { readPaymentSettings } from '../shared/modules/accounts';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '50000' }, runs: { type: 'string', default: '30' }, zone: { type: 'string', default: 'America/New_York' } } });
const orderCount = Number(values.orders);
const runs = Number(values.runs);
const zone = values.zone!;
const scope = { accountId: 'BENCHREPORTS', mode: 'test' as const };

const harness = new Harness();
const { emulator } = await harness.startWithTable();
configureStore(emulatedStore(emulator.endpoint));

const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]!;

try {
  // A year of orders, spread evenly (one every ~10.5 minutes), amounts varying.
  const yearStart = DateTime.fromISO('2027-01-01T00:00:00', { zone }).toMillis();
  const yearEnd = DateTime.fromISO('2027-12-31T23:59:59.999', { zone }).toMillis();
  const step = (yearEnd - yearStart) / orderCount;
  const byHour = new Map<string, { key: Record<string, unknown>; hourMs: number; counters: Map<string, number> }>();
  const seedStarted = performance.now();
  for (let n = 0; n < orderCount; n++) {
    const createdMs = Math.floor(yearStart + n * step);
    const quantity = (n % 3) + 1;
    const subtotal = quantity * 19.5;
    const tax = Math.round(subtotal * 10) / 100;
    const totals = { currency: 'USD', settlement_currency: 'USD', subtotal, subtotal_original: subtotal, shipping: 0, shipping_original: 0, discount: 0, tax, tax_original: tax, total: subtotal + tax, total_original: subtotal + tax, settlement_subtotal: subtotal, settlement_subtotal_original: subtotal, settlement_shipping: 0, settlement_shipping_original: 0, settlement_discount: 0, settlement_tax: tax, settlement_tax_original: tax, settlement_total: subtotal + tax, settlement_total_original: subtotal + tax, tax_inclusive: false, discount_on_gross: false };
    const entry = orderSaleEntry(scope, saleOfOrder({ created_ms: createdMs, items: [{ quantity }], totals: totals as never }));
    const update = entry.item.Update!;
    const sk = (update.Key as Record<string, string>).sk!;
    const hour = byHour.get(sk) ?? { key: update.Key as Record<string, unknown>, hourMs: update.ExpressionAttributeValues![':hour'] as number, counters: new Map() };
    for (const [placeholder, name] of Object.entries(update.ExpressionAttributeNames ?? {})) {
      const value = update.ExpressionAttributeValues![`:v${placeholder.slice(2)}`] as number;
      hour.counters.set(name, (hour.counters.get(name) ?? 0) + value);
    }
    byHour.set(sk, hour);
  }
  for (const hour of byHour.values()) {
    await db().send(new PutCommand({ TableName: table(), Item: { ...hour.key, hour_ms: hour.hourMs, ...Object.fromEntries(hour.counters) } }));
  }
  console.log(`seeded ${orderCount} orders as ${byHour.size} hour items in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const payment = await readPaymentSettings(scope.accountId);
  for (const groupBy of ['day', 'month'] as const) {
    const samples: number[] = [];
    let itemsRead = 0;
    let orders = 0;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const ranges = bucketsOf(yearStart, yearEnd, zone, groupBy)!;
      const read = await readSalesHours(scope, yearStart, yearEnd);
      const buckets = fillBuckets(ranges, read.hours, 'USD', payment);
      const summary = summaryOf(buckets, 'USD');
      samples.push(performance.now() - started);
      itemsRead = read.itemsRead;
      orders = summary.order_count;
      if (buckets.length !== (groupBy === 'day' ? 365 : 12)) throw new Error(`${buckets.length} buckets`);
    }
    if (orders !== orderCount) throw new Error(`the report counted ${orders} orders`);
    console.log(`report by ${groupBy.padEnd(5)} (${zone}, a year): p50 ${percentile(samples, 50).toFixed(1)} ms  p99 ${percentile(samples, 99).toFixed(1)} ms  items read ${itemsRead} (hours in the range: 8760; orders: ${orderCount})`);
  }
} finally {
  await harness.cleanup();
}
