/**
 * Copying alias pointers to the CDN (hosting.md §10) as `app-edge-pointer` due work: every
 * pointer-moving transaction writes the work (claimed) beside the pointer, the request copies
 * the table's pointer right after the commit, a failed copy stays due for the sweep, and a run
 * always copies what the table holds when it runs.
 */
import { describe, expect, it } from 'vitest';
import { dueEntry, findDue } from '../../../shared/work/due-work-store';
import { sweepDue } from '../../../shared/work/runner';
import { createAlias, deleteAlias, updateAlias } from '../../../shared/modules/hosting/apps/aliases';
import { aliasCreate, appCreate } from '../../../shared/modules/hosting/apps/app-schemas';
import { deployVersion, rollback } from '../../../shared/modules/hosting/apps/deploy';
import { edgePointerRef, edgePointerWork } from '../../../shared/modules/hosting/apps/edge-pointer-work';
import { createApp, deleteApp, updateApp } from '../../../shared/modules/hosting/apps/manage-apps';
import { dueScope } from '../../../shared/modules/hosting/apps/remove-app-files';
import { uploadVersion } from '../../../shared/modules/hosting/apps/upload-version';
import type { EdgePointers } from '../../../shared/platform/ports';
import { parseInput } from '../../../shared/rest/validate';
import { writeOne } from '../../../shared/store/transact';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { testPlatform, type TestPlatform } from '../../support/platform';
import { appZip } from '../../support/zip-writer';
import { ManualClock } from '../../../infra/local/manual-clock';

const harness = new Harness();
const T0 = Date.parse('2026-11-24T08:00:00Z');
const clock = new ManualClock(T0);
useEmulatedTable(harness);

let accounts = 0;
const newAccount = () => `ACCTEDGE${String(++accounts).padStart(4, '0')}`;
const by = { authId: 'AUTH00000001' };

/** An in-memory pointer store that records each call, and can be made to fail. */
function fakeEdge() {
  const keys = new Map<string, string>();
  const calls: string[] = [];
  let failing: Error | undefined;
  const edge: EdgePointers = {
    async put(accountId, alias, target) {
      calls.push(`put ${accountId}/${alias} ${target.appId}/${target.versionId}`);
      if (failing) throw failing;
      keys.set(`${accountId}/${alias}`, `${target.appId}/${target.versionId}`);
    },
    async delete(accountId, alias) {
      calls.push(`delete ${accountId}/${alias}`);
      if (failing) throw failing;
      keys.delete(`${accountId}/${alias}`);
    },
  };
  return { edge, keys, calls, fail: (error: Error | undefined) => (failing = error) };
}

async function setUp(platform: TestPlatform, accountId: string) {
  const app = await createApp(platform, accountId, 'test', parseInput(appCreate, { name: 'Shop', alias: 'shop' }));
  const v1 = (await uploadVersion(platform, { accountId, appId: app.app_id, zip: appZip(), label: null, comments: null })).version;
  const v2 = (await uploadVersion(platform, { accountId, appId: app.app_id, zip: appZip(), label: null, comments: null })).version;
  return { app, v1, v2 };
}

const due = (accountId: string, alias: string) => findDue('app-edge-pointer', dueScope(accountId), edgePointerRef(accountId, alias));

describe('copying alias pointers to the CDN', () => {
  it('copies a deploy and a rollback of every following alias at once, and leaves no work behind', async () => {
    const accountId = newAccount();
    const fake = fakeEdge();
    const platform = testPlatform({ clock, edgePointers: fake.edge });
    const { app, v1, v2 } = await setUp(platform, accountId);
    // A new app serves nothing: its copy removes any key the alias may have left.
    expect(fake.calls).toEqual([`delete ${accountId}/shop`]);
    await createAlias(platform, accountId, app.app_id, parseInput(aliasCreate, { alias: 'beta' }));
    await createAlias(platform, accountId, app.app_id, parseInput(aliasCreate, { alias: 'pinned', version_id: v1.version_id }));
    expect(fake.keys).toEqual(new Map([[`${accountId}/pinned`, `${app.app_id}/${v1.version_id}`]]));

    fake.calls.length = 0;
    await deployVersion(platform, accountId, app.app_id, v2.version_id, by);
    expect(fake.calls.sort()).toEqual([`put ${accountId}/beta ${app.app_id}/${v2.version_id}`, `put ${accountId}/shop ${app.app_id}/${v2.version_id}`]);
    expect(fake.keys.get(`${accountId}/shop`)).toBe(`${app.app_id}/${v2.version_id}`);
    for (const alias of ['shop', 'beta', 'pinned']) expect(await due(accountId, alias), alias).toBeUndefined();

    await rollback(platform, accountId, app.app_id, v1.version_id, by);
    expect(fake.keys).toEqual(
      new Map([
        [`${accountId}/shop`, `${app.app_id}/${v1.version_id}`],
        [`${accountId}/beta`, `${app.app_id}/${v1.version_id}`],
        [`${accountId}/pinned`, `${app.app_id}/${v1.version_id}`],
      ]),
    );
  });

  it('writes the work in the same transaction as the pointer, so a request that dies after the commit leaves it to the sweep', async () => {
    const accountId = newAccount();
    const fake = fakeEdge();
    const platform = testPlatform({ clock, edgePointers: fake.edge });
    const { app, v1 } = await setUp(platform, accountId);
    // The request's copy fails: the pointer moved, the work is still due with the failure noted.
    fake.fail(new Error('KeyValueStore unavailable'));
    const deployment = await deployVersion(platform, accountId, app.app_id, v1.version_id, by);
    expect(deployment.version_id).toBe(v1.version_id);
    const record = await due(accountId, 'shop');
    expect(record).toMatchObject({ kind: 'app-edge-pointer', ref: `${accountId}/shop`, account_id: accountId, mode: 'live', claim_id: null, last_failure: 'KeyValueStore unavailable' });
    expect(fake.keys.has(`${accountId}/shop`)).toBe(false);

    fake.fail(undefined);
    expect(await sweepDue(platform, [edgePointerWork], record!.next_ms + 1)).toBe(1);
    expect(fake.keys.get(`${accountId}/shop`)).toBe(`${app.app_id}/${v1.version_id}`);
    expect(await due(accountId, 'shop')).toBeUndefined();
  });

  it('deletes the key of a deleted alias, of both names of a renamed primary alias, and of every alias of a deleted app', async () => {
    const accountId = newAccount();
    const fake = fakeEdge();
    const platform = testPlatform({ clock, edgePointers: fake.edge });
    const { app, v1, v2 } = await setUp(platform, accountId);
    await deployVersion(platform, accountId, app.app_id, v1.version_id, by);
    await createAlias(platform, accountId, app.app_id, parseInput(aliasCreate, { alias: 'beta' }));
    await createAlias(platform, accountId, app.app_id, parseInput(aliasCreate, { alias: 'preview', version_id: v2.version_id }));
    expect([...fake.keys.keys()].sort()).toEqual([`${accountId}/beta`, `${accountId}/preview`, `${accountId}/shop`]);

    fake.calls.length = 0;
    await deleteAlias(platform, accountId, app.app_id, 'beta');
    expect(fake.calls).toEqual([`delete ${accountId}/beta`]);

    await updateAlias(platform, accountId, app.app_id, 'preview', { version_id: null });
    expect(fake.keys.get(`${accountId}/preview`)).toBe(`${app.app_id}/${v1.version_id}`);

    fake.calls.length = 0;
    await updateApp(platform, accountId, app.app_id, { alias: 'store' });
    expect(fake.calls).toEqual([`delete ${accountId}/shop`, `put ${accountId}/store ${app.app_id}/${v1.version_id}`]);

    fake.calls.length = 0;
    await deleteApp(platform, accountId, app.app_id);
    expect(fake.calls.sort()).toEqual([`delete ${accountId}/preview`, `delete ${accountId}/store`]);
    expect(fake.keys).toEqual(new Map());
    for (const alias of ['shop', 'store', 'beta', 'preview']) expect(await due(accountId, alias), alias).toBeUndefined();
  });

  it('copies what the table holds when it runs (a rerun or a late run is harmless), and just finishes without a pointer store', async () => {
    const accountId = newAccount();
    const fake = fakeEdge();
    const platform = testPlatform({ clock, edgePointers: fake.edge });
    const { app, v1, v2 } = await setUp(platform, accountId);
    await deployVersion(platform, accountId, app.app_id, v2.version_id, by);
    await deployVersion(platform, accountId, app.app_id, v1.version_id, by);
    // A stale record of the first deploy (its request died) runs late: it copies the current pointer.
    await writeOne(dueEntry('app-edge-pointer', dueScope(accountId), edgePointerRef(accountId, 'shop'), T0, T0));
    fake.keys.set(`${accountId}/shop`, `${app.app_id}/${v2.version_id}`);
    expect(await sweepDue(platform, [edgePointerWork], T0 + 1)).toBe(1);
    expect(fake.keys.get(`${accountId}/shop`)).toBe(`${app.app_id}/${v1.version_id}`);

    // Locally there is no pointer store: the work is written and finished all the same.
    const local = testPlatform({ clock });
    await createAlias(local, accountId, app.app_id, parseInput(aliasCreate, { alias: 'beta' }));
    expect(await due(accountId, 'beta')).toBeUndefined();
  });
});
