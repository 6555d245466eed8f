/**
 * List costs on the local runtime: a formatted, expanded product page; offset pagination at
 * deep offsets; and cursor pagination deep into a customer list.
 *
 *   npm run bench:lists [-- --quick] [-- --products 20000 --customers 1000 --requests 300 --seconds 5]
 *
 * 1. `GET /products?limit=100&formatted=true&expand=…` over 200 products: req/s at
 *    concurrency 4, and p50/p90/p99 of sequential requests.
 * 2. Deep offsets: the product list grown to 20,000 (2,000 with `--quick`), p50 of
 *    `limit=100` at offset 0, at the middle, at the last page, and `desc=true` at the middle
 *    and at 0. Target: middle / offset 0 under 3x.
 * 3. Cursor list: 1,000 customers, p50 of the first page vs the page after page 5.
 *
 * Everything is created through the HTTP API (the runtime is another process). Not a test:
 * it prints figures and ratios.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, startRuntime, type RuntimeProcess } from '../test/support/runtime-process';
import { sequentialLatency, throughput, type LatencyFigures } from './load';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    products: { type: 'string' },
    customers: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '4' },
    'create-concurrency': { type: 'string', default: '16' },
  },
});
const productCount = Number(values.products ?? (values.quick ? 2000 : 20000));
const customerCount = Number(values.customers);
const requests = Number(values.requests);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const createConcurrency = Number(values['create-concurrency']);
const LIST_SET = 200;
if (productCount < LIST_SET + 200) throw new Error(`--products must be at least ${LIST_SET + 200}`);
if (customerCount < 700) throw new Error('--customers must be at least 700 (the deep page is the 6th page of 100)');

const benchStart = performance.now();
const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-'));
let runtime: RuntimeProcess | undefined;
let cleaning: Promise<void> | undefined;
/** Set once cleanup starts: the creation workers send nothing more. */
let stopping = false;
/** Keep-alive sockets of the creation requests, destroyed on cleanup. */
const createAgent = new Agent({ keepAlive: true, maxSockets: 64 });
/**
 * Stops the runtime and removes the data dir, once, whoever asks first (the end, an error, a
 * signal). The runtime's graceful stop waits for its open connections to go idle, which a
 * request loop still sending on a keep-alive socket can postpone until the loop fails; so a
 * second SIGTERM follows (main.ts exits at once on a second signal): after 12 s at the end
 * of a run, after 2 s on an error or a signal (nothing worth finishing then), and SIGKILL
 * 8 s later.
 */
function cleanup(hurry: boolean): Promise<void> {
  stopping = true;
  cleaning ??= (async () => {
    const timers: NodeJS.Timeout[] = [];
    try {
      if (runtime) {
        const child = runtime;
        const grace = hurry ? 2_000 : 12_000;
        timers.push(setTimeout(() => void child.stop('SIGTERM'), grace));
        timers.push(setTimeout(() => void child.stop('SIGKILL'), grace + 8_000));
        const exited = child.stop('SIGTERM');
        createAgent.destroy();
        await exited;
      }
    } finally {
      for (const timer of timers) clearTimeout(timer);
      createAgent.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  })();
  return cleaning;
}
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the runtime and removing ${dataDir}`);
    void cleanup(true).finally(() => process.exit(130));
  });
}

const seconds1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const ms = (value: number) => `${value.toFixed(2)} ms`;

/**
 * Sends `count` POSTs (body from `bodyOf(i)`) with `parallel` in flight, retrying a refused
 * one up to 3 times; prints progress every `every` items. Resolves with items per second.
 */
async function createMany(
  label: string,
  url: string,
  token: string,
  count: number,
  parallel: number,
  bodyOf: (i: number) => Record<string, unknown>,
  every = 2000,
): Promise<number> {
  const start = performance.now();
  let next = 0;
  let done = 0;
  let retries = 0;
  const worker = async () => {
    while (next < count && !stopping) {
      const i = next++;
      for (let attempt = 1; ; attempt++) {
        const reply = await post(url, token, bodyOf(i));
        if (reply.status === 201) break;
        if (attempt >= 3) throw new Error(`${label} ${i}: status ${reply.status}: ${reply.text.slice(0, 300)}`);
        retries++;
      }
      done++;
      if (done % every === 0 || done === count) {
        const elapsed = performance.now() - start;
        console.log(`  ${label}: ${done}/${count} in ${seconds1(elapsed)} (${((done / elapsed) * 1000).toFixed(0)}/s${retries ? `, ${retries} retried` : ''})`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return count / ((performance.now() - start) / 1000);
}

/** One JSON POST on the creation agent; resolves with the status and the body text. */
function post(url: string, token: string, body: unknown): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolvePost, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: createAgent,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolvePost({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** One GET that must answer 200; the parsed body. */
async function getJson(url: string, token: string): Promise<any> {
  const reply = await api(url, { token });
  if (reply.status !== 200) throw new Error(`GET ${url}: status ${reply.status}: ${reply.text.slice(0, 300)}`);
  return reply.body;
}

/** Warms then measures sequential latency of one URL. */
async function latency(url: string, headers: Record<string, string>): Promise<LatencyFigures> {
  await sequentialLatency(url, headers, Math.min(50, requests));
  return sequentialLatency(url, headers, requests);
}

interface Row {
  name: string;
  figures: LatencyFigures;
  rps?: number;
  note?: string;
}
const rows: Row[] = [];
const report = (row: Row) => {
  rows.push(row);
  const f = row.figures;
  console.log(
    `  ${row.name.padEnd(40)} p50 ${ms(f.p50).padStart(10)}  p90 ${ms(f.p90).padStart(10)}  p99 ${ms(f.p99).padStart(10)}` +
      (row.rps !== undefined ? `  ${row.rps.toFixed(0)} req/s` : '') +
      (row.note ? `  (${row.note})` : ''),
  );
};

try {
  // A generous rate limit: the bench measures lists, not the limiter's refusals.
  runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000' } });
  const base = runtime.bootstrap.api_url;
  const token = runtime.bootstrap.tokens.test_secret;
  const headers = { Authorization: `Bearer ${token}` };
  const productBody = (i: number) => ({
    name: `Bench product ${i}`,
    type: i % 3 === 0 ? 'physical' : 'digital',
    headline: `Headline of product ${i}`,
    prices: [{ currency: 'USD', price: 10 + (i % 90) + 0.99 }],
    meta: { bench: true, i },
  });
  console.log(
    `Lists on the local runtime: ${requests} sequential requests per figure, concurrency ${concurrency} for ${seconds}s; ` +
      `${productCount} products${values.quick ? ' (--quick)' : ''}, ${customerCount} customers, created ${createConcurrency} at a time`,
  );

  // ---- 1. A formatted, expanded page of 100 over 200 products ---------------------------
  console.log(`\n1. GET /products?limit=100&formatted=true&expand=… over ${LIST_SET} products`);
  // Promise.all batches of 50.
  const setStart = performance.now();
  for (let from = 0; from < LIST_SET; from += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, LIST_SET - from) }, async (_, k) => {
        const reply = await post(`${base}products`, token, productBody(from + k));
        if (reply.status !== 201) throw new Error(`product ${from + k}: status ${reply.status}: ${reply.text.slice(0, 300)}`);
      }),
    );
  }
  console.log(`  created ${LIST_SET} products in ${seconds1(performance.now() - setStart)}`);
  // The product declaration has one link, `license_service` → license_service; `prices` is an
  // inline array, not a link. `license_service.products` is the 2-level path the declaration
  // allows (conventions.md §10: paths that do not apply are ignored, never an error).
  const expand = 'license_service.products';
  const listUrl = `${base}products?limit=100&formatted=true&expand=${expand}`;
  const sample = await getJson(listUrl, token);
  if (sample.data.length !== 100 || sample.total_items !== LIST_SET) {
    throw new Error(`Expected 100 of ${LIST_SET} products, got ${sample.data.length} of ${sample.total_items}`);
  }
  const expanded = sample.data.filter((p: any) => p.license_service && typeof p.license_service === 'object').length;
  const expandNote =
    expanded > 0
      ? `license_service expanded on ${expanded}/100`
      : 'no 2-level link resolves: license_service is null on every product (no license service can exist yet); measured with the parameter present';
  console.log(`  expand=${expand}: ${expandNote}`);
  console.log(`  page body ${(JSON.stringify(sample).length / 1024).toFixed(0)} KiB`);
  const listLatency = await latency(listUrl, headers);
  const listRps = await throughput(listUrl, headers, concurrency, seconds);
  report({ name: 'products formatted+expand, 100 of 200', figures: listLatency, rps: listRps, note: expanded ? undefined : 'expand resolves nothing' });
  const plainLatency = await latency(`${base}products?limit=100`, headers);
  report({ name: 'products plain, 100 of 200', figures: plainLatency, note: 'same page, no formatted/expand, for reference' });

  // ---- 2. Deep offsets --------------------------------------------------------------------
  // Why deep offsets stay cheap (shared/store/offset-index.ts, readOffsetPage): products carry
  // a creation sequence number and are listed under gsi1 with sort key `<bucket>#<seq>`, 100
  // sequence numbers per bucket, and a counter item per bucket is updated in the same
  // transaction as each create/delete. A page at `offset` is one Query of the bucket counters
  // (one small item per 100 products: 200 items at 20,000, well under 1 MB, so one page),
  // a walk over those counts in memory to the bucket holding position `offset`, then one gsi1
  // Query starting at that bucket's key, reading at most skip + limit ≤ 199 items (two
  // buckets). Nothing reads the records in front of the page, so the cost at offset 10,000
  // differs from offset 0 only by the in-memory walk; `desc=true` walks the counters from the
  // end and queries backwards. The total comes from the same counters.
  console.log(`\n2. Deep offsets: GET /products?limit=100&offset=… over ${productCount} products`);
  const createRate = await createMany('products', `${base}products`, token, productCount - LIST_SET, createConcurrency, (i) => productBody(LIST_SET + i));
  const middle = Math.min(10000, Math.floor(productCount / 2));
  const last = productCount - 100;
  const offsets = [
    { name: 'offset=0', query: 'offset=0', first: 0 },
    { name: `offset=${middle}`, query: `offset=${middle}`, first: middle },
    { name: `offset=${last}`, query: `offset=${last}`, first: last },
    { name: `desc=true&offset=${middle}`, query: `desc=true&offset=${middle}`, first: productCount - 1 - middle },
    // The reverse direction at offset 0, to tell the cost of reading backwards from the cost of
    // depth. Sequence numbers start at 1, so bucket 0 holds 99 products and the last bucket 1
    // (at 20,000): ascending offset 10000 starts 1 product into its bucket (the gsi1 Query
    // reads 101 items), descending offset 10000 starts 99 in (reads 199, the "two buckets"
    // bound). The desc figure is that in-bucket skip, not direction or depth: with 2,000
    // products, ascending offset=1098 (skip 99) costs as much as desc offset=1000, and desc
    // offset=902 (skip 1) as little as offset=0.
    { name: 'desc=true&offset=0', query: 'desc=true&offset=0', first: productCount - 1 },
  ];
  const offsetFigures: Record<string, LatencyFigures> = {};
  for (const entry of offsets) {
    const url = `${base}products?limit=100&${entry.query}`;
    // Check the page: 100 items of the whole total, starting at the product in position
    // `first` of the ascending order (products were created concurrently, so names do not
    // follow positions; the check reads position `first` alone with limit=1).
    const page = await getJson(url, token);
    const at = await getJson(`${base}products?limit=1&offset=${entry.first}`, token);
    if (page.total_items !== productCount || page.data.length !== 100 || page.data[0].product_id !== at.data[0]?.product_id) {
      throw new Error(`${entry.name}: expected 100 of ${productCount} from position ${entry.first}, got ${page.data.length} of ${page.total_items}`);
    }
    offsetFigures[entry.name] = await latency(url, headers);
    report({ name: `products ${entry.name}`, figures: offsetFigures[entry.name]! });
  }
  const base0 = offsetFigures['offset=0']!.p50;
  const ratio = (name: string) => offsetFigures[name]!.p50 / base0;
  const descRatio = () => offsetFigures[`desc=true&offset=${middle}`]!.p50 / offsetFigures['desc=true&offset=0']!.p50;
  console.log(
    `  p50 ratio offset=${middle}/offset=0: ${ratio(`offset=${middle}`).toFixed(2)}x (target < 3x)   ` +
      `offset=${last}: ${ratio(`offset=${last}`).toFixed(2)}x   desc=true&offset=${middle}: ${ratio(`desc=true&offset=${middle}`).toFixed(2)}x   ` +
      `desc=true&offset=${middle}/desc=true&offset=0: ${descRatio().toFixed(2)}x`,
  );
  // The formatted+expanded page again, now over the whole set (more bucket counters to read).
  const bigListLatency = await latency(listUrl, headers);
  report({ name: `products formatted+expand, 100 of ${productCount}`, figures: bigListLatency });

  // ---- 3. Cursor list ---------------------------------------------------------------------
  console.log(`\n3. Cursor list: GET /customers?limit=100 over ${customerCount} customers`);
  const customerRate = await createMany(
    'customers',
    `${base}customers`,
    token,
    customerCount,
    createConcurrency,
    (i) => ({ name: `Bench customer ${i}`, email: `customer${i}@example.com`, company_name: `Company ${i % 50}` }),
    500,
  );
  const firstUrl = `${base}customers?limit=100`;
  // Walk pages 1–5; page 5's next_page_after_item opens page 6 (customers 501–600).
  let cursor: string | null = null;
  for (let pageNumber = 1; pageNumber <= 5; pageNumber++) {
    const page: any = await getJson(cursor ? `${firstUrl}&after_item=${encodeURIComponent(cursor)}` : firstUrl, token);
    if (page.data.length !== 100 || !page.next_page_after_item) throw new Error(`customers page ${pageNumber}: ${page.data.length} items, next ${page.next_page_after_item}`);
    cursor = page.next_page_after_item;
  }
  const deepUrl = `${firstUrl}&after_item=${encodeURIComponent(cursor!)}`;
  const deepPage = await getJson(deepUrl, token);
  if (deepPage.data.length !== 100) throw new Error(`customers page 6: ${deepPage.data.length} items`);
  const cursorFirst = await latency(firstUrl, headers);
  report({ name: 'customers first page', figures: cursorFirst });
  const cursorDeep = await latency(deepUrl, headers);
  report({ name: 'customers after_item of page 5', figures: cursorDeep });
  console.log(`  p50 ratio page 6/page 1: ${(cursorDeep.p50 / cursorFirst.p50).toFixed(2)}x`);

  // ---- Summary ----------------------------------------------------------------------------
  const total = performance.now() - benchStart;
  const line = (cells: string[]) => `${cells[0]!.padEnd(42)}${cells.slice(1).map((cell) => cell.padStart(11)).join('')}`;
  console.log(`\nSummary (sequential latency over ${requests} requests; req/s at concurrency ${concurrency})`);
  console.log(line(['list', 'p50 ms', 'p90 ms', 'p99 ms', 'req/s']));
  for (const row of rows) {
    const f = row.figures;
    console.log(line([row.name, f.p50.toFixed(2), f.p90.toFixed(2), f.p99.toFixed(2), row.rps !== undefined ? row.rps.toFixed(0) : '-']));
  }
  console.log(line([`ratio p50 offset=${middle} / offset=0`, `${ratio(`offset=${middle}`).toFixed(2)}x`, '(< 3x)', '', '']));
  console.log(line([`ratio p50 offset=${last} / offset=0`, `${ratio(`offset=${last}`).toFixed(2)}x`, '', '', '']));
  console.log(line([`ratio p50 desc offset=${middle} / offset=0`, `${ratio(`desc=true&offset=${middle}`).toFixed(2)}x`, '', '', '']));
  console.log(line([`ratio p50 desc offset=${middle} / desc offset=0`, `${descRatio().toFixed(2)}x`, '', '', '']));
  console.log(line(['ratio p50 customers page 6 / page 1', `${(cursorDeep.p50 / cursorFirst.p50).toFixed(2)}x`, '', '', '']));
  console.log(`expand: ${expandNote}`);
  console.log(
    `creation over HTTP (${createConcurrency} in flight): ${createRate.toFixed(0)} products/s, ${customerRate.toFixed(0)} customers/s; total run ${seconds1(total)}`,
  );
  await cleanup(false);
} catch (error) {
  // Requests in flight fail once a signal stopped the runtime; only a real error is reported.
  if (!interrupted) {
    console.error(error);
    process.exitCode = 1;
  }
  await cleanup(true);
}
