/**
 * Cold start-up of `npm start` (issue 22 item 8): from spawn to the first answered request, a
 * `GET /api/v1/products` with the seeded live secret token, on an empty data directory (the first
 * start seeds the account) and on one with data (a restart), as min / median / max over `--runs`.
 * With `--baseline <git ref>` the same is measured for that commit (a temporary `git worktree`)
 * in alternating runs (baseline, current, baseline, ...), so machine noise falls on both alike
 * and before and after print in one run.
 *
 *   npm run bench:startup [-- --runs 7] [-- --baseline <git ref>] [-- --direct]
 *
 * Each run spawns `npm start` in its own process group, as a developer does (`--direct`: its
 * `start` script through `sh -c`, without npm's own start-up), polls for bootstrap.json and the
 * first 200, then sends SIGTERM to the group and waits until every process of it is gone (the
 * data directory is one process's at a time). Also printed: the time to the listening line.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, tempDataDir } from '../test/support/runtime-process';
import { checkOutBaseline, commitTitle, repositoryRoot, type BaselineTree } from './baseline-tree';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    baseline: { type: 'string' },
    direct: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);

/** One start: spawn → listening line, and spawn → first 200 of the product list (ms). */
interface Sample {
  listening: number;
  firstAnswer: number;
}

const pause = (ms: number) => new Promise((resolvePause) => setTimeout(resolvePause, ms));

/** Whether any process of the group `pgid` is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One cold start of the tree at `root` on `dataDir`, measured, then stopped. */
async function measure(root: string, dataDir: string): Promise<Sample> {
  const port = await freePort();
  const env = { ...process.env, NODE_OPTIONS: '', PORT: String(port), CARTWHEEL_DATA_DIR: dataDir };
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const started = performance.now();
  const child = values.direct
    ? spawn('sh', ['-c', script], { cwd: root, detached: true, env: { ...env, PATH: `${join(root, 'node_modules/.bin')}${delimiter}${process.env.PATH}` }, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('npm', ['start'], { cwd: root, detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let listening = 0;
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    if (!listening && output.includes('Cartwheel listening on')) listening = performance.now() - started;
  });
  child.stderr!.on('data', (chunk) => (output += chunk));
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    const bootstrapFile = join(dataDir, 'bootstrap.json');
    for (;;) {
      if (exited && !groupAlive(child.pid!)) throw new Error(`The runtime exited while starting:\n${output}`);
      if (performance.now() - started > 120_000) throw new Error(`No answer within 120 s:\n${output}`);
      // bootstrap.json is written before the runtime serves; on a restart it is there already.
      const token = existsSync(bootstrapFile) ? readToken(bootstrapFile) : undefined;
      if (token) {
        const answer = await fetch(`http://127.0.0.1:${port}/api/v1/products`, { headers: { Authorization: `Bearer ${token}` } }).then(
          async (response) => ({ status: response.status, text: await response.text() }),
          () => undefined,
        );
        if (answer?.status === 200) break;
        if (answer && answer.status !== 503) throw new Error(`GET /products answered ${answer.status}: ${answer.text}`);
      }
      await pause(5);
    }
    const firstAnswer = performance.now() - started;
    return { listening: listening || firstAnswer, firstAnswer };
  } finally {
    if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGTERM');
    const deadline = performance.now() + 15_000;
    while (groupAlive(child.pid!)) {
      if (performance.now() > deadline) process.kill(-child.pid!, 'SIGKILL');
      await pause(20);
    }
  }
}

/** The live secret token of bootstrap.json, or undefined while it is being written. */
function readToken(file: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { tokens: { live_secret: string } }).tokens.live_secret;
  } catch {
    return undefined;
  }
}

/** min / median / max of `samples`, in seconds. */
function spread(samples: number[]): { min: number; median: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { min: sorted[0]! / 1000, median: median / 1000, max: sorted[sorted.length - 1]! / 1000 };
}

const trees: Array<{ name: string; root: string; title: string; tree?: BaselineTree }> = [{ name: 'current', root: repositoryRoot(), title: `${commitTitle()} (+ working tree)` }];
let baselineTree: BaselineTree | undefined;
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    baselineTree?.remove();
    process.exit(130);
  });
}

try {
  if (values.baseline) {
    baselineTree = checkOutBaseline(values.baseline);
    trees.unshift({ name: 'baseline', root: baselineTree.root, title: baselineTree.title, tree: baselineTree });
  }
  console.log(`Start-up bench: ${runs} runs each, spawn of ${values.direct ? "the start script (sh -c, no npm)" : 'npm start'} to the first 200 of GET /api/v1/products`);
  for (const tree of trees) console.log(`  ${tree.name.padEnd(8)} ${tree.title.slice(0, 100)}`);

  const results = new Map<string, Record<'empty' | 'data', Sample[]>>(trees.map((tree) => [tree.name, { empty: [], data: [] }]));
  // A data directory with data per tree, seeded by one unmeasured start: every later start on it
  // is a restart (bootstrap.json, table, queues and objects read back).
  const withData = new Map(trees.map((tree) => [tree.name, tempDataDir()]));
  for (const tree of trees) await measure(tree.root, withData.get(tree.name)!);
  for (let run = 0; run < runs; run++) {
    for (const tree of trees) {
      const empty = await measure(tree.root, tempDataDir());
      const data = await measure(tree.root, withData.get(tree.name)!);
      results.get(tree.name)!.empty.push(empty);
      results.get(tree.name)!.data.push(data);
      console.log(`  run ${run + 1} ${tree.name.padEnd(8)} empty ${(empty.firstAnswer / 1000).toFixed(2)} s, with data ${(data.firstAnswer / 1000).toFixed(2)} s`);
    }
  }

  console.log('\nSpawn → first answered product list (s): min / median / max   [spawn → listening line, median]');
  const format = (samples: Sample[]) => {
    const first = spread(samples.map((sample) => sample.firstAnswer));
    const line = spread(samples.map((sample) => sample.listening));
    return `${first.min.toFixed(2)} / ${first.median.toFixed(2)} / ${first.max.toFixed(2)}   [${line.median.toFixed(2)}]`;
  };
  for (const mode of ['empty', 'data'] as const) {
    console.log(`  ${mode === 'empty' ? 'empty data dir' : 'with data     '}`);
    for (const tree of trees) console.log(`    ${tree.name.padEnd(8)} ${format(results.get(tree.name)![mode])}`);
    if (baselineTree) {
      const median = (name: string) => spread(results.get(name)![mode].map((sample) => sample.firstAnswer)).median;
      console.log(`    current/baseline median: ${(median('current') / median('baseline')).toFixed(2)}`);
    }
  }
} finally {
  baselineTree?.remove();
}
