/**
 * Taking a list's codes for license requests (licenses.md §6, §8) against the real local
 * DynamoDB emulator, with real concurrency: concurrent takers never get the same code, a take
 * is all or nothing per chunk together with the caller's own entries, issued codes never come
 * back, shared lists hand out their first codes without writing, and low_licenses fires once
 * and re-arms.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../../shared/rest/validate';
import { requestsOutstandingEntry, takeCodes, TAKE_CHUNK, type TakeCodesResult } from '../../../shared/modules/licenses/services';
import { codeHash, codePartition } from '../../../shared/modules/licenses/services/license-code-store';
import { licenseServiceCreate, licenseServiceUpdate } from '../../../shared/modules/licenses/services/license-service-schemas';
import { createLicenseService, getLicenseService, licenseServiceDeclaration, serviceCodes, reviseLicenseService } from '../../../shared/modules/licenses/services/license-services';
import type { LicenseServiceRecord } from '../../../shared/modules/licenses/services/license-service-record';
import type { RenderContext } from '../../../shared/rest/render-context';
import { db, table } from '../../../shared/store/client';
import { queryItems } from '../../../shared/store/query';
import type { RecordScope, TransactEntry } from '../../../shared/store/entity';
import { retryOnConflict } from '../../../shared/store/records';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { testPlatform } from '../../support/platform';

const harness = new Harness();
useEmulatedTable(harness);

const platform = testPlatform();
const scope: RecordScope = { accountId: 'TAKE', mode: 'test' };
const codesFrom = (count: number, prefix = 'C') => Array.from({ length: count }, (_, index) => `${prefix}-${String(index).padStart(3, '0')}`);

async function create(configuration: Record<string, unknown>, type = 'list') {
  const body = type === 'list' ? { name: 'Codes', type, configuration } : { name: 'Remote', type, configuration: { url: 'https://keys.example.test/issue' } };
  return (await createLicenseService(scope, parseInput(licenseServiceCreate, body), platform)).license_service_id;
}

function change(serviceId: string, body: Record<string, unknown>) {
  return retryOnConflict(async () => reviseLicenseService(await getLicenseService(scope, serviceId), parseInput(licenseServiceUpdate, body), platform));
}

/** A reserve callback that records a marker item per chunk, in the take's transaction, and what it was given. */
function recorder(requestId: string) {
  const calls: Array<{ codes: string[]; before: number }> = [];
  const reserve = (codes: readonly string[], before: number): TransactEntry[] => {
    calls.push({ codes: [...codes], before });
    return [{ name: 'request.reserve', item: { Put: { TableName: table(), Item: { pk: `test-request#${requestId}`, sk: `chunk#${before}`, codes: [...codes] } } } }];
  };
  return { calls, reserve };
}

async function reservedBy(requestId: string): Promise<string[]> {
  const items = await queryItems({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `test-request#${requestId}` }, ConsistentRead: true });
  return items.flatMap((item) => item.codes as string[]);
}

async function occurrences(serviceId: string): Promise<Array<Record<string, unknown>>> {
  const items = await queryItems({
    TableName: table(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': `${scope.accountId}#${scope.mode}#occurrences` },
  });
  return items.filter((item) => item.type === 'license_service:low_licenses' && item.data_id === serviceId);
}

const now = () => Date.now();

describe('taking codes of a consumed list', () => {
  it('gives 5 concurrent takers of 1 code the 3 codes exactly once; the other 2 find none', async () => {
    const id = await create({ licenses: ['K1', 'K2', 'K3'] });
    const results = await Promise.all(Array.from({ length: 5 }, (_, taker) => takeCodes(scope, id, 1, { now: now(), reserve: recorder(`concurrent-${taker}`).reserve })));
    const taken = results.flatMap((result) => (result.outcome === 'taken' ? result.codes : []));
    expect(taken.sort()).toEqual(['K1', 'K2', 'K3']);
    expect(results.filter((result) => result.outcome === 'none_available')).toEqual([
      { outcome: 'none_available', available: 0 },
      { outcome: 'none_available', available: 0 },
    ]);
    // Each taker's reservation holds exactly its own code.
    const reserved = (await Promise.all(Array.from({ length: 5 }, (_, taker) => reservedBy(`concurrent-${taker}`)))).flat();
    expect(reserved.sort()).toEqual(['K1', 'K2', 'K3']);
    const service = await getLicenseService(scope, id);
    expect(service.license_count).toBe(0);
    expect(await serviceCodes(service)).toEqual([]);
  });

  it('takes 50 of 60 codes in chunks, in list order, each chunk with the caller’s entries', async () => {
    const id = await create({ licenses: codesFrom(60) });
    const { calls, reserve } = recorder('per-quantity');
    const result = await takeCodes(scope, id, 50, { now: now(), reserve });
    expect(result).toEqual({ outcome: 'taken', codes: codesFrom(50) });
    expect(calls.map((call) => [call.codes.length, call.before])).toEqual([[TAKE_CHUNK, 0], [50 - TAKE_CHUNK, TAKE_CHUNK]]);
    expect(await reservedBy('per-quantity')).toEqual(codesFrom(50));
    const service = await getLicenseService(scope, id);
    expect(service.license_count).toBe(10);
    expect(await serviceCodes(service)).toEqual(codesFrom(60).slice(50));
    expect(await takeCodes(scope, id, 11, { now: now(), reserve })).toEqual({ outcome: 'none_available', available: 10 });
  });

  it('keeps concurrent multi-chunk takers apart', async () => {
    const id = await create({ licenses: codesFrom(130) });
    const results = await Promise.all([0, 1, 2].map((taker) => takeCodes(scope, id, 43, { now: now(), reserve: recorder(`multi-${taker}`).reserve })));
    const taken = results.flatMap((result) => (result.outcome === 'taken' ? result.codes : []));
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.length).toBe(129);
    expect((await getLicenseService(scope, id)).license_count).toBe(1);
  });

  it('records every taken code as issued, and never hands it out again', async () => {
    const id = await create({ licenses: ['A', 'B'] });
    await takeCodes(scope, id, 1, { now: now(), reserve: () => [] });
    const marker = await db().send(new GetCommand({ TableName: table(), Key: { pk: codePartition(scope, id), sk: `issued#${codeHash('A')}` } }));
    expect(marker.Item).toBeDefined();
    // A code issued while a replacement was being computed can reach the new list (as if B had been):
    // a take drops it from the list instead of handing it out.
    await db().send(new PutCommand({ TableName: table(), Item: { pk: codePartition(scope, id), sk: `issued#${codeHash('B')}`, issued_ms: 1 } }));
    expect(await takeCodes(scope, id, 1, { now: now(), reserve: () => [] })).toEqual({ outcome: 'none_available', available: 0 });
    expect((await getLicenseService(scope, id)).license_count).toBe(0);
  });

  it('takes nothing when the caller’s own entry is refused (one transaction), and passes its error on', async () => {
    const id = await create({ licenses: ['A', 'B'] });
    const refused: TransactEntry = {
      name: 'request.reserve',
      item: { Put: { TableName: table(), Item: { pk: 'test-request#refused', sk: 'x' }, ConditionExpression: 'attribute_exists(pk)' } },
      onConditionFailed: () => new Error('the request moved on'),
    };
    await expect(takeCodes(scope, id, 1, { now: now(), reserve: () => [refused] })).rejects.toThrow('the request moved on');
    const service = await getLicenseService(scope, id);
    expect(service.license_count).toBe(2);
    expect(await serviceCodes(service)).toEqual(['A', 'B']);
  });

  it('gives up with an Error after 20 refused rounds, taking nothing', async () => {
    const id = await create({ licenses: ['A'] });
    const neverThere: TransactEntry = { name: 'request.reserve', item: { Put: { TableName: table(), Item: { pk: 'test-request#never', sk: 'x' }, ConditionExpression: 'attribute_exists(pk)' } } };
    await expect(takeCodes(scope, id, 1, { now: now(), reserve: () => [neverThere] })).rejects.toThrow(/kept conflicting/);
    expect((await getLicenseService(scope, id)).license_count).toBe(1);
  });

  it('answers none_available at once when too few codes are left, taking nothing', async () => {
    const id = await create({ licenses: ['A', 'B'] });
    const { calls, reserve } = recorder('short');
    expect(await takeCodes(scope, id, 3, { now: now(), reserve })).toEqual({ outcome: 'none_available', available: 2 });
    expect(calls).toEqual([]);
    expect((await getLicenseService(scope, id)).license_count).toBe(2);
  });

  it('refuses takes from remote services, unknown services and bad counts', async () => {
    const remote = await create({}, 'remote_url');
    await expect(takeCodes(scope, remote, 1, { now: now(), reserve: () => [] })).rejects.toThrow(/not a list service/);
    await expect(takeCodes(scope, 'NOPE', 1, { now: now(), reserve: () => [] })).rejects.toMatchObject({ status: 404 });
    const id = await create({ licenses: ['A'] });
    await expect(takeCodes(scope, id, 0, { now: now(), reserve: () => [] })).rejects.toThrow(/positive/);
  });

  it('takes codes added after a replacement from the new list only', async () => {
    const id = await create({ licenses: ['OLD-1', 'OLD-2'] });
    await change(id, { configuration: { licenses: ['NEW-1'] } });
    expect(await takeCodes(scope, id, 1, { now: now(), reserve: () => [] })).toEqual({ outcome: 'taken', codes: ['NEW-1'] });
    await change(id, { configuration: { add_licenses: ['NEW-2', 'OLD-1'] } });
    expect(await takeCodes(scope, id, 2, { now: now(), reserve: () => [] })).toEqual({ outcome: 'taken', codes: ['NEW-2', 'OLD-1'] });
  });
});

describe('shared lists (remove_after_use: false)', () => {
  it('hand every request the first codes, write nothing and call no reserve', async () => {
    const id = await create({ licenses: ['S1', 'S2', 'S3'], remove_after_use: false, notify_at_count: 5 });
    const { calls, reserve } = recorder('shared');
    const results: TakeCodesResult[] = await Promise.all([1, 2, 2].map((count) => takeCodes(scope, id, count, { now: now(), reserve })));
    expect(results).toEqual([{ outcome: 'taken', codes: ['S1'] }, { outcome: 'taken', codes: ['S1', 'S2'] }, { outcome: 'taken', codes: ['S1', 'S2'] }]);
    expect(await takeCodes(scope, id, 4, { now: now(), reserve })).toEqual({ outcome: 'none_available', available: 3 });
    expect(calls).toEqual([]);
    expect((await getLicenseService(scope, id)).license_count).toBe(3);
    expect(await occurrences(id)).toEqual([]);
  });
});

describe('low_licenses (licenses.md §8)', () => {
  it('fires once when the count drops to the threshold, with the service as data, and re-arms above it', async () => {
    const id = await create({ licenses: codesFrom(5), notify_at_count: 2 });
    await takeCodes(scope, id, 2, { now: now(), reserve: () => [] });
    expect(await occurrences(id)).toHaveLength(0);
    await takeCodes(scope, id, 1, { now: now(), reserve: () => [] });
    const [fired] = await occurrences(id);
    expect(fired).toMatchObject({ data_resource: 'license_service', data_record: { license_service_id: id, license_count: 2, low_licenses_notified: true } });
    expect(JSON.stringify(fired!.data_record)).not.toContain('C-004');
    // Notifications render it through the declaration: no codes, no secrets.
    const context = { url: (path: string) => `https://api.example.test/api/v1/${path}`, date: () => '2026-01-01T00:00:00Z' } as unknown as RenderContext;
    const data = licenseServiceDeclaration.toJson(fired!.data_record as LicenseServiceRecord, context);
    expect(data.configuration).toEqual({ license_count: 2, per_quantity: false, remove_after_use: true, notify_at_count: 2, url: null, format: null, http_authorization_username: null, custom_header_name: null });
    expect((await getLicenseService(scope, id)).low_licenses_notified).toBe(true);
    await takeCodes(scope, id, 1, { now: now(), reserve: () => [] });
    expect(await occurrences(id)).toHaveLength(1);

    // Adding codes above the threshold re-arms it; the next drop fires again.
    const refilled = await change(id, { configuration: { add_licenses: ['R1', 'R2'] } });
    expect(refilled).toMatchObject({ license_count: 3, low_licenses_notified: false });
    await takeCodes(scope, id, 1, { now: now(), reserve: () => [] });
    expect(await occurrences(id)).toHaveLength(2);
  });

  it('fires when a request finds too few codes, once, even above the threshold', async () => {
    const id = await create({ licenses: codesFrom(4), notify_at_count: 1 });
    expect(await takeCodes(scope, id, 10, { now: now(), reserve: () => [] })).toEqual({ outcome: 'none_available', available: 4 });
    expect(await takeCodes(scope, id, 10, { now: now(), reserve: () => [] })).toMatchObject({ outcome: 'none_available' });
    expect(await occurrences(id)).toHaveLength(1);
  });

  it('does not fire without a threshold, and re-arms when the threshold is lowered below the count or cleared', async () => {
    const quiet = await create({ licenses: ['A'] });
    await takeCodes(scope, quiet, 1, { now: now(), reserve: () => [] });
    await takeCodes(scope, quiet, 1, { now: now(), reserve: () => [] });
    expect(await occurrences(quiet)).toEqual([]);

    const id = await create({ licenses: codesFrom(3), notify_at_count: 3 });
    await takeCodes(scope, id, 1, { now: now(), reserve: () => [] });
    expect((await getLicenseService(scope, id)).low_licenses_notified).toBe(true);
    expect((await change(id, { configuration: { notify_at_count: 2 } })).low_licenses_notified).toBe(true);
    expect((await change(id, { configuration: { notify_at_count: 1 } })).low_licenses_notified).toBe(false);
    await takeCodes(scope, id, 1, { now: now(), reserve: () => [] });
    expect(await occurrences(id)).toHaveLength(2);
    expect((await change(id, { configuration: { notify_at_count: null } })).low_licenses_notified).toBe(false);
  });
});

describe('outstanding requests', () => {
  it('counts with requestsOutstandingEntry, which needs the service to exist', async () => {
    const id = await create({ licenses: ['A'] });
    const { transact } = await import('../../../shared/store/entity');
    await transact([requestsOutstandingEntry(scope, id, 1)]);
    await transact([requestsOutstandingEntry(scope, id, 1), requestsOutstandingEntry(scope, await create({}), 1)]);
    expect((await getLicenseService(scope, id)).requests_outstanding).toBe(2);
    await expect(transact([requestsOutstandingEntry(scope, 'GONE', 1)])).rejects.toMatchObject({ name: 'TransactionRejectedError', rejected: ['license service.requests-outstanding'] });
  });

  it('lowers the count in the chunk that completes a take (requestsOutstanding), not on none_available', async () => {
    const id = await create({ licenses: codesFrom(45) });
    const { transact } = await import('../../../shared/store/entity');
    await transact([requestsOutstandingEntry(scope, id, 3)]);
    expect(await takeCodes(scope, id, 50, { now: now(), reserve: () => [], requestsOutstanding: -1 })).toMatchObject({ outcome: 'none_available' });
    expect((await getLicenseService(scope, id)).requests_outstanding).toBe(3);
    await takeCodes(scope, id, 42, { now: now(), reserve: () => [], requestsOutstanding: -1 });
    expect((await getLicenseService(scope, id)).requests_outstanding).toBe(2);
  });
});
