/**
 * The local function runner driven directly (no HTTP): deployment, the settling rules of §7.3,
 * warm children and their limits, timeouts, crashes, retirement and stopping (functions.md §11).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFunctionRunner, type LocalFunctionRunner } from '../../../infra/local/functions';
import type { FunctionDeployment, InvokeOutcome } from '../../../shared/platform/ports';
import { deploymentOf, eventOf, exampleDir, memoryObjects, node22, targetOf, tempDataDir, until, zipFolder, type DeploymentSpec } from './support';

const data = tempDataDir();
const objects = memoryObjects();
let runner: LocalFunctionRunner;

beforeAll(async () => {
  runner = localFunctionRunner({ dir: data.functions, objects, nodePath: node22, idleMs: 60_000 });
  await objects.put('functions', 'echo.zip', await zipFolder(exampleDir('node-echo')));
  await objects.put('functions', 'async.zip', await zipFolder(exampleDir('node-async')));
  await objects.put('functions', 'python.zip', await zipFolder(exampleDir('python-echo')));
  await objects.put('functions', 'probes.zip', await zipFolder(exampleDir('node-probes')));
  await objects.put('functions', 'pyprobes.zip', await zipFolder(exampleDir('python-probes')));
});

afterAll(async () => {
  await runner?.stop();
  data.cleanup();
});

/** Deploys, expecting success. */
async function deployed(spec: DeploymentSpec): Promise<FunctionDeployment> {
  const deployment = deploymentOf(spec);
  expect(await runner.deploy(deployment)).toEqual({ ok: true });
  return deployment;
}

/** The parsed JSON body of a returned response. */
function bodyOf(outcome: InvokeOutcome): any {
  expect(outcome.kind).toBe('returned');
  return JSON.parse((outcome as { value: { body: string } }).value.body);
}

/** Whether a process id is alive. */
function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('deploying and calling the examples', () => {
  it('runs a callback-style CommonJS handler with only the neutral environment and its own variables', async () => {
    process.env.CARTWHEEL_TEST_SECRET = 'must-not-leak';
    const deployment = await deployed({ codeKey: 'echo.zip', handler: 'index.handler', environment: { REGION: 'eu', PATH: '/evil' } });
    const event = eventOf('{"country":"ES"}');
    const outcome = await runner.invoke(targetOf(deployment), event);
    const body = bodyOf(outcome);
    expect(body.event).toEqual(event);
    expect(body.requestId).toBe((event.requestContext as { requestId: string }).requestId);
    expect(body.functionName).toBe(deployment.functionId);
    expect(Object.keys(body.env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'REGION', 'TMPDIR', 'TZ']);
    expect(body.env).toMatchObject({ REGION: 'eu', LANG: 'C.UTF-8', TZ: 'UTC', PATH: '/usr/local/bin:/usr/bin:/bin' });
  });

  it('runs an async ES module handler and keeps its module state between calls', async () => {
    const deployment = await deployed({ codeKey: 'async.zip', handler: 'index.handler' });
    const target = targetOf(deployment);
    const first = await runner.invoke(target, eventOf('', 'GET'));
    const second = await runner.invoke(target, eventOf('', 'GET'));
    expect(first).toEqual({ kind: 'returned', value: { statusCode: 200, headers: { 'Content-Type': 'text/plain' }, body: 'GET /func/v1/FN/quotes?region=eu calls=1 remaining=true' } });
    expect((second as { value: { body: string } }).value.body).toContain('calls=2');
    // Variables are opened only when a child starts.
    expect(target.opened).toBe(1);
  });

  it('runs Python handlers: plain, async, raising, with state kept between calls', async () => {
    const plain = await deployed({ codeKey: 'python.zip', handler: 'main.handler', runtime: 'python3.13', environment: { REGION: 'eu' } });
    const first = bodyOf(await runner.invoke(targetOf(plain), eventOf('{}')));
    expect(first.env).toMatchObject({ REGION: 'eu', LANG: 'C.UTF-8', TZ: 'UTC' });
    expect(Object.keys(first.env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'REGION', 'TMPDIR', 'TZ']);
    expect(first.calls).toBe(1);
    expect(bodyOf(await runner.invoke(targetOf(plain), eventOf('{}'))).calls).toBe(2);
    const asynchronous = await deployed({ codeKey: 'python.zip', handler: 'main.async_handler', runtime: 'python3.13' });
    expect(await runner.invoke(targetOf(asynchronous), eventOf())).toEqual({ kind: 'returned', value: { statusCode: 201, body: 'async' } });
    const failing = await deployed({ codeKey: 'python.zip', handler: 'main/fail', runtime: 'python3.13' });
    expect(await runner.invoke(targetOf(failing), eventOf())).toEqual({ kind: 'error', errorType: 'ValueError', errorMessage: 'country required' });
  });

  it('finds handlers in folders: Node files by extension order and package type, Python modules by / or .', async () => {
    await objects.put('functions', 'nested.zip', await zipFolder(undefined, {
      'package.json': '{"type":"module"}',
      'src/api.js': 'export const main = async () => ({ statusCode: 200, body: "esm js" });',
      'src/api.cjs': 'exports.main = async () => ({ statusCode: 200, body: "cjs loses to js" });',
      'lib/old.cjs': 'exports.main = async () => ({ statusCode: 200, body: "cjs" });',
      'app/__init__.py': '',
      'app/routes.py': 'def quote(event, context):\n    return {"statusCode": 200, "body": "python nested"}\n',
    }));
    const cases: Array<[string, DeploymentSpec['runtime'], string]> = [
      ['src/api.main', 'nodejs22.x', 'esm js'],
      ['lib/old.main', 'nodejs22.x', 'cjs'],
      ['app/routes.quote', 'python3.13', 'python nested'],
      ['app.routes.quote', 'python3.13', 'python nested'],
    ];
    for (const [handler, runtime, body] of cases) {
      const deployment = await deployed({ codeKey: 'nested.zip', handler, runtime });
      expect(await runner.invoke(targetOf(deployment), eventOf()), handler).toEqual({ kind: 'returned', value: { statusCode: 200, body } });
    }
  });

  it('answers deployment problems without throwing', async () => {
    expect(await runner.deploy(deploymentOf({ codeKey: 'missing.zip', handler: 'index.handler' }))).toMatchObject({ ok: false, message: expect.stringContaining('missing.zip') });
    expect(await runner.deploy(deploymentOf({ codeKey: 'echo.zip', handler: 'main.handler' }))).toMatchObject({ ok: false, message: expect.stringContaining('main.js') });
    expect(await runner.deploy(deploymentOf({ codeKey: 'echo.zip', handler: 'app/routes.quote', runtime: 'python3.13' }))).toMatchObject({ ok: false, message: expect.stringContaining('app/routes.py') });
    await objects.put('functions', 'garbage.zip', Buffer.from('not a zip at all'));
    expect(await runner.deploy(deploymentOf({ codeKey: 'garbage.zip', handler: 'index.handler' }))).toMatchObject({ ok: false, message: expect.stringContaining('not a readable zip') });
  });

  it('deploys Java and .NET functions but answers runtime_unavailable naming what is missing', async () => {
    const java = await deployed({ codeKey: 'echo.zip', handler: 'com.example.Quotes::handle', runtime: 'java21' });
    const javaOutcome = await runner.invoke(targetOf(java), eventOf());
    expect(javaOutcome).toMatchObject({ kind: 'runtime_unavailable', message: expect.stringMatching(/Java/) });
    const dotnet = await deployed({ codeKey: 'echo.zip', handler: 'Quotes::Quotes.Function::Handle', runtime: 'dotnet8' });
    expect(await runner.invoke(targetOf(dotnet), eventOf())).toMatchObject({ kind: 'runtime_unavailable', message: expect.stringMatching(/\.NET/) });
  });

  it('a settings-only redeployment reuses the unpacked code', async () => {
    const first = await deployed({ codeKey: 'echo.zip', handler: 'index.handler', functionId: 'FNSETTINGS', deploymentId: 'S1' });
    await runner.invoke(targetOf(first), eventOf());
    const second = await deployed({ ...first, deploymentId: 'S2', environment: { REGION: 'us' }, settingsOnly: true });
    expect(bodyOf(await runner.invoke(targetOf(second), eventOf())).env.REGION).toBe('us');
  });
});

describe('settling a Node.js call (functions.md §7.3)', () => {
  const cases: Array<[string, InvokeOutcome]> = [
    ['callbackThenThrow', { kind: 'returned', value: { statusCode: 200, body: 'callback' } }],
    ['throwFirst', { kind: 'error', errorType: 'TypeError', errorMessage: 'thrown' }],
    ['promiseBeatsCallback', { kind: 'returned', value: { statusCode: 200, body: 'promise' } }],
    ['callbackError', { kind: 'error', errorType: 'RangeError', errorMessage: 'bad range' }],
    ['rejects', { kind: 'error', errorType: 'QuoteError', errorMessage: 'no carrier' }],
    ['resolvesUndefined', { kind: 'returned', value: undefined }],
    ['throwString', { kind: 'error', errorType: 'Error', errorMessage: 'plain string' }],
    ['callbackLater', { kind: 'returned', value: { statusCode: 202, body: 'later' } }],
  ];
  it.each(cases)('%s', async (handler, expected) => {
    const deployment = await deployed({ codeKey: 'probes.zip', handler: `index.${handler}` });
    const outcome = await runner.invoke(targetOf(deployment), eventOf());
    expect(outcome).toEqual(expected);
    if (expected.kind === 'returned' && expected.value === undefined) expect('value' in outcome).toBe(false);
  });

  it('a handler that cannot be loaded is an error, and the next call tries again', async () => {
    await objects.put('functions', 'broken.zip', await zipFolder(undefined, { 'index.js': 'exports.handler = ;' }));
    const deployment = await deployed({ codeKey: 'broken.zip', handler: 'index.handler' });
    const outcome = await runner.invoke(targetOf(deployment), eventOf());
    expect(outcome).toMatchObject({ kind: 'error', errorType: 'Runtime.ImportModuleError' });
    expect(await runner.invoke(targetOf(deployment), eventOf())).toMatchObject({ kind: 'error', errorType: 'Runtime.ImportModuleError' });
    const missingExport = await deployed({ codeKey: 'echo.zip', handler: 'index.nothing' });
    expect(await runner.invoke(targetOf(missingExport), eventOf())).toMatchObject({ kind: 'error', errorType: 'Runtime.ImportModuleError', errorMessage: expect.stringContaining('nothing') });
  });
});

describe('warm children', () => {
  it('times out a call that never ends, kills its child, and serves the next call fresh', async () => {
    const deployment = await deployed({ codeKey: 'probes.zip', handler: 'index.act', timeoutSeconds: 1 });
    const before = bodyOf(await runner.invoke(targetOf(deployment), eventOf('count')));
    const started = Date.now();
    expect(await runner.invoke(targetOf(deployment), eventOf('sleep'))).toEqual({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const after = bodyOf(await runner.invoke(targetOf(deployment), eventOf('count')));
    expect(after.instance).not.toBe(before.instance);
    expect(after.calls).toBe(1);
  });

  it('uses at most four children for concurrent calls; a fifth waits for one of them', async () => {
    const deployment = await deployed({ codeKey: 'probes.zip', handler: 'index.act' });
    const target = targetOf(deployment);
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, runner.children(deployment).length)), 5);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => runner.invoke(target, eventOf('hold:1500'))));
    clearInterval(watch);
    const instances = new Set(outcomes.map((outcome) => bodyOf(outcome).instance));
    expect(most).toBeLessThanOrEqual(4);
    expect(instances.size).toBeLessThanOrEqual(4);
    expect(target.opened).toBe(instances.size);
    expect(runner.children(deployment).length).toBeLessThanOrEqual(4);
  });

  it('answers fifty concurrent calls', async () => {
    const deployment = await deployed({ codeKey: 'probes.zip', handler: 'index.act' });
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => runner.invoke(targetOf(deployment), eventOf('count'))));
    expect(outcomes.every((outcome) => outcome.kind === 'returned')).toBe(true);
    const calls = outcomes.map((outcome) => bodyOf(outcome).calls as number);
    // Four children at most, each counting its own calls: the counts add up to fifty.
    const byInstance = new Map<string, number>();
    for (const outcome of outcomes) {
      const body = bodyOf(outcome);
      byInstance.set(body.instance, Math.max(byInstance.get(body.instance) ?? 0, body.calls));
    }
    expect(byInstance.size).toBeLessThanOrEqual(4);
    expect([...byInstance.values()].reduce((sum, count) => sum + count, 0)).toBe(50);
    expect(calls.length).toBe(50);
  });

  it('retires the children of a replaced deployment after their current call', async () => {
    const first = await deployed({ codeKey: 'probes.zip', handler: 'index.act', functionId: 'FNRETIRE', deploymentId: 'R1' });
    const busy = runner.invoke(targetOf(first), eventOf('hold:1500'));
    await until(() => runner.children(first).some((child) => child.state === 'busy'), 20_000, 'a busy child');
    const oldPid = runner.children(first)[0]!.pid;
    const second = await deployed({ ...first, deploymentId: 'R2', environment: { REGION: 'us' }, settingsOnly: true });
    const fresh = bodyOf(await runner.invoke(targetOf(second), eventOf('count')));
    const old = bodyOf(await busy);
    expect(fresh.instance).not.toBe(old.instance);
    await until(() => runner.children(first).every((child) => child.deploymentId === 'R2') && !alive(oldPid), 20_000, 'the old child to stop');
  });

  it('a child killed mid-call answers crashed, and the next call gets a fresh child', async () => {
    const deployment = await deployed({ codeKey: 'probes.zip', handler: 'index.act' });
    const before = bodyOf(await runner.invoke(targetOf(deployment), eventOf('count')));
    const call = runner.invoke(targetOf(deployment), eventOf('hold:20000'));
    await until(() => runner.children(deployment).some((child) => child.state === 'busy'), 20_000, 'a busy child');
    process.kill(runner.children(deployment)[0]!.pid!, 'SIGKILL');
    expect(await call).toMatchObject({ kind: 'crashed' });
    const after = bodyOf(await runner.invoke(targetOf(deployment), eventOf('count')));
    expect(after.instance).not.toBe(before.instance);
  });

  it('stops a child that stayed idle', async () => {
    const quick = localFunctionRunner({ dir: data.functions, objects, nodePath: node22, idleMs: 100 });
    try {
      const deployment = deploymentOf({ codeKey: 'probes.zip', handler: 'index.act' });
      expect(await quick.deploy(deployment)).toEqual({ ok: true });
      await quick.invoke(targetOf(deployment), eventOf('count'));
      const pid = quick.children(deployment)[0]?.pid;
      await until(() => quick.children(deployment).length === 0 && !alive(pid), 20_000, 'the idle child to stop');
    } finally {
      await quick.stop();
    }
  });

  it('removing a function stops its children and deletes its folder', async () => {
    const deployment = await deployed({ codeKey: 'probes.zip', handler: 'index.act', functionId: 'FNREMOVE' });
    await runner.invoke(targetOf(deployment), eventOf('count'));
    const pid = runner.children(deployment)[0]!.pid;
    await runner.remove(deployment);
    expect(existsSync(`${data.functions}/ACC1/test/FNREMOVE`)).toBe(false);
    expect(runner.children(deployment)).toEqual([]);
    await until(() => !alive(pid), 20_000, 'the removed function child to stop');
    await runner.remove(deployment);
  });

  it('stop() kills every child and later calls are refused', async () => {
    const own = localFunctionRunner({ dir: data.functions, objects, nodePath: node22 });
    const deployment = deploymentOf({ codeKey: 'probes.zip', handler: 'index.act' });
    await own.deploy(deployment);
    const held = own.invoke(targetOf(deployment), eventOf('hold:20000'));
    await until(() => own.children(deployment).some((child) => child.state === 'busy'), 20_000, 'a busy child');
    const pid = own.children(deployment)[0]!.pid;
    await own.stop();
    expect(await held).toMatchObject({ kind: 'crashed' });
    expect(alive(pid)).toBe(false);
    expect(await own.invoke(targetOf(deployment), eventOf('count'))).toMatchObject({ kind: 'crashed' });
  });
});
