/**
 * The sales report (commerce.md §12) over a year of 50,000 orders: latency of a report by day
 * (365 buckets) and by month (12), and DynamoDB items read by each, from the day items the
 * report keeps now and (before) from the hour items it kept until then, which it still reads.
 * By month the day items are read for their totals only, but for the 13 days a month boundary
 * splits. Not a test: it prints figures.
 *
 * Seeding 50,000 orders over HTTP takes about an hour on a loaded 2-core machine, so the bench
 * seeds the aggregates directly: each order's real entry (`orderSaleEntry`, what checkout writes
 * in its transaction) is built, the entries of one item are summed into that item (the day
 * items in one account, the equivalent hour items of the earlier layout in another), and the
 * items are written to a local DynamoDB emulator (the one the runtime uses). The report is then
 * read the way `GET /reports/sales` reads it (`readSalesQuarters` + bucketing in the zone); the
 * HTTP layer around it (authentication, rendering) is what `npm run bench:http` measures. The
 * emulator runs in this process, so the CPU time printed (the emulator's and the report's) is
 * the figure to compare on a loaded machine, where wall-clock latency mostly measures the load.
 *
 *   npm run bench:reports [-- --orders 50000 --runs 30 --zone America/New_York]
 */
import { parseArgs } from 'node:util';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DateTime } from 'luxon';
import { Harness, emulatedStore } from '../test/local/fixtures/dynamo-harness';
import { dayItemsOf, legacyHourItemsOf } from '../test/modules/reports/sales-items';
import { configureStore, db, table } from '../shared/store/client';
import { orderSaleEntry, saleOfOrder } from '../shared/modules/reports';
import { readSalesQuarters } from '../shared/modules/reports/sales-store';
import { bucketsOf, fillBuckets, summaryOf } from '../shared/modules/reports/sales-report';
import { readPaymentSettings } from '../shared/modules/accounts';
import type { TransactEntry } from '../shared/store/transact';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '50000' }, runs: { type: 'string', default: '30' }, zone: { type: 'string', default: 'America/New_York' } } });
const orderCount = Number(values.orders);
const runs = Number(values.runs);
const zone = values.zone!;
const layouts = [
  { name: 'hours (before)', scope: { accountId: 'BENCHHOURS', mode: 'test' as const }, itemsOf: legacyHourItemsOf },
  { name: 'days (after)', scope: { accountId: 'BENCHDAYS', mode: 'test' as const }, itemsOf: dayItemsOf },
];

const harness = new Harness();
const { emulator } = await harness.startWithTable();
configureStore(emulatedStore(emulator.endpoint));

const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]!;

try {
  // A year of orders, spread evenly (one every ~10.5 minutes), amounts varying.
  const yearStart = DateTime.fromISO('2027-01-01T00:00:00', { zone }).toMillis();
  const yearEnd = DateTime.fromISO('2027-12-31T23:59:59.999', { zone }).toMillis();
  const step = (yearEnd - yearStart) / orderCount;
  const seedStarted = performance.now();
  for (const layout of layouts) {
    const entries: TransactEntry[] = [];
    for (let n = 0; n < orderCount; n++) {
      const createdMs = Math.floor(yearStart + n * step);
      const quantity = (n % 3) + 1;
      const subtotal = quantity * 19.5;
      const tax = Math.round(subtotal * 10) / 100;
      const totals = { currency: 'USD', settlement_currency: 'USD', subtotal, subtotal_original: subtotal, shipping: 0, shipping_original: 0, discount: 0, tax, tax_original: tax, total: subtotal + tax, total_original: subtotal + tax, settlement_subtotal: subtotal, settlement_subtotal_original: subtotal, settlement_shipping: 0, settlement_shipping_original: 0, settlement_discount: 0, settlement_tax: tax, settlement_tax_original: tax, settlement_total: subtotal + tax, settlement_total_original: subtotal + tax, tax_inclusive: false, discount_on_gross: false };
      entries.push(orderSaleEntry(layout.scope, saleOfOrder({ created_ms: createdMs, items: [{ quantity }], totals: totals as never })));
    }
    const items = layout.itemsOf(entries);
    for (const item of items) await db().send(new PutCommand({ TableName: table(), Item: item }));
    // DynamoDB's item size: attribute names' bytes, plus about 1 byte per 2 digits + 1 for numbers.
    const bytes = items.reduce((total, item) => total + Object.entries(item).reduce((sum, [name, value]) => sum + name.length + (typeof value === 'number' ? Math.ceil(String(value).length / 2) + 1 : String(value).length), 0), 0);
    console.log(`${layout.name}: seeded ${orderCount} orders as ${items.length} items (about ${(bytes / 1024).toFixed(0)} KB, largest ${(Math.max(...items.map((item) => JSON.stringify(item).length)) / 1024).toFixed(1)} KB as JSON)`);
  }
  console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const payment = await readPaymentSettings(layouts[1]!.scope.accountId);
  for (const layout of layouts) {
    for (const groupBy of ['day', 'month'] as const) {
      const samples: number[] = [];
      const cpuSamples: number[] = [];
      let itemsRead = 0;
      let orders = 0;
      for (let run = 0; run < runs; run++) {
        const started = performance.now();
        const cpuStarted = process.cpuUsage();
        const ranges = bucketsOf(yearStart, yearEnd, zone, groupBy)!;
        const read = await readSalesQuarters(layout.scope, ranges);
        const buckets = fillBuckets(ranges, read.quarters, 'USD', payment);
        const summary = summaryOf(buckets, 'USD');
        samples.push(performance.now() - started);
        const cpu = process.cpuUsage(cpuStarted);
        cpuSamples.push((cpu.user + cpu.system) / 1000);
        itemsRead = read.itemsRead;
        orders = summary.order_count;
        if (buckets.length !== (groupBy === 'day' ? 365 : 12)) throw new Error(`${buckets.length} buckets`);
      }
      if (orders !== orderCount) throw new Error(`the report counted ${orders} orders`);
      console.log(`${layout.name.padEnd(15)} report by ${groupBy.padEnd(5)} (${zone}, a year): p50 ${percentile(samples, 50).toFixed(1)} ms  p95 ${percentile(samples, 95).toFixed(1)} ms  CPU p50 ${percentile(cpuSamples, 50).toFixed(0)} ms  items read ${itemsRead} (orders: ${orderCount})`);
    }
  }
} finally {
  await harness.cleanup();
}
