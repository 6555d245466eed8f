/**
 * A hosted function's deployment survives `kill -9` of the runtime (functions.md §5, the
 * deployment's crash story): the record and its claimed `function-deploy` work commit together
 * before the zip is stored and deployed, so a runtime killed while deploying leaves the function
 * `pending` with work due, and after a restart the sweep finishes it: `active` (and serving) or
 * `failed`, never stuck `pending`. Deployments are held in the middle by a hold file (local only),
 * so the kill lands there whatever the machine's load; the manual clock moves past the claim's
 * lease only once the restarted runtime answers.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { api, startRuntime } from '../support/runtime-process';
import { zipOf } from '../support/zip-writer';

const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };

it('ends a deployment cut by kill -9 active after the restart, and an update cut the same way keeps the old code serving until it is live', async () => {
  const holdFile = join(mkdtempSync(join(tmpdir(), 'cartwheel-hold-')), 'deploy.hold');
  writeFileSync(holdFile, 'held');
  let runtime = await startRuntime({ env: { ...RATES, CARTWHEEL_CLOCK: 'manual', CARTWHEEL_FUNCTION_DEPLOY_HOLD_FILE: holdFile } });
  try {
    const base = runtime.bootstrap.api_url;
    const token = runtime.bootstrap.tokens.test_secret;
    const form = new FormData();
    for (const [name, value] of Object.entries({ name: 'Held', runtime: 'node', handler: 'index.handler', environment_variables: '{"WHO":"held"}' })) form.append(name, value);
    form.append('file', new Blob([new Uint8Array(zipOf([{ name: 'index.js', data: "exports.handler = async () => ({ body: 'alive:' + process.env.WHO });" }]))], { type: 'application/zip' }), 'held.zip');
    // The create waits in its deployment; the connection dies with the runtime.
    const creating = fetch(`${base}hosted_functions`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form }).then(
      (response) => response.status,
      () => 'connection lost' as const,
    );
    let pending: { hosted_function_id: string; status: string; invoke_url: string } | undefined;
    for (let waited = 0; !pending && waited < 60_000; waited += 50) {
      const list = await api(`${base}hosted_functions`, { token });
      pending = list.body?.data?.[0];
      if (!pending) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pending?.status).toBe('pending');
    await runtime.kill9();
    expect(await creating).toBe('connection lost');

    // Restart without the hold: nothing runs the work until its lease lapses; then the sweep finishes it.
    rmSync(holdFile);
    runtime = await runtime.restart();
    const path = `${runtime.bootstrap.api_url}hosted_functions/${pending!.hosted_function_id}`;
    expect((await api(path, { token })).body.status).toBe('pending');
    const invokeUrl = pending!.invoke_url;
    const early = await fetch(invokeUrl, { headers: { Authorization: `Bearer ${token}` } });
    expect(early.status).toBe(422);
    const moved = await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 600 } });
    expect(moved.status, moved.text).toBe(200);
    let status = 'pending';
    for (let waited = 0; status === 'pending' && waited < 60_000; waited += 100) {
      status = (await api(path, { token })).body.status;
      if (status === 'pending') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('active');
    const served = await fetch(invokeUrl, { headers: { Authorization: `Bearer ${token}` } });
    expect(await served.text()).toBe('alive:held');
    expect(existsSync(holdFile)).toBe(false);

    // An update with new code, cut by kill -9 in its deployment: the old code serves throughout.
    writeFileSync(holdFile, 'held');
    const update = new FormData();
    update.append('file', new Blob([new Uint8Array(zipOf([{ name: 'index.js', data: "exports.handler = async () => ({ body: 'v2:' + process.env.WHO });" }]))], { type: 'application/zip' }), 'v2.zip');
    const updating = fetch(path, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: update }).then(
      (response) => response.status,
      () => 'connection lost' as const,
    );
    for (let waited = 0; (await api(path, { token })).body.status !== 'pending' && waited < 60_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await api(path, { token })).body).toMatchObject({ status: 'pending', filename: 'v2.zip' });
    expect(await (await fetch(invokeUrl, { headers: { Authorization: `Bearer ${token}` } })).text()).toBe('alive:held');
    await runtime.kill9();
    expect(await updating).toBe('connection lost');
    rmSync(holdFile);
    runtime = await runtime.restart();
    expect(await (await fetch(invokeUrl, { headers: { Authorization: `Bearer ${token}` } })).text()).toBe('alive:held');
    expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 600 } })).status).toBe(200);
    status = 'pending';
    for (let waited = 0; status === 'pending' && waited < 60_000; waited += 100) {
      status = (await api(path, { token })).body.status;
      if (status === 'pending') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('active');
    expect(await (await fetch(invokeUrl, { headers: { Authorization: `Bearer ${token}` } })).text()).toBe('v2:held');
  } finally {
    await runtime.stop('SIGTERM').catch(() => undefined);
  }
}, 240_000);
