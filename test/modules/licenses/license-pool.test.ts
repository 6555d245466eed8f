/**
 * A list service's codes against the real local DynamoDB emulator (licenses.md §2.1): creation
 * publishes its initial codes, `licenses` replaces and `add_licenses` appends, duplicates and
 * codes the service issued are dropped, more than 10,000 codes are refused with nothing
 * changed, concurrent writers are serialised by the pool lease, and a writer that crashed or
 * lost its lease never makes its codes visible.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../../shared/rest/validate';
import { codeHash, readPublishedCodes, writeCodes } from '../../../shared/modules/licenses/services/license-code-store';
import { takeCodes } from '../../../shared/modules/licenses/services';
import { licenseServiceCreate, licenseServiceUpdate } from '../../../shared/modules/licenses/services/license-service-schemas';
import { acquirePoolLease, licenseServiceKey, publishPool, reservePoolRange } from '../../../shared/modules/licenses/services/license-service-store';
import { createLicenseService, getLicenseService, serviceCodes, reviseLicenseService } from '../../../shared/modules/licenses/services/license-services';
import { db, table } from '../../../shared/store/client';
import type { RecordScope } from '../../../shared/store/entity';
import { retryOnConflict } from '../../../shared/store/records';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { testPlatform } from '../../support/platform';

const harness = new Harness();
useEmulatedTable(harness);

const platform = testPlatform();
const scope: RecordScope = { accountId: 'POOL', mode: 'test' };

async function create(configuration: Record<string, unknown> = {}, name = 'Codes') {
  return createLicenseService(scope, parseInput(licenseServiceCreate, { name, type: 'list', configuration }), platform);
}

/** An update as the endpoint makes it: read, apply, again on a lost race. */
function change(serviceId: string, body: Record<string, unknown>, options: { waitMs?: number; leaseMs?: number } = {}) {
  return retryOnConflict(async () => reviseLicenseService(await getLicenseService(scope, serviceId), parseInput(licenseServiceUpdate, body), platform, options));
}

async function codesOf(serviceId: string): Promise<string[]> {
  return (await serviceCodes(await getLicenseService(scope, serviceId)))!;
}

async function rawItem(serviceId: string): Promise<Record<string, unknown>> {
  return (await db().send(new GetCommand({ TableName: table(), Key: licenseServiceKey(scope, serviceId) }))).Item!;
}

const take = (serviceId: string, count: number) => takeCodes(scope, serviceId, count, { now: Date.now(), reserve: () => [] });

describe('writing codes', () => {
  it('publishes the initial codes with the service, without duplicates', async () => {
    const service = await create({ licenses: ['A', 'B', 'A', ' C '] });
    expect(service.license_count).toBe(3);
    expect(service.privileged.licenses).toEqual(['A', 'B', 'C']);
    expect(await codesOf(service.license_service_id)).toEqual(['A', 'B', 'C']);
    // The codes are not in the service item.
    expect(JSON.stringify(await rawItem(service.license_service_id))).not.toContain('"A"');
  });

  it('appends add_licenses, dropping codes already in the list; replaces with licenses', async () => {
    const service = await create({ licenses: ['A', 'B'] });
    const id = service.license_service_id;
    const added = await change(id, { configuration: { add_licenses: ['B', 'C', 'C', 'D'] } });
    expect(added.license_count).toBe(4);
    expect(added.privileged.licenses).toEqual(['A', 'B', 'C', 'D']);
    const replaced = await change(id, { name: 'Renamed', configuration: { licenses: ['X', 'Y'] } });
    expect(replaced).toMatchObject({ name: 'Renamed', license_count: 2 });
    expect(await codesOf(id)).toEqual(['X', 'Y']);
    // Both at once: the new list, then the appended codes.
    await change(id, { configuration: { licenses: ['P'], add_licenses: ['Q', 'P'] } });
    expect(await codesOf(id)).toEqual(['P', 'Q']);
    const emptied = await change(id, { configuration: { licenses: [] } });
    expect(emptied.license_count).toBe(0);
    expect(await codesOf(id)).toEqual([]);
    expect((await change(id, { configuration: { add_licenses: ['Z'] } })).license_count).toBe(1);
    expect(await codesOf(id)).toEqual(['Z']);
  });

  it('deletes the items of a replaced list (best effort, after publishing)', async () => {
    const service = await create({ licenses: ['A', 'B', 'C'] });
    await change(service.license_service_id, { configuration: { licenses: ['D'] } });
    const record = await getLicenseService(scope, service.license_service_id);
    const everything = await readPublishedCodes(scope, service.license_service_id, { pool_start: 0, pool_end: record.pool_next, pool_holes: [] });
    expect(everything.map((code) => code.code)).toEqual(['D']);
  });

  it('never stores again a code the service issued, when it consumes codes', async () => {
    const service = await create({ licenses: ['A', 'B', 'C'] });
    const id = service.license_service_id;
    expect(await take(id, 2)).toEqual({ outcome: 'taken', codes: ['A', 'B'] });
    // Posting back an old copy of the list, or adding the old codes again, brings back none of them.
    expect((await change(id, { configuration: { licenses: ['A', 'B', 'C', 'D'] } })).privileged.licenses).toEqual(['C', 'D']);
    expect((await change(id, { configuration: { add_licenses: ['A', 'E'] } })).privileged.licenses).toEqual(['C', 'D', 'E']);
    // Shared lists consume nothing, so they drop nothing either.
    expect((await change(id, { configuration: { remove_after_use: false, add_licenses: ['B'] } })).privileged.licenses).toEqual(['C', 'D', 'E', 'B']);
  });

  it('skips the rewrite when a posted-back list equals the stored one', async () => {
    const service = await create({ licenses: ['A', 'B'] });
    const before = await rawItem(service.license_service_id);
    const saved = await change(service.license_service_id, { description: 'x', configuration: { licenses: ['A', 'B'] } });
    expect(saved.description).toBe('x');
    const after = await rawItem(service.license_service_id);
    expect([after.pool_generation, after.pool_start, after.pool_end]).toEqual([before.pool_generation, before.pool_start, before.pool_end]);
  });

  it('refuses more than 10,000 codes with 422 and changes nothing', async () => {
    const many = Array.from({ length: 10_001 }, (_, index) => `K-${index}`);
    await expect(create({ licenses: many }, 'Too many')).rejects.toMatchObject({ status: 422, code: 'account_limit_exceeded', meta: { property: 'configuration.licenses' } });

    const service = await create({ licenses: many.slice(0, 9_999) });
    const id = service.license_service_id;
    const before = await rawItem(id);
    await expect(change(id, { name: 'x', configuration: { add_licenses: ['new-1', 'new-2'] } })).rejects.toMatchObject({ status: 422, meta: { property: 'configuration.add_licenses', limit: 10_000 } });
    await expect(change(id, { configuration: { licenses: many } })).rejects.toMatchObject({ status: 422 });
    const after = await rawItem(id);
    expect({ ...after, pool_next: 0 }).toEqual({ ...before, pool_next: 0 });
    expect(after.pool_lock).toBeUndefined();
    // Exactly 10,000 fits, duplicates of stored codes not counted.
    expect((await change(id, { configuration: { add_licenses: ['K-0', 'new-1'] } })).license_count).toBe(10_000);
  }, 120_000);

  it('serialises concurrent writers: every append lands once', async () => {
    const service = await create({ licenses: ['seed'] });
    const id = service.license_service_id;
    const batches = Array.from({ length: 6 }, (_, writer) => Array.from({ length: 30 }, (_, index) => `w${writer}-${index}`));
    await Promise.all(batches.map((codes) => change(id, { configuration: { add_licenses: codes } })));
    const codes = await codesOf(id);
    expect(codes).toHaveLength(1 + 6 * 30);
    expect(new Set(codes).size).toBe(codes.length);
    expect((await getLicenseService(scope, id)).license_count).toBe(181);
  });

  it('answers 409 in_use when another writer keeps the lease past the wait', async () => {
    const service = await create({ licenses: ['A'] });
    const id = service.license_service_id;
    expect(await acquirePoolLease(scope, id, 'OTHER', Date.now(), Date.now() + 60_000)).toBeDefined();
    await expect(change(id, { configuration: { add_licenses: ['B'] } }, { waitMs: 50 })).rejects.toMatchObject({ status: 409, code: 'in_use', meta: { property: 'configuration', reason: 'in_progress' } });
    // Settings without codes do not wait for the lease.
    expect((await change(id, { name: 'Renamed while leased' })).name).toBe('Renamed while leased');
    expect(await codesOf(id)).toEqual(['A']);
  });

  it('takes over a lapsed lease; the writer that lost it cannot publish and its codes are never read', async () => {
    const service = await create({ licenses: ['A'] });
    const id = service.license_service_id;
    // A writer took the lease a long time ago, reserved a range and wrote into it, then stalled (or crashed).
    const stale = (await acquirePoolLease(scope, id, 'STALE', Date.now() - 120_000, Date.now() - 60_000))!;
    expect(await reservePoolRange(scope, id, 'STALE', stale.pool_next, 2)).toBe(true);
    await writeCodes(scope, id, stale.pool_next, ['ghost-1', 'ghost-2']);

    const added = await change(id, { configuration: { add_licenses: ['B'] } });
    expect(added.privileged.licenses).toEqual(['A', 'B']);
    expect(added.pool_holes).toEqual([[stale.pool_next, stale.pool_next + 2]]);
    // The stale writer wakes up: its publication is refused, and what it writes now stays unread.
    expect(await publishPool(scope, id, { token: 'STALE', version: added.modified_ms, set: { pool_end: stale.pool_next + 2, license_count: 3 } })).toBe(false);
    await writeCodes(scope, id, stale.pool_next, ['ghost-3', 'ghost-4']);
    expect(await codesOf(id)).toEqual(['A', 'B']);
    expect(await take(id, 2)).toEqual({ outcome: 'taken', codes: ['A', 'B'] });
    expect(await take(id, 1)).toEqual({ outcome: 'none_available', available: 0 });
  });

  it('applies settings sent with the codes in the same publication, validated against the version read', async () => {
    const service = await create({ licenses: ['A'], notify_at_count: 5 });
    const id = service.license_service_id;
    const current = await getLicenseService(scope, id);
    // A concurrent settings change after this read: the codes write is refused as a lost race, nothing published...
    await change(id, { label: 'Other writer' });
    await expect(reviseLicenseService(current, parseInput(licenseServiceUpdate, { configuration: { add_licenses: ['B'] } }), platform)).rejects.toMatchObject({ name: 'VersionConflictError' });
    expect(await codesOf(id)).toEqual(['A']);
    // ...and the endpoint's retry applies it on top.
    const saved = await change(id, { description: 'with codes', configuration: { add_licenses: ['B'] } });
    expect(saved).toMatchObject({ label: 'Other writer', description: 'with codes', license_count: 2 });
    expect((await rawItem(id)).pool_lock).toBeUndefined();
  });

  it('gives up (409 in_use) when its lease lapsed and another writer took over mid-write; its codes never show', async () => {
    const service = await create({ licenses: ['A'] });
    const id = service.license_service_id;
    // A writer with a 1 ms lease writing many batches: its lease lapses between batches.
    const slow = change(id, { configuration: { add_licenses: Array.from({ length: 3000 }, (_, index) => `slow-${index}`) } }, { leaseMs: 1 });
    const settled = slow.then(() => 'published', (error: unknown) => error);
    while (!(await rawItem(id)).pool_lock) await new Promise((resolve) => setTimeout(resolve, 1));
    const fast = await change(id, { configuration: { add_licenses: ['B'] } }, { waitMs: 30_000 });
    expect(fast.privileged.licenses).toEqual(['A', 'B']);
    expect(await settled).toMatchObject({ status: 409, code: 'in_use' });
    expect(await codesOf(id)).toEqual(['A', 'B']);
    expect((await getLicenseService(scope, id)).license_count).toBe(2);
  }, 60_000);

  it('answers 404 when the service was deleted before its codes were written', async () => {
    const service = await create({ licenses: ['A'] });
    const current = await getLicenseService(scope, service.license_service_id);
    const { deleteLicenseService } = await import('../../../shared/modules/licenses/services/license-services');
    await deleteLicenseService(current);
    await expect(reviseLicenseService(current, parseInput(licenseServiceUpdate, { configuration: { add_licenses: ['B'] } }), platform)).rejects.toMatchObject({ status: 404 });
  });

  it('hashes codes for duplicate checks and issued markers (SHA-256, hex)', () => {
    expect(codeHash('A')).toBe('559aead08264d5795d3909718cdd05abd49572e84fe55590eef31a88a08fdffd');
  });
});
