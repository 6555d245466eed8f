/**
 * The local function runner (functions.md §11, issue 23): what a call costs on top of the
 * handler itself, and what a new deployment's first call costs, with and without namespaces.
 *
 *   npm run bench:functions [-- --calls 500] [-- --colds 10]
 *
 * - Warm overhead: p50 / p99 of `runner.invoke` on a warm child (node-echo, python-echo), next
 *   to the same Node handler called in this process through the platform wrapper (`runHandler`).
 *   Target: at most 5 ms of p50 overhead.
 * - Cold start: a new deployment (settings only: same code, a new deploymentId) retires the warm
 *   child, so its first call starts a child, loads the handler and answers. Targets: 300 ms
 *   (Node), 500 ms (Python), median.
 * Each for `confine: 'auto'` (bwrap, when it works here) and `confine: 'none'`.
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { localFunctionRunner } from '../infra/local/functions';
import { findBwrap } from '../infra/local/functions/sandbox';
import type { FunctionDeployment } from '../shared/platform/ports';
import { deploymentOf, eventOf, exampleDir, memoryObjects, targetOf, tempDataDir, zipFolder } from '../test/infra/functions/support';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '500' }, colds: { type: 'string', default: '10' } } });
const calls = Number(values.calls);
const colds = Number(values.colds);

const require = createRequire(import.meta.url);
const wrapper = require('../shared/platform/function-wrapper/node/index.cjs') as {
  loadHandler(codeDir: string, handler: string): Promise<(...args: unknown[]) => unknown>;
  runHandler(fn: (...args: unknown[]) => unknown, event: unknown, context: unknown): Promise<unknown>;
};

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Times `run` `count` times after a few untimed warm-up runs. */
async function timed(count: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

// The handler in this process: the floor a child cannot beat.
const inProcessHandler = await wrapper.loadHandler(exampleDir('node-echo'), 'index.handler');
const context = { functionName: 'bench', awsRequestId: 'bench', memoryLimitInMB: '256', getRemainingTimeInMillis: () => 30_000 };
const inProcess = await timed(calls, () => wrapper.runHandler(inProcessHandler, eventOf('{}'), context));
console.log(`In process (node-echo through runHandler): p50 ${ms(percentile(inProcess, 50))}, p99 ${ms(percentile(inProcess, 99))}`);

const modes = findBwrap() ? (['auto', 'none'] as const) : (['none'] as const);
for (const confine of modes) {
  const data = tempDataDir();
  const objects = memoryObjects();
  const runner = localFunctionRunner({ dir: data.functions, objects, confine });
  console.log(`\nconfine: ${confine} (${runner.confinement()})`);
  try {
    for (const [example, runtime, handler] of [
      ['node-echo', 'nodejs22.x', 'index.handler'],
      ['python-echo', 'python3.13', 'main.handler'],
    ] as const) {
      await objects.put('functions', `${example}.zip`, await zipFolder(exampleDir(example)));
      const deployment = deploymentOf({ codeKey: `${example}.zip`, runtime, handler, environment: { REGION: 'eu' } });
      if (!(await runner.deploy(deployment)).ok) throw new Error(`${example} did not deploy`);
      const target = targetOf(deployment);
      const warm = await timed(calls, async () => {
        const outcome = await runner.invoke(target, eventOf('{}'));
        if (outcome.kind !== 'returned') throw new Error(`${example}: ${JSON.stringify(outcome)}`);
      });
      const overhead = runtime === 'nodejs22.x' ? ` (overhead p50 ${ms(percentile(warm, 50) - percentile(inProcess, 50))})` : '';
      console.log(`  ${example} warm call: p50 ${ms(percentile(warm, 50))}, p99 ${ms(percentile(warm, 99))}${overhead}`);

      const starts: number[] = [];
      let current: FunctionDeployment = deployment;
      for (let i = 0; i < colds; i++) {
        current = { ...current, deploymentId: `${deployment.deploymentId}-cold-${i}`, settingsOnly: true };
        if (!(await runner.deploy(current)).ok) throw new Error('redeploy failed');
        const started = performance.now();
        const outcome = await runner.invoke(targetOf(current), eventOf('{}'));
        starts.push(performance.now() - started);
        if (outcome.kind !== 'returned') throw new Error(`${example}: ${JSON.stringify(outcome)}`);
      }
      const target_ = runtime === 'nodejs22.x' ? 300 : 500;
      console.log(`  ${example} cold start (new deployment, first call): median ${ms(percentile(starts, 50))}, min ${ms(Math.min(...starts))}, max ${ms(Math.max(...starts))} (target ${target_} ms)`);
    }
  } finally {
    await runner.stop();
    data.cleanup();
  }
}
