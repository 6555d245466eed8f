/**
 * License services against the real local DynamoDB emulator: the secret properties are sealed
 * in the stored item (never in clear) and bound to their service, re-sealed only when they
 * change; a refused URL writes nothing; modes are apart; a delete is refused while requests are
 * outstanding and takes the codes' partition with it; settings saves never overwrite the
 * counters that takes and requests keep.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../../shared/rest/validate';
import { findLicenseServices, openServiceSecrets, requestsOutstandingEntry, takeCodes } from '../../../shared/modules/licenses/services';
import { codePartition } from '../../../shared/modules/licenses/services/license-code-store';
import { licenseServiceCreate, licenseServiceUpdate } from '../../../shared/modules/licenses/services/license-service-schemas';
import { licenseServiceKey, licenseServicePartition } from '../../../shared/modules/licenses/services/license-service-store';
import { createLicenseService, deleteLicenseService, getLicenseService, reviseLicenseService } from '../../../shared/modules/licenses/services/license-services';
import { db, table } from '../../../shared/store/client';
import { transact, type RecordScope } from '../../../shared/store/entity';
import { readOffsetPage } from '../../../shared/store/offset-index';
import { queryItems } from '../../../shared/store/query';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { testPlatform } from '../../support/platform';

const harness = new Harness();
useEmulatedTable(harness);

const platform = testPlatform();
const test: RecordScope = { accountId: 'STORE', mode: 'test' };
const live: RecordScope = { accountId: 'STORE', mode: 'live' };
const remote = { name: 'Keys', type: 'remote_url', configuration: { url: 'https://keys.example.test/issue', http_authorization_username: 'store', http_authorization_password: 'pw-secret', custom_header_name: 'X-Pool', custom_header_value: 'pool-secret' } };

const create = (body: Record<string, unknown>, scope = test) => createLicenseService(scope, parseInput(licenseServiceCreate, body), platform);
const rawItem = async (scope: RecordScope, id: string) => (await db().send(new GetCommand({ TableName: table(), Key: licenseServiceKey(scope, id) }))).Item!;

describe('license service storage', () => {
  it('stores the secrets sealed, never in clear, and opens them for the outbound request', async () => {
    const created = await create(remote);
    const item = await rawItem(test, created.license_service_id);
    expect(JSON.stringify(item)).not.toMatch(/pw-secret|pool-secret/);
    expect(item.secrets_sealed).toMatch(/^local:/);
    expect(item).toMatchObject({ http_authorization_username: 'store', custom_header_name: 'X-Pool' });
    expect(await openServiceSecrets(await getLicenseService(test, created.license_service_id), platform.secrets)).toEqual({ http_authorization_password: 'pw-secret', custom_header_value: 'pool-secret' });
    const plain = await create({ name: 'List', type: 'list' });
    expect((await rawItem(test, plain.license_service_id)).secrets_sealed).toBeNull();
    expect(await openServiceSecrets(plain, platform.secrets)).toEqual({ http_authorization_password: null, custom_header_value: null });
  });

  it('binds the sealed value to its service and seals again only when a secret changes', async () => {
    const first = await create(remote);
    const second = await create({ ...remote, configuration: { url: 'https://keys.example.test/other' } });
    await expect(openServiceSecrets({ ...second, secrets_sealed: first.secrets_sealed }, platform.secrets)).rejects.toThrow();
    const sealed = first.secrets_sealed;
    const renamed = await reviseLicenseService(await getLicenseService(test, first.license_service_id), parseInput(licenseServiceUpdate, { name: 'Renamed' }), platform);
    expect(renamed.secrets_sealed).toBe(sealed);
    const changed = await reviseLicenseService(await getLicenseService(test, first.license_service_id), parseInput(licenseServiceUpdate, { configuration: { custom_header_value: 'new-secret' } }), platform);
    expect(changed.secrets_sealed).not.toBe(sealed);
    expect(changed.privileged.secrets).toEqual({ http_authorization_password: 'pw-secret', custom_header_value: 'new-secret' });
  });

  it('writes nothing for a refused URL, at create and at update', async () => {
    const refusing = testPlatform({ http: { ...platform.http, allowsDestination: () => Promise.resolve(false) } });
    const scope = { accountId: 'REFUSED', mode: 'test' as const };
    await expect(createLicenseService(scope, parseInput(licenseServiceCreate, remote), refusing)).rejects.toMatchObject({ status: 400, meta: { property: 'configuration.url', reason: 'destination_not_allowed' } });
    expect((await readOffsetPage(licenseServicePartition(scope), 0, 10, false)).total).toBe(0);
    // List services have no address to check.
    await expect(createLicenseService(scope, parseInput(licenseServiceCreate, { name: 'L', type: 'list' }), refusing)).resolves.toMatchObject({ type: 'list' });
    const made = await create(remote);
    await expect(reviseLicenseService(made, parseInput(licenseServiceUpdate, { configuration: { url: 'http://10.0.0.1/x' } }), platform)).rejects.toMatchObject({ meta: { reason: 'destination_not_allowed' } });
    expect((await getLicenseService(test, made.license_service_id)).url).toBe('https://keys.example.test/issue');
  });

  it('keeps modes apart and reads many services in one batch', async () => {
    const inLive = await create({ name: 'Live', type: 'list' }, live);
    const inTest = await create({ name: 'Test', type: 'list' });
    await expect(getLicenseService(test, inLive.license_service_id)).rejects.toMatchObject({ status: 400, code: 'token_type_mismatch' });
    await expect(getLicenseService(test, 'NOPE')).rejects.toMatchObject({ status: 404, code: 'resource_not_found' });
    const found = await findLicenseServices(test, [inLive.license_service_id, inTest.license_service_id, 'NOPE']);
    expect([...found.keys()]).toEqual([inTest.license_service_id]);
  });

  it('never overwrites the counters takes and requests keep when settings are saved', async () => {
    const made = await create({ name: 'Counted', type: 'list', configuration: { licenses: ['A', 'B', 'C'] } });
    const stale = await getLicenseService(test, made.license_service_id);
    await transact([requestsOutstandingEntry(test, made.license_service_id, 2)]);
    await takeCodes(test, made.license_service_id, 1, { now: Date.now(), reserve: () => [], requestsOutstanding: -1 });
    // A save from a read made before the take: only the settings it sends are written.
    const saved = await reviseLicenseService(stale, parseInput(licenseServiceUpdate, { label: 'Key' }), platform);
    expect(saved.label).toBe('Key');
    const now = await getLicenseService(test, made.license_service_id);
    expect(now).toMatchObject({ label: 'Key', license_count: 2, requests_outstanding: 1 });
  });

  it('refuses a delete while requests are outstanding (409 in_use), then deletes the record, its listing entry and its codes', async () => {
    const scope = { accountId: 'DELETE', mode: 'test' as const };
    const made = await create({ name: 'Busy', type: 'list', configuration: { licenses: ['A', 'B'] } }, scope);
    const id = made.license_service_id;
    await transact([requestsOutstandingEntry(scope, id, 1)]);
    await expect(deleteLicenseService(await getLicenseService(scope, id))).rejects.toMatchObject({ status: 409, code: 'in_use', meta: { reason: 'requests_outstanding' } });
    // The counter is read from the record inside the delete's condition: a stale read does not get past it.
    const stale = { ...(await getLicenseService(scope, id)), requests_outstanding: 0 };
    await expect(deleteLicenseService(stale)).rejects.toMatchObject({ status: 409 });
    await transact([requestsOutstandingEntry(scope, id, -1)]);
    await deleteLicenseService(await getLicenseService(scope, id));
    await expect(getLicenseService(scope, id)).rejects.toMatchObject({ status: 404 });
    expect((await readOffsetPage(licenseServicePartition(scope), 0, 10, false)).total).toBe(0);
    const left = await queryItems({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': codePartition(scope, id) }, ConsistentRead: true });
    expect(left).toEqual([]);
  });
});
