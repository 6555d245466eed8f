/**
 * What observability costs (issue 28):
 *
 * 1. Per request on the local runtime: p50 of an authenticated `GET /api/v1/auths/me` with the
 *    access line and metrics on (LogLevel INFO, the default) and off (WARN, metrics disabled),
 *    two runtimes side by side, alternating rounds so machine load hits both alike.
 * 2. Per metric: what one EMF line (`countOutcome`) costs in-process, written to a pipe.
 * 3. Tracer cold start: bundles built as the stack builds functions (esbuild, ESM, minified,
 *    SDK external) that make a DynamoDB client through `traced()`, started in fresh Node
 *    processes: tracing on (as Lambda sees it: POWERTOOLS_TRACE_ENABLED=true and a function
 *    name, the Tracer bundled), off as the stack deploys it (the Tracer left out of the
 *    bundle, which is checked to hold neither it nor the X-Ray SDK), and off with the Tracer
 *    bundled but never imported (what leaving it in would cost).
 *
 *   npm run bench:observability [-- --requests 2000 --rounds 5 --starts 15 --parts 1,2,3]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { startRuntime } from '../test/support/runtime-process';
import { percentile, sequentialLatency } from './load';
import { TRACER_PACKAGE } from '../infra/cloud/platform-function';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
    starts: { type: 'string', default: '15' },
    parts: { type: 'string', default: '1,2,3' },
  },
});
const parts = new Set(values.parts.split(','));
const requests = Number(values.requests);
const rounds = Number(values.rounds);
const starts = Number(values.starts);
const root = resolve(import.meta.dirname, '..');
const median = (list: number[]) => percentile([...list].sort((a, b) => a - b), 50);

// 1. Access line and metrics per request, on and off.
if (parts.has('1')) {
const settings = {
  on: { POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' },
  off: { POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'true' },
} as const;
const dirs: string[] = [];
const runtimes = await Promise.all(
  (['on', 'off'] as const).map(async (mode) => {
    const dataDir = mkdtempSync(join(tmpdir(), `cartwheel-bench-observability-${mode}-`));
    dirs.push(dataDir);
    const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', ...settings[mode] } });
    return { mode, runtime, url: `${runtime.bootstrap.api_url}auths/me`, headers: { Authorization: `Bearer ${runtime.bootstrap.tokens.live_secret}` } };
  }),
);
const p50s: Record<'on' | 'off', number[]> = { on: [], off: [] };
try {
  for (const { url, headers } of runtimes) await sequentialLatency(url, headers, 300);
  const accessLines = runtimes[0]!.runtime.output().split('\n').filter((line) => line.includes('"message":"access"'));
  console.log(`Access line of the "on" runtime (one of ${accessLines.length} so far):\n  ${accessLines.at(-1)}`);
  for (let round = 0; round < rounds; round++) {
    for (const { mode, url, headers } of round % 2 ? [...runtimes].reverse() : runtimes) {
      p50s[mode].push((await sequentialLatency(url, headers, requests)).p50);
    }
  }
} finally {
  for (const { runtime } of runtimes) await runtime.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
const on = median(p50s.on);
const off = median(p50s.off);
console.log(`\n1. GET /api/v1/auths/me, ${rounds} rounds of ${requests} sequential requests (median of the rounds' p50s)`);
console.log(`   access line + metrics on : p50 ${on.toFixed(3)} ms   (rounds: ${p50s.on.map((value) => value.toFixed(3)).join(', ')})`);
console.log(`   off (WARN, no metrics)   : p50 ${off.toFixed(3)} ms   (rounds: ${p50s.off.map((value) => value.toFixed(3)).join(', ')})`);
console.log(`   difference               : ${(on - off).toFixed(3)} ms per request`);
}

// 2. One EMF line, in a child process writing to a pipe (as Lambda's stdout is).
if (parts.has('2')) {
const emfScript = `
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  const { countOutcome, metricNames } = await import(${JSON.stringify(join(root, 'shared/core/metrics.ts'))});
  for (let i = 0; i < 2000; i++) countOutcome(metricNames.payments, 'succeeded');
  const n = 20000, t = performance.now();
  for (let i = 0; i < n; i++) countOutcome(metricNames.payments, 'succeeded');
  process.stderr.write(String((performance.now() - t) / n));
`;
const emf = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', emfScript], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
console.log(`\n2. One EMF metric line (countOutcome), 20000 written to a pipe: ${(Number(emf.stderr.trim().split('\n').at(-1)) * 1000).toFixed(1)} µs each`);
}

// 3. Tracer cold start in a bundled function. The bundle sits in the repository so its external
// SDK packages resolve from node_modules, as they do from the Lambda runtime.
if (parts.has('3')) {
const workDir = mkdtempSync(join(root, '.bench-tracer-'));
try {
  const entry = join(workDir, 'entry.ts');
  writeFileSync(
    entry,
    `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { traced } from ${JSON.stringify(join(root, 'shared/core/tracing.ts'))};
const client = traced(new DynamoDBClient({ region: 'us-east-1' }));
export const handler = async () => client.config.region;
`,
  );
  // Two bundles as the stack builds them: with tracing on the Tracer is bundled (loaded only when
  // enabled); with tracing off it is an external module nothing reaches (infra/cloud/platform-function.ts).
  const bundleWith = async (name: string, tracerBundled: boolean): Promise<string> => {
    const outfile = join(workDir, name, 'index.mjs');
    await build({
      entryPoints: [entry],
      bundle: true,
      outfile,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      minify: true,
      mainFields: ['module', 'main'],
      banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
      // As in the stack: the Lambda runtime ships the SDK (here node_modules stands in for it).
      external: ['@aws-sdk/*', ...(tracerBundled ? [] : [TRACER_PACKAGE])],
      logLevel: 'error',
    });
    return outfile;
  };
  const bundles = { on: await bundleWith('on', true), off: await bundleWith('off', false) };
  const sizeKb = (file: string) => (statSync(file).size / 1024).toFixed(0);
  // With tracing off as deployed, the bundle holds neither the Tracer nor the X-Ray SDK, only the import nothing reaches.
  const offText = readFileSync(bundles.off, 'utf8');
  if (/aws-xray-sdk|POWERTOOLS_TRACER_CAPTURE_RESPONSE/.test(offText) || !offText.includes(TRACER_PACKAGE)) throw new Error('the tracing-off bundle still carries the Tracer');
  // Wall time of the module load, and the CPU time it took (user + system): on a loaded machine
  // the wall time mostly measures waiting for a core, the CPU time what the load itself costs.
  const coldStart = (bundle: string, tracing: boolean): { wall: number; cpu: number } => {
    const script = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(bundle)}); const wall = performance.now() - t; const u = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wall, cpu: (u.user + u.system) / 1000 }));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, AWS_LAMBDA_FUNCTION_NAME: 'bench', POWERTOOLS_TRACE_ENABLED: String(tracing), AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR' },
    });
    if (result.status !== 0) throw new Error(result.stderr);
    return JSON.parse(result.stdout) as { wall: number; cpu: number };
  };
  const variants = {
    'on (Tracer bundled, enabled)': () => coldStart(bundles.on, true),
    'off, Tracer bundled but not enabled': () => coldStart(bundles.on, false),
    'off as deployed (Tracer left out)': () => coldStart(bundles.off, false),
  } as const;
  type Variant = keyof typeof variants;
  type Start = { wall: number; cpu: number };
  const times = Object.fromEntries(Object.keys(variants).map((name) => [name, [] as Start[]])) as Record<Variant, Start[]>;
  for (const run of Object.values(variants)) run();
  for (let index = 0; index < starts; index++) {
    // Interleaved, so machine load hits every variant alike.
    for (const [name, run] of Object.entries(variants) as Array<[Variant, () => Start]>) times[name].push(run());
  }
  const medianOf = (name: Variant, measure: keyof Start) => median(times[name].map((start) => start[measure]));
  const on = 'on (Tracer bundled, enabled)' as const;
  const deployedOff = 'off as deployed (Tracer left out)' as const;
  console.log(`\n3. Cold start of a bundled function making a DynamoDB client through traced(), ${starts} fresh Node processes each, interleaved (medians of the module load)`);
  console.log(`   bundle sizes: ${sizeKb(bundles.on)} KB with the Tracer, ${sizeKb(bundles.off)} KB without`);
  for (const name of Object.keys(variants) as Variant[]) {
    const wall = medianOf(name, 'wall');
    const cpu = medianOf(name, 'cpu');
    console.log(`   ${name.padEnd(38)}: wall ${wall.toFixed(1)} ms (${(wall / medianOf(deployedOff, 'wall')).toFixed(2)}x), CPU ${cpu.toFixed(1)} ms (${(cpu / medianOf(deployedOff, 'cpu')).toFixed(2)}x the deployed off)`);
  }
  const cost = medianOf(on, 'cpu') - medianOf(deployedOff, 'cpu');
  console.log(`   Tracer cold-start cost (CPU): ${cost.toFixed(1)} ms, ${(medianOf(on, 'cpu') / medianOf(deployedOff, 'cpu')).toFixed(2)}x (budget 5 ms: ${cost < 5 ? 'within, could be on by default' : 'over, so tracing stays off by default (context tracing=true)'})`);
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
}
