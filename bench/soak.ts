/**
 * Soak: does the local runtime stay flat under a long load? Runs full checkouts (limited
 * token → cart → pay → order read, as bench/checkout.ts) and authenticated product-list reads
 * interleaved against one runtime, and prints at intervals the runtime process's resident
 * memory (VmRSS, its anonymous and file-backed parts, and the live JS heap after a full
 * collection, `/_local/metrics?gc=1`, with what the store holds by design: the read cache,
 * bounded by size, and committed transactions' tokens, held for DynamoDB's 10-minute window) and its data folder: total size, the DynamoDB folder's size and its LevelDB
 * file count (table files and logs). After warm-up both must level off.
 *
 *   npm run bench:soak [-- --quick] [-- --checkouts 10000 --reads 50000 --concurrency 4 --samples 20]
 *
 * After the work it leaves the runtime idle for `--idle` seconds (default 60) and samples once
 * more: what the process gives back when the load stops was sizing to the load, not kept data.
 *
 * `--quick` is a tenth of the defaults (1,000 checkouts, 5,000 reads). Not a test: it prints
 * the curve and the growth between the first sample after warm-up and the last.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, startRuntime, type RuntimeProcess } from '../test/support/runtime-process';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    checkouts: { type: 'string' },
    reads: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    samples: { type: 'string', default: '20' },
    products: { type: 'string', default: '50' },
    idle: { type: 'string', default: '60' },
  },
});
const scale = values.quick ? 10 : 1;
const totalCheckouts = Math.round(Number(values.checkouts ?? 10_000) / scale);
const totalReads = Math.round(Number(values.reads ?? 50_000) / scale);
const concurrency = Number(values.concurrency);
const samples = Number(values.samples);
const productCount = Number(values.products);
const idleSeconds = Number(values.idle);

const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-soak-'));
let runtime: RuntimeProcess | undefined;
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    try {
      if (runtime) {
        const child = runtime;
        const kill = setTimeout(() => void child.stop('SIGKILL'), 15_000);
        await child.stop('SIGTERM');
        clearTimeout(kill);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the runtime and removing ${dataDir}`);
    void cleanup().finally(() => process.exit(130));
  });
}

/**
 * Resident memory of process `pid` in MiB, from /proc (Linux): all of it, the anonymous part
 * (heap, native allocations) and the file-backed part (LevelDB maps its table files, so that
 * part follows the data and the kernel can drop it at will).
 */
function resident(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    if (!match) throw new Error(`no ${name} for process ${pid}`);
    return Number(match[1]) / 1024;
  };
  return { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile') };
}

/** Total size in bytes and file count under `dir`, and how many files match `pattern`. */
function folder(dir: string, pattern?: RegExp): { bytes: number; files: number; matching: number } {
  let bytes = 0;
  let files = 0;
  let matching = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    try {
      bytes += statSync(join(entry.parentPath, entry.name)).size;
    } catch {
      continue; // removed meanwhile (a compaction, a finished queue message)
    }
    files++;
    if (pattern?.test(entry.name)) matching++;
  }
  return { bytes, files, matching };
}

interface Sample {
  seconds: number;
  checkouts: number;
  reads: number;
  rssMiB: number;
  anonMiB: number;
  fileMiB: number;
  dataMB: number;
  dynamoMB: number;
  levelFiles: number;
  /** The runtime's process.memoryUsage() (MiB), from /_local/metrics?gc=1: heapMiB is the live heap after a full collection. */
  heapMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  /** The local DynamoDB read cache: keys kept and MiB of JSON text (bounded; it fills, then levels). */
  cacheEntries: number;
  cacheMiB: number;
  /** Committed transactions' ClientRequestTokens the store holds (DynamoDB's 10-minute window: it fills for 10 minutes, then levels). */
  transactionTokens: number;
}

const mb = (bytes: number) => bytes / 1_000_000;
/** The data folder's size per checkout so far, in kB: what each checkout keeps (its orders, payments, emails); it levels off when nothing else piles up. */
const perCheckout = (point: { dataMB: number; checkouts: number }) => (point.checkouts ? (point.dataMB * 1000) / point.checkouts : 0);

/** Compacts the whole LevelDB store at `dir` (the runtime stopped) and measures it again. */
async function compactTable(dir: string): Promise<ReturnType<typeof folder>> {
  // classic-level is dynalite's storage engine; loaded through dynalite, as the runtime does.
  const { ClassicLevel } = createRequire(createRequire(import.meta.url).resolve('dynalite'))('classic-level') as {
    ClassicLevel: new (location: string) => { open(): Promise<void>; compactRange(start: string, end: string): Promise<void>; close(): Promise<void> };
  };
  const db = new ClassicLevel(dir);
  await db.open();
  await db.compactRange('\u0000', '\uffff');
  await db.close();
  return folder(dir, /\.(ldb|sst|log)$/);
}

try {
  runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' } });
  const pid = runtime.child.pid!;
  const base = runtime.bootstrap.api_url;
  const account = runtime.bootstrap.account_id;
  const secret = runtime.bootstrap.tokens.test_secret;
  const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } };
  const customer = { name: 'Ada Lee', email: 'ada@example.test', billing_address: { country: 'US', postal_code: '94107' } };

  await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } });
  for (let index = 0; index < productCount; index++) {
    const created = await api(`${base}products`, {
      method: 'POST',
      token: secret,
      body: { product_id: `soak-${index}`, name: `Soak e-book ${index}`, type: 'digital', prices: [{ currency: 'USD', price: 19 + index }] },
    });
    if (created.status !== 201) throw new Error(`product ${index}: ${created.status} ${created.text}`);
  }

  const checkout = async (n: number) => {
    const token = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret })).body.token;
    const cart = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: `soak-${n % productCount}`, quantity: 1 }], customer } });
    if (cart.status !== 201) throw new Error(`cart: ${cart.status} ${cart.text}`);
    const paid = await api(`${base}carts/${cart.body.cart_id}/payments`, { method: 'POST', token, body: card });
    if (paid.status !== 201) throw new Error(`pay: ${paid.status} ${paid.text}`);
    const order = await api(`${paid.body.url}?expand=order`, { token });
    if (order.status !== 200 || !order.body.order?.order_id) throw new Error(`order: ${order.status} ${order.text}`);
  };
  const read = async (n: number) => {
    // Authenticated product list, pages of 20 at a few offsets, as the merchant's admin asks.
    const list = await api(`${base}products?limit=20&offset=${(n % 3) * 10}`, { token: secret });
    if (list.status !== 200) throw new Error(`list: ${list.status} ${list.text}`);
  };

  // One queue of work, checkouts and reads interleaved in their ratio.
  const total = totalCheckouts + totalReads;
  let nextWork = 0;
  let checkoutsDone = 0;
  let readsDone = 0;
  const isCheckout = (i: number) => Math.floor(((i + 1) * totalCheckouts) / total) > Math.floor((i * totalCheckouts) / total);
  let checkoutIndex = 0;
  let readIndex = 0;

  const started = performance.now();
  const curve: Sample[] = [];
  const sample = async () => {
    const metrics = (await api(`${runtime!.url}/_local/metrics?gc=1`)).body;
    const memory = metrics.memory as { heapUsed: number; heapTotal: number; external: number };
    const cache = metrics.read_cache as { entries: number; chars: number };
    const rss = resident(pid);
    const data = folder(dataDir);
    const dynamo = folder(join(dataDir, 'dynamodb'), /\.(ldb|sst|log)$/);
    const point: Sample = {
      seconds: (performance.now() - started) / 1000,
      checkouts: checkoutsDone,
      reads: readsDone,
      rssMiB: rss.rss,
      anonMiB: rss.anon,
      fileMiB: rss.file,
      dataMB: mb(data.bytes),
      dynamoMB: mb(dynamo.bytes),
      levelFiles: dynamo.matching,
      heapMiB: memory.heapUsed / 2 ** 20,
      heapTotalMiB: memory.heapTotal / 2 ** 20,
      externalMiB: memory.external / 2 ** 20,
      cacheEntries: cache.entries,
      cacheMiB: cache.chars / 2 ** 20,
      transactionTokens: metrics.transaction_tokens as number,
    };
    curve.push(point);
    console.log(
      `${point.seconds.toFixed(0).padStart(6)} s  ${String(point.checkouts).padStart(6)} checkouts  ${String(point.reads).padStart(6)} reads` +
        `   RSS ${point.rssMiB.toFixed(0).padStart(4)} MiB (anon ${point.anonMiB.toFixed(0).padStart(4)}, file ${point.fileMiB.toFixed(0).padStart(3)}; live heap ${point.heapMiB.toFixed(0).padStart(3)}/${point.heapTotalMiB.toFixed(0).padStart(3)}, read cache ${String(point.cacheEntries).padStart(5)} keys ${point.cacheMiB.toFixed(0).padStart(2)} MiB, ${String(point.transactionTokens).padStart(5)} tx tokens)   data ${point.dataMB.toFixed(1).padStart(6)} MB (${perCheckout(point).toFixed(1).padStart(4)} kB per checkout)` +
        `   dynamodb ${point.dynamoMB.toFixed(1).padStart(7)} MB in ${String(point.levelFiles).padStart(4)} LevelDB files`,
    );
  };

  console.log(`Soak: ${totalCheckouts} checkouts and ${totalReads} product-list reads, ${concurrency} at a time, runtime pid ${pid}`);
  await sample();
  const every = Math.max(1, Math.floor(total / samples));
  let nextSample = every;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nextWork < total) {
        const i = nextWork++;
        if (isCheckout(i)) {
          await checkout(checkoutIndex++);
          checkoutsDone++;
        } else {
          await read(readIndex++);
          readsDone++;
        }
        if (checkoutsDone + readsDone >= nextSample) {
          nextSample += every;
          await sample();
        }
      }
    }),
  );
  if (curve.at(-1)!.checkouts !== checkoutsDone || curve.at(-1)!.reads !== readsDone) await sample();
  const busy = curve.at(-1)!;
  let idle: Sample | undefined;
  if (idleSeconds > 0) {
    console.log(`(idle for ${idleSeconds} s)`);
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    await sample();
    idle = curve.pop();
  }

  // Growth after warm-up: from the sample at a quarter of the work to the last one.
  const warm = curve.find((point) => point.checkouts + point.reads >= total / 4) ?? curve[0]!;
  const last = curve.at(-1)!;
  const work = (point: Sample) => point.checkouts + point.reads;
  const rate = (from: number, to: number) => (to - from) / Math.max(1, (work(last) - work(warm)) / 1000);
  console.log('');
  console.log(`After warm-up (from ${work(warm)} to ${work(last)} requests):`);
  console.log(`  RSS            ${warm.rssMiB.toFixed(0)} → ${last.rssMiB.toFixed(0)} MiB (${rate(warm.rssMiB, last.rssMiB).toFixed(2)} MiB per 1,000 requests)`);
  console.log(`    anonymous    ${warm.anonMiB.toFixed(0)} → ${last.anonMiB.toFixed(0)} MiB (${rate(warm.anonMiB, last.anonMiB).toFixed(2)} MiB per 1,000 requests)`);
  console.log(`    file-backed  ${warm.fileMiB.toFixed(0)} → ${last.fileMiB.toFixed(0)} MiB (LevelDB's mapped table files: follows the data, reclaimable)`);
  console.log(`  JS heap        live ${warm.heapMiB.toFixed(0)} → ${last.heapMiB.toFixed(0)} MiB after a full collection (${rate(warm.heapMiB, last.heapMiB).toFixed(2)} MiB per 1,000 requests), total ${warm.heapTotalMiB.toFixed(0)} → ${last.heapTotalMiB.toFixed(0)} MiB, external ${warm.externalMiB.toFixed(0)} → ${last.externalMiB.toFixed(0)} MiB`);
  console.log(`  read cache     ${warm.cacheEntries} → ${last.cacheEntries} keys, ${warm.cacheMiB.toFixed(1)} → ${last.cacheMiB.toFixed(1)} MiB of JSON text (bounded: 50,000 keys, 32 Mi characters); transaction tokens ${warm.transactionTokens} → ${last.transactionTokens} (a 10-minute window)`);
  console.log(
    `  data folder    ${warm.dataMB.toFixed(1)} → ${last.dataMB.toFixed(1)} MB (${rate(warm.dataMB, last.dataMB).toFixed(2)} MB per 1,000 requests; per checkout ${perCheckout(warm).toFixed(1)} → ${perCheckout(last).toFixed(1)} kB: the orders, payments and emails kept, reads add nothing)`,
  );
  console.log(`  dynamodb       ${warm.dynamoMB.toFixed(1)} → ${last.dynamoMB.toFixed(1)} MB, ${warm.levelFiles} → ${last.levelFiles} LevelDB files`);
  if (idle) {
    console.log(
      `  after ${idleSeconds} s idle  RSS ${busy.rssMiB.toFixed(0)} → ${idle.rssMiB.toFixed(0)} MiB (anon ${busy.anonMiB.toFixed(0)} → ${idle.anonMiB.toFixed(0)}), heap total ${busy.heapTotalMiB.toFixed(0)} → ${idle.heapTotalMiB.toFixed(0)} MiB`,
    );
  }
  console.log(`  throughput     ${(work(last) / last.seconds).toFixed(0)} requests/s overall`);

  // What the data folder holds: the table's live data (after LevelDB compacts away superseded
  // versions) and what the other stores keep on purpose (every email sent, queue state).
  await runtime.stop('SIGTERM');
  const before = folder(join(dataDir, 'dynamodb'), /\.(ldb|sst|log)$/);
  const compacted = await compactTable(join(dataDir, 'dynamodb'));
  console.log('');
  console.log(`Data folder after the run, by part (${checkoutsDone} checkouts):`);
  for (const part of readdirSync(dataDir, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    const size = folder(join(dataDir, part.name));
    console.log(`  ${part.name.padEnd(10)} ${mb(size.bytes).toFixed(1).padStart(7)} MB in ${String(size.files).padStart(5)} files (${((size.bytes / Math.max(1, checkoutsDone)) / 1000).toFixed(1)} kB per checkout)`);
  }
  console.log(`  the table's LevelDB, compacted in full: ${mb(before.bytes).toFixed(1)} MB in ${before.matching} files → ${mb(compacted.bytes).toFixed(1)} MB in ${compacted.matching} files (live data; the rest were superseded versions LevelDB had not yet compacted)`);
} finally {
  await cleanup();
}
