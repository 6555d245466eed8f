/**
 * Checkout and catalogue-read speed of the current tree against a baseline commit, in one run
 * (issue 12): both runtimes are started side by side (the baseline from a temporary
 * `git worktree` of `--baseline`) and driven by the same client in alternating rounds
 * (baseline, current, baseline, current, ...) so machine noise falls on both alike. Each
 * runs as its own `npm start` runs it: with the Node options of its own package.json
 * (`--same-node-options`: the baseline gets the current tree's too, to compare code alone).
 *
 *   npm run bench:checkout [-- --checkouts 200 --concurrent 400 --shoppers 8 --reads 400]
 *                          [-- --baseline <git ref> | --no-baseline] [-- --client http|fetch]
 *                          [-- --same-node-options]
 *
 * Prints checkouts per second one at a time and with 8 shoppers, p50/p99 per checkout and per
 * step (token → cart → pay → order read), an authenticated catalogue read (`GET products?limit=50`,
 * secret token), the ratios current/baseline, and per step the DynamoDB calls and sequential
 * round trips with an on-paper cloud estimate from them (`cloud-estimate.ts`), cold (each
 * step after a pause that lets the one-second caches lapse) and warm (back to back). Costs come
 * from the `x-cartwheel-dynamodb` header: after the timed runs the baseline is restarted with
 * the current meter added (`addMeter`), so both are counted the same way; where the meter
 * cannot be added, the baseline's calls come from its emulator's `/_local/metrics` and its
 * rounds are unknown. The shoppers use `node:http` with keep-alive (`--client fetch`: Node's
 * fetch, as before; see http-client.ts). Not a test: it prints figures.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { RUNTIME_NODE_OPTIONS, startNodeOptions, startRuntime, tempDataDir, type RuntimeProcess } from '../test/support/runtime-process';
import { addMeter, checkOutBaseline, commitTitle, type BaselineTree } from './baseline-tree';
import { printReport, type Figures } from './checkout-report';
import { closeHttpClient } from './http-client';
import { CATALOGUE_SIZE, concurrentCheckouts, QUIET_MS, Shop, type ClientName } from './shopper';

const { values } = parseArgs({
  options: {
    checkouts: { type: 'string', default: '200' },
    concurrent: { type: 'string', default: '400' },
    shoppers: { type: 'string', default: '8' },
    reads: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '8' },
    baseline: { type: 'string', default: '4876dda' },
    'no-baseline': { type: 'boolean', default: false },
    client: { type: 'string', default: 'http' },
    'same-node-options': { type: 'boolean', default: false },
  },
});
const sequentialCount = Number(values.checkouts);
const concurrentCount = Number(values.concurrent);
const shoppers = Number(values.shoppers);
const readCount = Number(values.reads);
const roundCount = Number(values.rounds);
const baselineRef = values['no-baseline'] ? undefined : values.baseline!;
if (values.client !== 'http' && values.client !== 'fetch') {
  console.error(`--client must be http or fetch, not ${values.client}`);
  process.exit(2);
}
const client = values.client as ClientName;

const RUNTIME_ENV = { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' };

const benchStart = performance.now();
const clock = () => `[${((performance.now() - benchStart) / 1000).toFixed(0).padStart(4)} s]`;
const progress = (line: string) => console.log(`${clock()} ${line}`);

// ---- Start-up and clean-up --------------------------------------------------------------
let baselineTree: BaselineTree | undefined;
const runtimes: RuntimeProcess[] = [];
let cleaning: Promise<void> | undefined;
/** Stops the runtimes (SIGKILL after 12 s) and removes the baseline worktree, once. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all(
      runtimes.map(async (runtime) => {
        const timer = setTimeout(() => void runtime.stop('SIGKILL'), 12_000);
        await runtime.stop('SIGTERM');
        clearTimeout(timer);
      }),
    );
    baselineTree?.remove();
    closeHttpClient();
  })();
  return cleaning;
}
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // Ctrl-C reaches this process twice (from the terminal, and relayed by the tsx wrapper):
  // the second must not kill it before the worktree is removed.
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping the runtimes${baselineTree ? ` and removing ${baselineTree.root}` : ''}`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** `n` split into `parts` near-equal positive sizes. */
function split(n: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor((n * (i + 1)) / parts) - Math.floor((n * i) / parts)).filter((size) => size > 0);
}

const emptyFigures = (): Figures => ({
  sequential: { samples: [], ms: 0 },
  concurrent: { samples: [], ms: 0 },
  reads: { samples: [], ms: 0 },
  counted: [],
  countedReads: [],
  backToBack: [],
  backToBackReads: [],
});

/** Emulator calls in all, per shop. */
async function emulatorTotals(shops: Shop[]): Promise<number[]> {
  return Promise.all(shops.map(async (shop) => Object.values(await shop.emulatorCalls()).reduce((a, b) => a + b, 0)));
}

/**
 * Waits until no runtime has made a DynamoDB call for 300 ms (the background work of earlier
 * checkouts, such as event delivery, is done), at most 10 s: a turn then pays for nothing the
 * other runtime left running. Resolves with whether it got quiet.
 */
async function settle(shops: Shop[]): Promise<boolean> {
  const deadline = performance.now() + 10_000;
  let last = await emulatorTotals(shops);
  while (performance.now() < deadline) {
    await sleep(300);
    const now = await emulatorTotals(shops);
    if (now.every((total, i) => total === last[i])) return true;
    last = now;
  }
  return false;
}

/**
 * Runs `work` on each shop in turn, `sizes.length` times (A, B, A, B, ...), each turn after
 * `settle`, printing a line per round.
 */
async function alternate(label: string, shops: Shop[], sizes: number[], work: (shop: Shop, size: number) => Promise<{ ms: number; count: number; unit: string }>) {
  for (const [round, size] of sizes.entries()) {
    const parts: string[] = [];
    for (const shop of shops) {
      if (!(await settle(shops))) parts.push('(not quiet after 10 s)');
      const { ms, count, unit } = await work(shop, size);
      parts.push(`${shop.name} ${((count / ms) * 1000).toFixed(1)} ${unit}/s`);
    }
    progress(`${label} round ${round + 1}/${sizes.length} (${sizes[round]} each): ${parts.join(', ')}`);
  }
}

try {
  const currentTitle = commitTitle();
  console.log(`Checkout bench: current tree (${currentTitle}${baselineRef ? `) vs baseline ${baselineRef}` : '), no baseline'}`);
  console.log(
    `  ${sequentialCount} checkouts one at a time, ${concurrentCount} with ${shoppers} shoppers, ${readCount} catalogue reads; ` +
      `each in ${roundCount} alternating rounds; client: ${client === 'http' ? 'node:http, keep-alive' : 'fetch'}`,
  );
  if (baselineRef) {
    baselineTree = checkOutBaseline(baselineRef);
    progress(`baseline ${baselineTree.title} checked out to ${baselineTree.root}`);
  }
  const baselineOptions = baselineTree && (values['same-node-options'] ? [...RUNTIME_NODE_OPTIONS] : startNodeOptions(baselineTree.root));
  const [current, baseline] = await Promise.all([
    startRuntime({ dataDir: tempDataDir(), env: RUNTIME_ENV }),
    baselineTree ? startRuntime({ dataDir: tempDataDir(), env: RUNTIME_ENV, root: baselineTree.root, nodeOptions: baselineOptions }) : undefined,
  ]);
  const shown = (options: readonly string[]) => options.join(' ') || '(none)';
  progress(`Node options: current ${shown(RUNTIME_NODE_OPTIONS)}${baselineOptions ? `; baseline ${shown(baselineOptions)}${values['same-node-options'] ? ' (--same-node-options)' : ' (its own npm start)'}` : ''}`);
  runtimes.push(current, ...(baseline ? [baseline] : []));
  const shops = [...(baseline ? [new Shop('baseline', baseline, client)] : []), new Shop('current', current, client)];
  progress(`runtimes started: ${shops.map((shop) => `${shop.name} ${shop.runtime.url}`).join(', ')}`);
  const figures = new Map(shops.map((shop) => [shop.name, emptyFigures()]));
  const of = (shop: Shop) => figures.get(shop.name)!;

  for (const shop of shops) await shop.setUp();
  progress(`set up: the bench e-book and ${CATALOGUE_SIZE} catalogue products on each`);
  for (const shop of shops) {
    for (let i = 0; i < 10; i++) await shop.checkout();
    for (let i = 0; i < 20; i++) await shop.catalogueRead();
  }
  progress('warmed up: 10 checkouts and 20 catalogue reads on each');

  // ---- Speed -------------------------------------------------------------------------------
  const before = await emulatorTotals(shops);
  await alternate('one at a time', shops, split(sequentialCount, roundCount), async (shop, size) => {
    const started = performance.now();
    for (let i = 0; i < size; i++) of(shop).sequential.samples.push(await shop.checkout());
    const ms = performance.now() - started;
    of(shop).sequential.ms += ms;
    return { ms, count: size, unit: 'checkouts' };
  });
  await settle(shops); // the last checkouts' background work (event delivery) belongs to the run
  const after = await emulatorTotals(shops);
  for (const [i, shop] of shops.entries()) of(shop).sequentialEmulatorCalls = (after[i]! - before[i]!) / of(shop).sequential.samples.length;
  await alternate(`${shoppers} shoppers`, shops, split(concurrentCount, roundCount), async (shop, size) => {
    const { samples, ms } = await concurrentCheckouts(shop, size, shoppers);
    of(shop).concurrent.samples.push(...samples);
    of(shop).concurrent.ms += ms;
    return { ms, count: size, unit: 'checkouts' };
  });
  await alternate('catalogue reads', shops, split(readCount, roundCount), async (shop, size) => {
    const started = performance.now();
    for (let i = 0; i < size; i++) of(shop).reads.samples.push(await shop.catalogueRead());
    const ms = performance.now() - started;
    of(shop).reads.ms += ms;
    return { ms, count: size, unit: 'reads' };
  });

  // ---- Costs -------------------------------------------------------------------------------
  // The baseline was timed as it is; for counting it gets the current meter (same data, same
  // port), so its calls and rounds are counted exactly as the current tree's are.
  let meter: string | undefined;
  if (baselineTree && baseline) {
    meter = addMeter(baselineTree);
    if (meter === 'added') {
      await baseline.stop();
      const metered = await baseline.restart();
      runtimes.splice(runtimes.indexOf(baseline), 1, metered);
      shops[0] = new Shop('baseline', metered, client);
      progress('baseline restarted with the per-request meter added (for counting only; it was timed without it)');
    } else if (meter !== 'native') {
      progress(`baseline meter not added (${meter}): its calls come from the emulator, rounds unknown`);
    }
  }
  for (const shop of shops) {
    for (let i = 0; i < 5; i++) await shop.checkout(); // the restarted baseline's caches, and the same for both
    for (let i = 0; i < 5; i++) await shop.catalogueRead();
    for (let i = 0; i < 3; i++) of(shop).counted.push(await shop.checkout(true));
    for (let i = 0; i < 3; i++) of(shop).countedReads.push(await shop.catalogueRead(true));
    for (let i = 0; i < 10; i++) of(shop).backToBack.push(await shop.checkout());
    for (let i = 0; i < 10; i++) of(shop).backToBackReads.push(await shop.catalogueRead());
  }
  progress(`counted on each, after 5 warm-up checkouts and reads: 3 checkouts and 3 reads step by step (${QUIET_MS} ms quiet before each step), then 10 of each back to back`);

  const nodeOptions = baselineTree && (values['same-node-options'] ? "both with the current tree's Node options" : 'each with its own npm start Node options');
  printReport({ shops, figures: of, currentTitle, baseline: baselineTree, meter, shoppers, nodeOptions });
  progress('done');
  await cleanup();
} catch (error) {
  if (!interrupted) {
    console.error(error);
    process.exitCode = 1;
  }
  await cleanup();
}
