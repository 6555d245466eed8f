/**
 * Hostile functions (functions.md §11): each probe is its own function (its own zip) and is
 * followed by a normal call that must work. Run with namespaces (bwrap, when this machine can)
 * and without them (`confine: 'none'`): Node's permission model and Python's audit hook are the
 * confinement then, as mistake isolation.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFunctionRunner, type LocalFunctionRunner } from '../../../infra/local/functions';
import { findBwrap } from '../../../infra/local/functions/sandbox';
import type { FunctionDeployment, FunctionRuntime, InvokeOutcome } from '../../../shared/platform/ports';
import { deploymentOf, eventOf, exampleDir, memoryObjects, node22, targetOf, tempDataDir, zipFolder } from './support';

const haveBwrap = findBwrap() !== undefined;
const repoFile = join(exampleDir('node-echo'), '..', '..', '..', 'package.json');

type Mode = 'auto' | 'none';
const modes: Mode[] = haveBwrap ? ['auto', 'none'] : ['none'];

describe.each(modes)('hostile functions (confine: %s)', (mode) => {
  const data = tempDataDir();
  const objects = memoryObjects();
  const secret = join(data.root, 'local.key');
  let runner: LocalFunctionRunner;
  let other: FunctionDeployment;
  let otherCode: string;

  beforeAll(async () => {
    mkdirSync(data.root, { recursive: true });
    writeFileSync(secret, 'platform-secret-key');
    process.env.CARTWHEEL_LOCAL_SECRET = 'platform-secret-value';
    process.env.AWS_SECRET_ACCESS_KEY = 'aws-secret-value';
    runner = localFunctionRunner({ dir: data.functions, objects, nodePath: node22, confine: mode });
    expect(runner.confinement()).toBe(mode === 'auto' ? 'bwrap' : 'none');
    await objects.put('functions', 'probes.zip', await zipFolder(exampleDir('node-probes')));
    await objects.put('functions', 'pyprobes.zip', await zipFolder(exampleDir('python-probes')));
    await objects.put('functions', 'echo.zip', await zipFolder(exampleDir('node-echo')));
    // Another function of the same account, whose code the probes try to read.
    other = deploymentOf({ codeKey: 'echo.zip', handler: 'index.handler', functionId: 'VICTIM' });
    expect(await runner.deploy(other)).toEqual({ ok: true });
    otherCode = join(data.functions, 'ACC1', 'test', 'VICTIM');
  });

  afterAll(async () => {
    await runner?.stop();
    data.cleanup();
    delete process.env.CARTWHEEL_LOCAL_SECRET;
    delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  /** Deploys one probe as its own function. */
  async function probe(runtime: FunctionRuntime, handler: string, extra: { environment?: Record<string, string>; timeoutSeconds?: number; memoryMb?: number } = {}): Promise<FunctionDeployment> {
    const deployment = deploymentOf({ codeKey: runtime === 'nodejs22.x' ? 'probes.zip' : 'pyprobes.zip', runtime, handler, ...extra });
    expect(await runner.deploy(deployment)).toEqual({ ok: true });
    return deployment;
  }

  /** Runs a probe handler in a function whose `act` handler then must still answer a normal call. */
  async function misbehave(runtime: FunctionRuntime, action: string, extra: { timeoutSeconds?: number; memoryMb?: number } = {}): Promise<InvokeOutcome> {
    const deployment = await probe(runtime, runtime === 'nodejs22.x' ? 'index.act' : 'probes.act', extra);
    const outcome = await runner.invoke(targetOf(deployment), eventOf(action));
    const after = await runner.invoke(targetOf(deployment), eventOf('count'));
    expect(after.kind).toBe('returned');
    return outcome;
  }

  async function bodyOf(deployment: FunctionDeployment): Promise<any> {
    const outcome = await runner.invoke(targetOf(deployment), eventOf());
    expect(outcome.kind).toBe('returned');
    return JSON.parse((outcome as { value: { body: string } }).value.body);
  }

  describe.each(['nodejs22.x', 'python3.13'] as const)('%s', (runtime) => {
    const node = runtime === 'nodejs22.x';
    const handler = (name: string) => (node ? `index.${name}` : `probes.${name === 'exit' ? 'exit_now' : name}`);

    it('cannot read the data directory or another function\'s code', async () => {
      // Without namespaces a Python child may read what its user can outside the private paths
      // (data directory, home, repository, /proc): /etc is checked where the confinement covers it.
      const covered = node || mode === 'auto';
      const targets = [secret, data.root, otherCode, repoFile, '/proc/1/environ', `/proc/${process.pid}/environ`, ...(covered ? ['/etc/shadow'] : [])];
      const deployment = await probe(runtime, handler('read'), { environment: { PROBE_PATH: targets.join(':') } });
      const results = await bodyOf(deployment);
      for (const target of targets) expect(results[target], target).toMatchObject({ ok: false });
      expect(JSON.stringify(results)).not.toContain('platform-secret-key');
      await bodyOf(deployment);
    });

    it('sees none of the platform\'s environment', async () => {
      const deployment = await probe(runtime, handler('env'), { environment: { REGION: 'eu' } });
      const env = await bodyOf(deployment);
      expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'REGION', 'TMPDIR', 'TZ']);
      expect(JSON.stringify(env)).not.toMatch(/platform-secret-value|aws-secret-value|CARTWHEEL_|AWS_/);
      if (mode === 'auto') expect(JSON.stringify(env)).not.toContain(data.root);
    });

    it('writes only in its scratch folder', async () => {
      const targets = ['HOME', data.root, otherCode, '/'];
      const deployment = await probe(runtime, handler('write'), { environment: { PROBE_PATH: targets.join(':') } });
      const results = await bodyOf(deployment);
      const written = Object.entries(results as Record<string, { ok: boolean }>);
      expect(written).toHaveLength(targets.length + 1);
      for (const [target, result] of written.slice(0, -1)) expect(result, target).toMatchObject({ ok: false });
      expect(written.at(-1)![1]).toMatchObject({ ok: true });
      await bodyOf(deployment);
    });

    it('cannot start processes', async () => {
      const deployment = await probe(runtime, handler('spawn'));
      const results = await bodyOf(deployment);
      for (const [what, result] of Object.entries(results)) expect(result, what).toMatchObject({ ok: false });
      await bodyOf(deployment);
    });

    it('allocating past memory_mb ends in out_of_memory', async () => {
      expect(await misbehave(runtime, 'oom', { memoryMb: 128 })).toEqual({ kind: 'out_of_memory' });
    });

    it('looping forever ends in a timeout', async () => {
      expect(await misbehave(runtime, 'loop', { timeoutSeconds: 1 })).toEqual({ kind: 'timeout' });
    });

    it('exiting mid-call is a crash', async () => {
      expect(await misbehave(runtime, 'exit')).toMatchObject({ kind: 'crashed' });
    });

    it('writing over the runner\'s channel is a crash, not the runtime\'s', async () => {
      expect(await misbehave(runtime, 'channel', { timeoutSeconds: 20 })).toMatchObject({ kind: 'crashed', message: expect.stringContaining('channel') });
    });
  });
});
