/**
 * The apps operations against the DynamoDB emulator (hosting.md §2–§5, §10, §11): the pointer
 * of every alias is rewritten in the same transaction as each change that moves it, uploads
 * store their files and manifest and refuse without writing anything, an upload cut short is
 * failed and cleaned up (at once, or by the sweep after the grace period), deploys and
 * rollbacks switch pointers only, and a deleted app stops at once and leaves nothing behind.
 */
import { readConfig, siteOf } from '../../../shared/core/config';
import { describe, expect, it } from 'vitest';
import { findDue } from '../../../shared/work/due-work-store';
import { sweepDue } from '../../../shared/work/runner';
import { createAlias, deleteAlias, listAliases, updateAlias } from '../../../shared/modules/hosting/apps/aliases';
import { appCreate, aliasCreate } from '../../../shared/modules/hosting/apps/app-schemas';
import { appUrl } from '../../../shared/modules/hosting/apps/apps';
import { allDeployments, allVersions, findVersion } from '../../../shared/modules/hosting/apps/apps-store';
import { deployVersion, listDeployments, rollback } from '../../../shared/modules/hosting/apps/deploy';
import { findAliasPointer, findApp, readManifest, versionFileKey } from '../../../shared/modules/hosting/apps/index';
import { createApp, deleteApp, listApps, updateApp } from '../../../shared/modules/hosting/apps/manage-apps';
import { appFilesWork, dueScope, PROCESSING_GRACE_MS, versionFilesRef, versionFilesWork } from '../../../shared/modules/hosting/apps/remove-app-files';
import { uploadVersion } from '../../../shared/modules/hosting/apps/upload-version';
import { deleteVersion, listVersions, readVersion } from '../../../shared/modules/hosting/apps/versions';
import { parseInput } from '../../../shared/rest/validate';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { testPlatform, type TestPlatform } from '../../support/platform';
import { appZip, honestBomb, zipOf } from '../../support/zip-writer';
import { ManualClock } from '../../../infra/local/manual-clock';
import { refusal } from '../../support/refusal';

const harness = new Harness();
const T0 = Date.parse('2026-11-22T08:00:00Z');
const clock = new ManualClock(T0);
useEmulatedTable(harness);

let accounts = 0;
/** A fresh account id per test, so tests never see each other's apps and aliases. */
const newAccount = () => `ACCTAPP${String(++accounts).padStart(5, '0')}`;
const by = { authId: 'AUTH00000001' };

async function newApp(accountId: string, body: Record<string, unknown> = {}, mode: 'live' | 'test' = 'test') {
  return createApp(testPlatform({ clock }), accountId, mode, parseInput(appCreate, { name: 'Shop', alias: 'shop', ...body }));
}

/** A platform whose objects also remember the content type they were written with. */
function recordingPlatform(): TestPlatform & { types: Map<string, string | undefined> } {
  const platform = testPlatform({ clock });
  const types = new Map<string, string | undefined>();
  const put = platform.objects.put.bind(platform.objects);
  platform.objects.put = async (bucket, key, body, contentType) => {
    types.set(`${bucket}/${key}`, contentType);
    await put(bucket, key, body, contentType);
  };
  return Object.assign(platform, { types });
}

const keysOf = (platform: TestPlatform, prefix: string) => [...platform.stored.keys()].filter((key) => key.startsWith(`apps/${prefix}`)).sort();

async function upload(platform: TestPlatform, accountId: string, appId: string, zip: Buffer = appZip(), label: string | null = null) {
  return (await uploadVersion(platform, { accountId, appId, zip, label, comments: null })).version;
}

describe('apps', () => {
  it('creates an app serving nothing, its primary alias claimed, test from the token mode', async () => {
    const accountId = newAccount();
    const app = await newApp(accountId, { settings: { company_name: 'Acme' } });
    expect(app).toMatchObject({ account_id: accountId, name: 'Shop', alias: 'shop', test: true, live_version_id: null, settings: { company_name: 'Acme' }, style: {}, custom_css: null });
    expect(await findApp(accountId, app.app_id)).toMatchObject({ app_id: app.app_id, settings: { company_name: 'Acme' } });
    expect(await findAliasPointer(accountId, 'shop')).toEqual({ account_id: accountId, alias: 'shop', app_id: app.app_id, version_id: null, test: true });
    // App hosts arrive lower-cased: the pointer is found either way.
    expect(await findAliasPointer(accountId.toLowerCase(), 'shop')).toMatchObject({ account_id: accountId, app_id: app.app_id });
    expect((await newApp(newAccount(), { alias: 'live-shop' }, 'live')).test).toBe(false);
    expect((await newApp(newAccount(), { alias: 'x', test: false }, 'test')).test).toBe(false);
  });

  it('keeps aliases unique within the account (409), not across accounts', async () => {
    const accountId = newAccount();
    const first = await newApp(accountId);
    expect(await refusal(newApp(accountId, { name: 'Other' }))).toMatchObject({ status: 409, code: 'in_use', meta: { property: 'alias' } });
    expect((await listApps(accountId, { offset: 0, limit: 100, sortBy: 'date_created', descending: false })).total).toBe(1);
    const elsewhere = await newApp(newAccount());
    expect(elsewhere.alias).toBe('shop');
    expect((await findAliasPointer(accountId, 'shop'))!.app_id).toBe(first.app_id);
  });

  it('renames the primary alias at once: the old pointer goes, the new one follows the live version', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const version = await upload(platform, accountId, app.app_id);
    await deployVersion(platform, accountId, app.app_id, version.version_id, by);
    const renamed = await updateApp(testPlatform({ clock }), accountId, app.app_id, { alias: 'store' });
    expect(renamed.alias).toBe('store');
    expect(await findAliasPointer(accountId, 'shop')).toBeUndefined();
    expect(await findAliasPointer(accountId, 'store')).toEqual({ account_id: accountId, alias: 'store', app_id: app.app_id, version_id: version.version_id, test: true });
    // The old name is free again, the new one taken.
    const other = await newApp(accountId, { name: 'Other', alias: 'shop' });
    expect(await refusal(updateApp(testPlatform({ clock }), accountId, other.app_id, { alias: 'store' }))).toMatchObject({ status: 409, code: 'in_use' });
    expect((await findApp(accountId, other.app_id))!.alias).toBe('shop');
  });

  it('rewrites the primary pointer when test changes, and replaces settings and style whole', async () => {
    const accountId = newAccount();
    const app = await newApp(accountId, { settings: { a: 1, b: { c: 2 } }, style: { x: 'y' }, custom_css: 'body{}' });
    const updated = await updateApp(testPlatform({ clock }), accountId, app.app_id, { test: false, settings: { b: 3 } });
    expect(updated).toMatchObject({ test: false, settings: { b: 3 }, style: { x: 'y' }, custom_css: 'body{}' });
    expect((await findAliasPointer(accountId, 'shop'))!.test).toBe(false);
    const cleared = await updateApp(testPlatform({ clock }), accountId, app.app_id, { settings: {}, style: {}, custom_css: null, custom_javascript: 'go()' });
    expect(await findApp(accountId, app.app_id)).toMatchObject({ settings: {}, style: {}, custom_css: null, custom_javascript: 'go()' });
    expect(cleared.modified_ms).toBeGreaterThanOrEqual(app.modified_ms);
  });

  it('refuses settings, style or custom code over their size (422), changing nothing', async () => {
    const accountId = newAccount();
    const app = await newApp(accountId);
    const big = { blob: 'x'.repeat(64 * 1024) };
    for (const body of [{ settings: big }, { style: big }, { custom_css: 'x'.repeat(256 * 1024 + 1) }, { custom_javascript: 'é'.repeat(128 * 1024 + 1) }]) {
      const property = Object.keys(body)[0];
      expect(await refusal(updateApp(testPlatform({ clock }), accountId, app.app_id, body)), property).toMatchObject({ status: 422, code: 'account_limit_exceeded', meta: { property } });
    }
    expect(await refusal(newApp(newAccount(), { settings: big }))).toMatchObject({ status: 422, meta: { property: 'settings' } });
    expect(await findApp(accountId, app.app_id)).toMatchObject({ settings: {}, style: {}, custom_css: null, custom_javascript: null, revision: app.revision });
    // Exactly at the limit is fine; custom code up to 256 KB fits beside the record.
    const css = 'c'.repeat(256 * 1024);
    await updateApp(testPlatform({ clock }), accountId, app.app_id, { custom_css: css, custom_javascript: css, settings: { blob: 'x'.repeat(64 * 1024 - 11) } });
    expect((await findApp(accountId, app.app_id))!.custom_javascript).toHaveLength(256 * 1024);
  });

  it('lists apps by creation, name or deploy date, and searches name and alias', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const b = await newApp(accountId, { name: 'Beta', alias: 'beta' });
    const a = await newApp(accountId, { name: 'alpha', alias: 'checkout' });
    const c = await newApp(accountId, { name: 'Gamma', alias: 'gamma', custom_javascript: 'x()' });
    const version = await upload(platform, accountId, c.app_id);
    await deployVersion(platform, accountId, c.app_id, version.version_id, by);
    const read = (query: Partial<Parameters<typeof listApps>[1]>) => listApps(accountId, { offset: 0, limit: 100, sortBy: 'date_created', descending: false, ...query });
    expect((await read({})).items.map((app) => app.name)).toEqual(['Beta', 'alpha', 'Gamma']);
    expect((await read({ sortBy: 'name' })).items.map((app) => app.name)).toEqual(['alpha', 'Beta', 'Gamma']);
    expect((await read({ sortBy: 'date_deployed', descending: true })).items[0]!.app_id).toBe(c.app_id);
    expect(await read({ search: 'check' })).toMatchObject({ total: 1, items: [{ app_id: a.app_id }] });
    expect(await read({ search: 'et' })).toMatchObject({ total: 1, items: [{ app_id: b.app_id }] });
    expect((await read({ offset: 2, limit: 1 })).items[0]).toMatchObject({ app_id: c.app_id, custom_javascript: 'x()' });
  });

  it('builds the public address from the apps URL template with the account in lower case', () => {
    expect(appUrl(siteOf(readConfig({})), 'XG5908XMX3MH', 'shop')).toBe('http://xg5908xmx3mh.apps.localhost:4000/shop/');
  });
});

describe('versions', () => {
  it('stores every file and a manifest, then answers a ready version with its facts', async () => {
    const accountId = newAccount();
    const platform = recordingPlatform();
    const app = await newApp(accountId);
    const zip = appZip({ 'assets/app.3f9a2c1b.js': 'console.log(1)', 'settings/app.js': 'evil', '.DS_Store': 'x', 'Logo.PNG': Buffer.from([1, 2, 3]) });
    const version = await upload(platform, accountId, app.app_id, zip, '1.4.2');
    expect(version).toMatchObject({ number: 1, status: 'ready', label: '1.4.2', files: 3, package_bytes: zip.length, ignored_paths: ['settings/app.js', '.DS_Store'] });
    const keys = ['index.html', 'assets/app.3f9a2c1b.js', 'Logo.PNG'].map((path) => `apps/${versionFileKey(accountId, app.app_id, version.version_id, path)}`);
    expect(keysOf(platform, `apps/${accountId}/`)).toEqual([...keys].sort());
    expect(keys[0]).toBe(`apps/apps/${accountId}/${app.app_id}/${version.version_id}/index.html`);
    expect(platform.types.get(keys[1]!)).toBe('text/javascript; charset=utf-8');
    expect(platform.types.get(keys[2]!)).toBe('image/png');
    const manifest = await readManifest(platform.objects, accountId, app.app_id, version.version_id);
    expect(manifest).toEqual({
      version_id: version.version_id,
      uploaded_ms: version.created_ms,
      files: {
        'index.html': { bytes: expect.any(Number), etag: expect.stringMatching(/^"[0-9a-f]{32}"$/), content_type: 'text/html; charset=utf-8' },
        'assets/app.3f9a2c1b.js': { bytes: 14, etag: expect.stringMatching(/^"[0-9a-f]{32}"$/), content_type: 'text/javascript; charset=utf-8' },
        'Logo.PNG': { bytes: 3, etag: '"039058c6f2c0cb492c533b0a4d14ef77"', content_type: 'image/png' },
      },
    });
    expect(version.bytes).toBe(Object.values(manifest!.files).reduce((sum, file) => sum + file.bytes, 0));
    expect(platform.stored.has(`apps/app-manifests/${accountId}/${app.app_id}/${version.version_id}.json`)).toBe(true);
    expect(await findDue('app-version-files', dueScope(accountId), versionFilesRef(app.app_id, version.version_id))).toBeUndefined();
    // Uploading never changes what is served.
    expect((await findAliasPointer(accountId, 'shop'))!.version_id).toBeNull();
    expect(await readVersion(accountId, app.app_id, version.version_id)).toMatchObject({ live: false, status: 'ready' });
  });

  it('numbers versions per app in upload order, concurrent uploads included', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const other = await newApp(accountId, { alias: 'other' });
    const numbers = await Promise.all([1, 2, 3, 4].map(() => upload(platform, accountId, app.app_id).then((version) => version.number)));
    expect(numbers.sort()).toEqual([1, 2, 3, 4]);
    expect((await upload(platform, accountId, other.app_id)).number).toBe(1);
    const listed = await listVersions(accountId, app.app_id, { offset: 0, limit: 100, descending: false });
    expect(listed.total).toBe(4);
    expect(listed.items.map((version) => version.number)).toEqual([1, 2, 3, 4]);
    expect((await listVersions(accountId, app.app_id, { offset: 1, limit: 2, descending: true })).items.map((version) => version.number)).toEqual([3, 2]);
  });

  it.each([
    ['a ../ path', () => zipOf([{ name: 'index.html', data: 'x' }, { name: '../evil.js', data: 'x' }]), 'unsafe_path'],
    ['a symbolic link', () => zipOf([{ name: 'index.html', data: 'x' }, { name: 'passwd', data: '/etc/passwd', unixMode: 0o120777 }]), 'special_entry'],
    ['an encrypted entry', () => zipOf([{ name: 'index.html', data: 'x', flags: 1 }]), 'encrypted'],
    ['a 2 GB expansion', () => honestBomb(), 'compression_ratio'],
    ['no index.html', () => zipOf([{ name: 'app.js', data: 'x' }]), 'missing_index'],
    ['not a zip', () => Buffer.from('hello'), 'unreadable'],
  ])('refuses %s (400) and writes nothing', async (_name, make, reason) => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    expect(await refusal(upload(platform, accountId, app.app_id, make()))).toMatchObject({ status: 400, code: 'invalid_input', meta: { property: 'file', reason } });
    expect(platform.stored.size).toBe(0);
    expect((await listVersions(accountId, app.app_id, { offset: 0, limit: 100, descending: false })).total).toBe(0);
    expect((await findApp(accountId, app.app_id))!.versions_uploaded).toBe(0);
  });

  it('answers 404 for an upload to an unknown app, before reading the zip', async () => {
    expect(await refusal(upload(testPlatform({ clock }), newAccount(), 'NOSUCHAPP', Buffer.from('junk')))).toMatchObject({ status: 404, code: 'resource_not_found' });
  });

  it('fails the version at once and removes what it stored when writing files fails', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    let puts = 0;
    const failing = testPlatform({
      clock,
      objects: {
        ...platform.objects,
        put: async (bucket, key, body) => {
          if (++puts > 2) throw new Error('S3 is down');
          await platform.objects.put(bucket, key, body);
        },
      },
    });
    await expect(upload(failing, accountId, app.app_id, appZip({ 'a.js': 'a', 'b.js': 'b', 'c.js': 'c' }))).rejects.toThrow('S3 is down');
    const [version] = (await listVersions(accountId, app.app_id, { offset: 0, limit: 100, descending: false })).items;
    expect(version).toMatchObject({ status: 'failed', status_message: expect.stringMatching(/upload the package again/) });
    expect(keysOf(platform, '')).toEqual([]);
    expect(await findDue('app-version-files', dueScope(accountId), versionFilesRef(app.app_id, version!.version_id))).toBeUndefined();
    expect(await refusal(deployVersion(platform, accountId, app.app_id, version!.version_id, by))).toMatchObject({ status: 422, code: 'invalid_state' });
  });

  it('leaves a processing version when the process dies mid-way; the sweep fails it and removes its files after the grace period', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    let puts = 0;
    // The third write never returns: the process "died" with the manifest and one file written.
    const dying = testPlatform({
      clock,
      objects: {
        ...platform.objects,
        put: (bucket, key, body) => (++puts > 2 ? new Promise<void>(() => undefined) : platform.objects.put(bucket, key, body)),
      },
    });
    void upload(dying, accountId, app.app_id, appZip({ 'a.js': 'a' }));
    await expect.poll(() => puts).toBe(3);
    const [version] = (await listVersions(accountId, app.app_id, { offset: 0, limit: 100, descending: false })).items;
    expect(version!.status).toBe('processing');
    expect(keysOf(platform, '')).toHaveLength(2);
    await sweepDue(platform, [versionFilesWork], clock.nowMs() + PROCESSING_GRACE_MS - 1000);
    expect((await findVersion(accountId, version!.version_id))!.status).toBe('processing');
    await sweepDue(platform, [versionFilesWork], clock.nowMs() + PROCESSING_GRACE_MS + 1000);
    expect(await findVersion(accountId, version!.version_id)).toMatchObject({ status: 'failed', status_message: expect.stringMatching(/did not finish/) });
    expect(keysOf(platform, '')).toEqual([]);
    expect(await findDue('app-version-files', dueScope(accountId), versionFilesRef(app.app_id, version!.version_id))).toBeUndefined();
  });

  it('refuses to delete a version still processing (422), and to pin a version that is not ready (400)', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    let puts = 0;
    const stalled = testPlatform({ clock, objects: { ...platform.objects, put: (bucket, key, body) => (++puts > 1 ? new Promise<void>(() => undefined) : platform.objects.put(bucket, key, body)) } });
    void upload(stalled, accountId, app.app_id);
    await expect.poll(() => puts).toBe(2);
    const [processing] = (await listVersions(accountId, app.app_id, { offset: 0, limit: 100, descending: false })).items;
    expect(await refusal(deleteVersion(platform, accountId, app.app_id, processing!.version_id))).toMatchObject({ status: 422, code: 'invalid_state', meta: { reason: 'processing' } });
    expect(await refusal(createAlias(testPlatform({ clock }), accountId, app.app_id, { alias: 'early', version_id: processing!.version_id }))).toMatchObject({ status: 400, meta: { property: 'version_id', reason: 'not_ready' } });
    expect(await refusal(deployVersion(platform, accountId, app.app_id, processing!.version_id, by))).toMatchObject({ status: 422, code: 'invalid_state', meta: { reason: 'processing' } });
  });

  it('answers 404 and keeps nothing when the app is deleted while its version uploads', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    let deleted = false;
    const racing = testPlatform({
      clock,
      objects: {
        ...platform.objects,
        put: async (bucket, key, body) => {
          await platform.objects.put(bucket, key, body);
          if (!deleted && key.endsWith('index.html')) {
            deleted = true;
            await deleteApp(platform, accountId, app.app_id);
          }
        },
      },
    });
    // More files than one batch of writes: some are written after the app's clean-up ran.
    const files = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`f${index}.js`, String(index)]));
    expect(await refusal(upload(racing, accountId, app.app_id, appZip(files)))).toMatchObject({ status: 404, code: 'resource_not_found' });
    expect(keysOf(platform, '')).toEqual([]);
    expect(await allVersions(accountId, app.app_id)).toEqual([]);
  });

  it('deletes a version (its files go) unless it is live or pinned (409)', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const [v1, v2, v3] = [await upload(platform, accountId, app.app_id), await upload(platform, accountId, app.app_id), await upload(platform, accountId, app.app_id)];
    await deployVersion(platform, accountId, app.app_id, v1.version_id, by);
    await createAlias(testPlatform({ clock }), accountId, app.app_id, parseInput(aliasCreate, { alias: 'preview', version_id: v2.version_id }));
    expect(await refusal(deleteVersion(platform, accountId, app.app_id, v1.version_id))).toMatchObject({ status: 409, code: 'in_use', meta: { reason: 'live' } });
    expect(await refusal(deleteVersion(platform, accountId, app.app_id, v2.version_id))).toMatchObject({ status: 409, code: 'in_use', meta: { reason: 'pinned' } });
    await deleteVersion(platform, accountId, app.app_id, v3.version_id);
    expect(await findVersion(accountId, v3.version_id)).toBeUndefined();
    expect(keysOf(platform, '').filter((key) => key.includes(v3.version_id))).toEqual([]);
    expect(keysOf(platform, '').filter((key) => key.includes(v1.version_id))).toHaveLength(2);
    expect((await listVersions(accountId, app.app_id, { offset: 0, limit: 100, descending: false })).items.map((version) => version.number)).toEqual([1, 2]);
    expect(await refusal(deleteVersion(platform, accountId, app.app_id, v3.version_id))).toMatchObject({ status: 404 });
    // A version of another app does not exist under this one.
    const other = await newApp(accountId, { alias: 'other' });
    expect(await refusal(deleteVersion(platform, accountId, other.app_id, v2.version_id))).toMatchObject({ status: 404 });
    expect(await refusal(readVersion(accountId, other.app_id, v2.version_id))).toMatchObject({ status: 404 });
  });
});

describe('deploy and rollback', () => {
  it('switches the primary and following aliases, never the pinned ones, and records each switch', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const [v1, v2] = [await upload(platform, accountId, app.app_id), await upload(platform, accountId, app.app_id)];
    await createAlias(testPlatform({ clock }), accountId, app.app_id, parseInput(aliasCreate, { alias: 'follower', test: false }));
    await createAlias(testPlatform({ clock }), accountId, app.app_id, parseInput(aliasCreate, { alias: 'pinned', version_id: v1.version_id }));
    expect((await findAliasPointer(accountId, 'follower'))!.version_id).toBeNull();
    const first = await deployVersion(platform, accountId, app.app_id, v1.version_id, by);
    expect(first).toMatchObject({ action: 'deploy', version_id: v1.version_id, version_number: 1, previous_version_id: null, previous_version_number: null, auth_id: 'AUTH00000001', user_id: null });
    const second = await deployVersion(platform, accountId, app.app_id, v2.version_id, by);
    expect(second).toMatchObject({ previous_version_id: v1.version_id, previous_version_number: 1 });
    expect(await findAliasPointer(accountId, 'shop')).toMatchObject({ version_id: v2.version_id, test: true });
    expect(await findAliasPointer(accountId, 'follower')).toMatchObject({ version_id: v2.version_id, test: false });
    expect(await findAliasPointer(accountId, 'pinned')).toMatchObject({ version_id: v1.version_id });
    expect(await findApp(accountId, app.app_id)).toMatchObject({ live_version_id: v2.version_id, live_version_number: 2, deployed_ms: expect.any(Number) });
    // Deploying the live version again is accepted and recorded.
    await deployVersion(platform, accountId, app.app_id, v2.version_id, by);
    expect((await listDeployments(accountId, app.app_id, { offset: 0, limit: 100, descending: false })).total).toBe(3);
  });

  it('rolls back to the version live before the current one; two rollbacks swap', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const [v1, v2] = [await upload(platform, accountId, app.app_id), await upload(platform, accountId, app.app_id)];
    expect(await refusal(rollback(platform, accountId, app.app_id, undefined, by))).toMatchObject({ status: 422, code: 'invalid_state' });
    await deployVersion(platform, accountId, app.app_id, v1.version_id, by);
    expect(await refusal(rollback(platform, accountId, app.app_id, undefined, by))).toMatchObject({ status: 422, code: 'invalid_state' });
    await deployVersion(platform, accountId, app.app_id, v2.version_id, by);
    const back = await rollback(platform, accountId, app.app_id, undefined, by);
    expect(back).toMatchObject({ action: 'rollback', version_id: v1.version_id, previous_version_id: v2.version_id });
    expect((await findAliasPointer(accountId, 'shop'))!.version_id).toBe(v1.version_id);
    const forth = await rollback(platform, accountId, app.app_id, undefined, by);
    expect(forth).toMatchObject({ version_id: v2.version_id, previous_version_id: v1.version_id });
    expect((await findAliasPointer(accountId, 'shop'))!.version_id).toBe(v2.version_id);
    const history = await listDeployments(accountId, app.app_id, { offset: 0, limit: 100, descending: true });
    expect(history.items.map((deployment) => deployment.action)).toEqual(['rollback', 'rollback', 'deploy', 'deploy']);
  });

  it('refuses a rollback whose previous version was deleted (422), and rolls back to a named version', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const [v1, v2, v3] = [await upload(platform, accountId, app.app_id), await upload(platform, accountId, app.app_id), await upload(platform, accountId, app.app_id)];
    await deployVersion(platform, accountId, app.app_id, v1.version_id, by);
    await deployVersion(platform, accountId, app.app_id, v2.version_id, by);
    await deleteVersion(platform, accountId, app.app_id, v1.version_id);
    expect(await refusal(rollback(platform, accountId, app.app_id, undefined, by))).toMatchObject({ status: 422, code: 'invalid_state', meta: { reason: 'previous_version_deleted' } });
    expect(await rollback(platform, accountId, app.app_id, v3.version_id, by)).toMatchObject({ action: 'rollback', version_id: v3.version_id });
    expect(await refusal(rollback(platform, accountId, app.app_id, 'NOSUCHVERSION', by))).toMatchObject({ status: 404 });
  });

  it('answers 404 for a version of another app and 422 for one not ready', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const other = await newApp(accountId, { alias: 'other' });
    const foreign = await upload(platform, accountId, other.app_id);
    expect(await refusal(deployVersion(platform, accountId, app.app_id, foreign.version_id, by))).toMatchObject({ status: 404, code: 'resource_not_found' });
    expect(await refusal(deployVersion(platform, accountId, app.app_id, 'NOPE', by))).toMatchObject({ status: 404 });
    expect((await findAliasPointer(accountId, 'shop'))!.version_id).toBeNull();
  });
});

describe('aliases', () => {
  it('creates following and pinned aliases, changes and deletes them, primary first in the list', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const [v1, v2] = [await upload(platform, accountId, app.app_id), await upload(platform, accountId, app.app_id)];
    await deployVersion(platform, accountId, app.app_id, v2.version_id, by);
    const preview = await createAlias(testPlatform({ clock }), accountId, app.app_id, parseInput(aliasCreate, { alias: 'preview', version_id: v1.version_id, test: true }));
    expect(preview).toMatchObject({ alias: 'preview', primary: false, pinned_version_id: v1.version_id, version_id: v1.version_id, test: true });
    clock.set(clock.nowMs() + 1000);
    await createAlias(testPlatform({ clock }), accountId, app.app_id, parseInput(aliasCreate, { alias: 'beta' }));
    expect(await findAliasPointer(accountId, 'beta')).toMatchObject({ version_id: v2.version_id, test: true });
    expect((await listAliases(accountId, app.app_id)).map((alias) => [alias.alias, alias.primary])).toEqual([['shop', true], ['preview', false], ['beta', false]]);
    // Unpin: it follows the live version from then on.
    expect(await updateAlias(testPlatform({ clock }), accountId, app.app_id, 'preview', { version_id: null, test: false })).toMatchObject({ pinned_version_id: null, version_id: v2.version_id, test: false });
    expect(await findAliasPointer(accountId, 'preview')).toMatchObject({ version_id: v2.version_id, test: false });
    await deleteAlias(testPlatform({ clock }), accountId, app.app_id, 'beta');
    expect(await findAliasPointer(accountId, 'beta')).toBeUndefined();
    expect(Object.keys((await findApp(accountId, app.app_id))!.alias_pins).sort()).toEqual(['preview', 'shop']);
  });

  it('refuses an 11th alias (422), a taken one (409), the primary (422) and a bad pin (400)', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    const other = await newApp(accountId, { alias: 'taken' });
    const foreign = await upload(platform, accountId, other.app_id);
    expect(await refusal(createAlias(testPlatform({ clock }), accountId, app.app_id, { alias: 'taken' }))).toMatchObject({ status: 409, code: 'in_use' });
    expect(await refusal(createAlias(testPlatform({ clock }), accountId, app.app_id, { alias: 'shop' }))).toMatchObject({ status: 409, code: 'in_use' });
    expect(await refusal(createAlias(testPlatform({ clock }), accountId, app.app_id, { alias: 'pin', version_id: foreign.version_id }))).toMatchObject({ status: 400, meta: { property: 'version_id', reason: 'not_found' } });
    for (let index = 1; index < 10; index++) await createAlias(testPlatform({ clock }), accountId, app.app_id, { alias: `a${index}` });
    expect(await refusal(createAlias(testPlatform({ clock }), accountId, app.app_id, { alias: 'a10' }))).toMatchObject({ status: 422, code: 'account_limit_exceeded' });
    expect(await refusal(deleteAlias(testPlatform({ clock }), accountId, app.app_id, 'shop'))).toMatchObject({ status: 422, code: 'invalid_state' });
    expect(await refusal(updateAlias(testPlatform({ clock }), accountId, app.app_id, 'shop', { test: false }))).toMatchObject({ status: 422, code: 'invalid_state' });
    expect(await refusal(deleteAlias(testPlatform({ clock }), accountId, app.app_id, 'taken'))).toMatchObject({ status: 404 });
    expect(await refusal(updateAlias(testPlatform({ clock }), accountId, app.app_id, 'nope', { test: false }))).toMatchObject({ status: 404 });
    expect(await findAliasPointer(accountId, 'shop')).toBeDefined();
  });
});

describe('deleting an app', () => {
  it('stops every alias at once and removes its files, versions and deployments', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId, { custom_css: 'a{}' });
    const keep = await newApp(accountId, { alias: 'keep' });
    const [v1, v2] = [await upload(platform, accountId, app.app_id), await upload(platform, accountId, app.app_id)];
    await upload(platform, accountId, keep.app_id);
    await deployVersion(platform, accountId, app.app_id, v1.version_id, by);
    await createAlias(testPlatform({ clock }), accountId, app.app_id, { alias: 'preview', version_id: v2.version_id });
    await deleteApp(platform, accountId, app.app_id);
    expect(await findApp(accountId, app.app_id)).toBeUndefined();
    expect(await findAliasPointer(accountId, 'shop')).toBeUndefined();
    expect(await findAliasPointer(accountId, 'preview')).toBeUndefined();
    expect(keysOf(platform, `apps/${accountId}/${app.app_id}/`)).toEqual([]);
    expect(keysOf(platform, `app-manifests/${accountId}/${app.app_id}/`)).toEqual([]);
    expect(await allVersions(accountId, app.app_id)).toEqual([]);
    expect(await allDeployments(accountId, app.app_id)).toEqual([]);
    expect(await findDue('app-files', dueScope(accountId), app.app_id)).toBeUndefined();
    // The other app is untouched; the alias is free again.
    expect(keysOf(platform, `apps/${accountId}/${keep.app_id}/`)).toHaveLength(1);
    expect((await listApps(accountId, { offset: 0, limit: 100, sortBy: 'date_created', descending: false })).items.map((each) => each.app_id)).toEqual([keep.app_id]);
    await newApp(accountId, { name: 'Again' });
  });

  it('leaves the rest to the sweep when the request runs out of budget or fails', async () => {
    const accountId = newAccount();
    const platform = testPlatform({ clock });
    const app = await newApp(accountId);
    await upload(platform, accountId, app.app_id);
    const broken = testPlatform({ clock, objects: { ...platform.objects, delete: () => Promise.reject(new Error('S3 is down')) } });
    await deleteApp(broken, accountId, app.app_id);
    expect(await findAliasPointer(accountId, 'shop')).toBeUndefined();
    expect(keysOf(platform, `apps/${accountId}/`)).toHaveLength(1);
    const due = await findDue('app-files', dueScope(accountId), app.app_id);
    expect(due).toMatchObject({ last_failure: 'S3 is down' });
    await sweepDue(platform, [appFilesWork], due!.next_ms + 1);
    expect(keysOf(platform, `apps/${accountId}/`)).toEqual([]);
    expect(await findDue('app-files', dueScope(accountId), app.app_id)).toBeUndefined();
  });

  it('answers 404 for an app that does not exist', async () => {
    expect(await refusal(deleteApp(testPlatform({ clock }), newAccount(), 'NOSUCHAPP'))).toMatchObject({ status: 404, code: 'resource_not_found' });
  });
});
