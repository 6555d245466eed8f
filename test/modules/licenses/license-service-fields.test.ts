/**
 * The rules of a license service (licenses.md §2.1): each property's own rules (the schemas,
 * codes included), the rules between properties checked on the service as it will be after a
 * partial update, and what readers with and without `license_services:update` see.
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/core/access/principal';
import { InvalidInputError } from '../../../shared/http/errors';
import { parseInput } from '../../../shared/rest/validate';
import type { RenderContext } from '../../../shared/rest/render-context';
import { RESERVED_HEADER_NAMES } from '../../../shared/modules/events/subscriptions';
import type { LicenseServiceRecord } from '../../../shared/modules/licenses/services/license-service-record';
import { licenseServiceCreate, licenseServiceUpdate, MAX_CODE_LENGTH } from '../../../shared/modules/licenses/services/license-service-schemas';
import { licenseServiceDeclaration, licenseServiceFields, maySeeSecrets, type LicenseServiceFields } from '../../../shared/modules/licenses/services/license-services';
import { distinctCodes, initialCodes, rearms } from '../../../shared/modules/licenses/services/license-pool';

const list = { name: 'Font pack codes', type: 'list' };
const remote = { name: 'Photo Editor keys', type: 'remote_url', configuration: { url: 'https://keys.example.test/issue' } };

/** The `meta` (and message) of the 400 a body gives, or undefined when it passes. */
function refusal(body: Record<string, unknown>, current?: LicenseServiceFields): Record<string, unknown> | undefined {
  try {
    licenseServiceFields(parseInput(current ? licenseServiceUpdate : licenseServiceCreate, body), current);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidInputError) return { ...(error.meta as Record<string, unknown>), message: error.message };
    throw error;
  }
}

const fieldsOf = (body: Record<string, unknown>) => licenseServiceFields(parseInput(licenseServiceCreate, body), undefined);
const update = (body: Record<string, unknown>, current: LicenseServiceFields) => licenseServiceFields(parseInput(licenseServiceUpdate, body), current);

describe('create body', () => {
  it('fills the defaults of a list service: label License, per_quantity false, remove_after_use true, no threshold, remote properties null', () => {
    const { settings, secrets, codes } = fieldsOf(list);
    expect(settings).toEqual({
      name: 'Font pack codes', label: 'License', instructions: null, description: null, type: 'list', expand: null,
      url: null, format: null, http_authorization_username: null, custom_header_name: null, per_quantity: false, remove_after_use: true, notify_at_count: null,
    });
    expect(secrets).toEqual({ http_authorization_password: null, custom_header_value: null });
    expect(codes).toBeUndefined();
  });

  it('accepts the remote example of licenses.md §2.2 and keeps its values; format defaults to json', () => {
    const { settings, secrets } = fieldsOf({
      name: 'Photo Editor keys', label: 'Serial number', instructions: '<p>Open <b>Help &gt; Register</b> and paste the serial number.</p>', type: 'remote_url',
      configuration: { url: 'https://keys.example.test/issue', format: 'xml', http_authorization_username: 'store', http_authorization_password: 'n0t-a-real-secret', custom_header_name: 'X-Key-Pool', custom_header_value: 'photo-pro' },
    });
    expect(settings).toMatchObject({ label: 'Serial number', url: 'https://keys.example.test/issue', format: 'xml', http_authorization_username: 'store', custom_header_name: 'X-Key-Pool', per_quantity: false, notify_at_count: null });
    expect(settings.instructions).toBe('<p>Open <b>Help &gt; Register</b> and paste the serial number.</p>');
    expect(secrets).toEqual({ http_authorization_password: 'n0t-a-real-secret', custom_header_value: 'photo-pro' });
    expect(fieldsOf(remote).settings.format).toBe('json');
  });

  it('requires name and type; name at most 100 characters, label at most 100, instructions 4,000, description 2,000', () => {
    expect(refusal({ type: 'list' })).toMatchObject({ property: 'name', reason: 'required' });
    expect(refusal({ name: '  ', type: 'list' })).toMatchObject({ property: 'name', reason: 'required' });
    expect(refusal({ name: 'n' })).toMatchObject({ property: 'type', reason: 'required' });
    expect(refusal({ name: 'n', type: 'file' })).toMatchObject({ property: 'type', reason: 'invalid' });
    expect(refusal({ ...list, name: 'n'.repeat(101) })).toMatchObject({ property: 'name', reason: 'too_long' });
    expect(refusal({ ...list, name: 'n'.repeat(100) })).toBeUndefined();
    expect(refusal({ ...list, label: 'l'.repeat(101) })).toMatchObject({ property: 'label', reason: 'too_long' });
    expect(refusal({ ...list, instructions: 'i'.repeat(4001) })).toMatchObject({ property: 'instructions', reason: 'too_long' });
    expect(refusal({ ...list, description: 'd'.repeat(2001) })).toMatchObject({ property: 'description', reason: 'too_long' });
    expect(refusal({ ...list, expand: 5 })).toMatchObject({ property: 'expand', reason: 'invalid' });
  });

  it('sanitises instructions to the limited HTML of §2.1 and stores null when nothing visible is left', () => {
    const { settings } = fieldsOf({ ...list, instructions: '<p onclick="x()">Go to <a href="https://help.example.test" target="_blank">help</a> <a href="javascript:alert(1)">now</a></p><script>steal()</script><img src=x>' });
    expect(settings.instructions).toBe('<p>Go to <a href="https://help.example.test">help</a> now</p>');
    expect(fieldsOf({ ...list, instructions: '<script>x()</script><p> </p>' }).settings.instructions).toBeNull();
    expect(fieldsOf({ ...list, instructions: '' }).settings.instructions).toBeNull();
  });

  it('stores label null or empty as the default', () => {
    expect(fieldsOf({ ...list, label: null }).settings.label).toBe('License');
    expect(fieldsOf({ ...list, label: '' }).settings.label).toBe('License');
  });
});

describe('remote services', () => {
  it('require an absolute http(s) configuration.url', () => {
    expect(refusal({ name: 'n', type: 'remote_url' })).toMatchObject({ property: 'configuration.url', reason: 'required' });
    for (const url of ['keys.example.test/issue', 'ftp://keys.example.test/x', '/relative', 'https://a b.test/']) {
      expect(refusal({ ...remote, configuration: { url } }), url).toMatchObject({ property: 'configuration.url', reason: 'invalid' });
    }
    expect(refusal({ ...remote, configuration: { url: 'u'.repeat(2001) } })).toMatchObject({ property: 'configuration.url', reason: 'too_long' });
  });

  it('take a custom header with both name and value or neither, never a reserved name', () => {
    expect(refusal({ ...remote, configuration: { ...remote.configuration, custom_header_name: 'X-Pool' } })).toMatchObject({ property: 'configuration.custom_header_value', reason: 'required' });
    expect(refusal({ ...remote, configuration: { ...remote.configuration, custom_header_value: 'v' } })).toMatchObject({ property: 'configuration.custom_header_name', reason: 'required' });
    for (const name of [...RESERVED_HEADER_NAMES, 'content-type', 'X-SERVICE-SIGNATURE']) {
      expect(refusal({ ...remote, configuration: { ...remote.configuration, custom_header_name: name, custom_header_value: 'v' } }), name).toMatchObject({ property: 'configuration.custom_header_name', reason: 'not_allowed' });
    }
    expect(refusal({ ...remote, configuration: { ...remote.configuration, custom_header_name: 'X Pool', custom_header_value: 'v' } })).toMatchObject({ property: 'configuration.custom_header_name' });
    expect(refusal({ ...remote, configuration: { ...remote.configuration, custom_header_name: 'X-Pool', custom_header_value: 'a\r\nX-Injected: 1' } })).toMatchObject({ property: 'configuration.custom_header_value' });
    expect(refusal({ ...remote, configuration: { ...remote.configuration, http_authorization_username: 'a:b' } })).toMatchObject({ property: 'configuration.http_authorization_username' });
    expect(refusal({ ...remote, configuration: { ...remote.configuration, format: 'html' } })).toMatchObject({ property: 'configuration.format' });
  });

  it('ignore the list properties (no codes change, defaults kept)', () => {
    const { settings, codes } = fieldsOf({ ...remote, configuration: { ...remote.configuration, licenses: ['A'], per_quantity: true, remove_after_use: false, notify_at_count: 3 } });
    expect(codes).toBeUndefined();
    expect(settings).toMatchObject({ per_quantity: false, remove_after_use: true, notify_at_count: null });
  });
});

describe('list services and their codes', () => {
  it('ignore the remote properties', () => {
    const { settings, secrets } = fieldsOf({ ...list, configuration: { url: 'https://x.test', format: 'xml', http_authorization_password: 'p', custom_header_name: 'X-A', custom_header_value: 'v' } });
    expect(settings).toMatchObject({ url: null, format: null, custom_header_name: null });
    expect(secrets).toEqual({ http_authorization_password: null, custom_header_value: null });
  });

  it('trim and sanitise codes as license replies (§5.4) and keep their order', () => {
    const { codes } = fieldsOf({ ...list, configuration: { licenses: ['  FP-1  ', "<p class='k'>Serial: <b>FP-2</b><br/>two PCs</p><script>x()</script>", 'a & b'] } });
    expect(codes).toEqual({ replace: ['FP-1', 'Serial: <b>FP-2</b><br>two PCs', 'a &amp; b'], add: [], property: 'configuration.licenses' });
    expect(fieldsOf({ ...list, configuration: { add_licenses: ['X'] } }).codes).toEqual({ add: ['X'], property: 'configuration.add_licenses' });
    expect(fieldsOf({ ...list, configuration: { licenses: null } }).codes).toEqual({ replace: [], add: [], property: 'configuration.licenses' });
  });

  it('refuse an entry that is not a string, empty after sanitising or longer than 4,096 characters, naming its index', () => {
    expect(refusal({ ...list, configuration: { licenses: ['A', 7] } })).toMatchObject({ property: 'configuration.licenses[1]', reason: 'invalid' });
    expect(refusal({ ...list, configuration: { licenses: ['A', 'B', '   '] } })).toMatchObject({ property: 'configuration.licenses[2]', reason: 'required' });
    expect(refusal({ ...list, configuration: { add_licenses: ['<script>x</script>'] } })).toMatchObject({ property: 'configuration.add_licenses[0]', reason: 'required' });
    expect(refusal({ ...list, configuration: { licenses: ['x'.repeat(MAX_CODE_LENGTH + 1)] } })).toMatchObject({ property: 'configuration.licenses[0]', reason: 'too_long' });
    expect(refusal({ ...list, configuration: { licenses: [`  ${'x'.repeat(MAX_CODE_LENGTH)}  `] } })).toBeUndefined();
    // Code points, not UTF-16 units: 4,096 emoji are 4,096 characters.
    expect(refusal({ ...list, configuration: { licenses: ['😀'.repeat(MAX_CODE_LENGTH)] } })).toBeUndefined();
    expect(refusal({ ...list, configuration: { licenses: 'A,B' } })).toMatchObject({ property: 'configuration.licenses' });
    expect(refusal({ ...list, configuration: 'x' })).toMatchObject({ property: 'configuration' });
  });

  it('check per_quantity, remove_after_use and notify_at_count', () => {
    expect(refusal({ ...list, configuration: { per_quantity: 'true' } })).toMatchObject({ property: 'configuration.per_quantity' });
    expect(refusal({ ...list, configuration: { remove_after_use: 1 } })).toMatchObject({ property: 'configuration.remove_after_use' });
    expect(refusal({ ...list, configuration: { notify_at_count: -1 } })).toMatchObject({ property: 'configuration.notify_at_count', reason: 'out_of_range' });
    expect(refusal({ ...list, configuration: { notify_at_count: 1.5 } })).toMatchObject({ property: 'configuration.notify_at_count' });
    expect(fieldsOf({ ...list, configuration: { notify_at_count: '5' } }).settings.notify_at_count).toBe(5);
    expect(fieldsOf({ ...list, configuration: { notify_at_count: 0, per_quantity: true, remove_after_use: false } }).settings).toMatchObject({ notify_at_count: 0, per_quantity: true, remove_after_use: false });
    expect(fieldsOf({ ...list, configuration: { per_quantity: null, remove_after_use: null } }).settings).toMatchObject({ per_quantity: false, remove_after_use: true });
  });

  it('remove duplicates keeping first occurrences, and refuse more than 10,000 distinct initial codes', () => {
    expect(distinctCodes(['A', 'B', 'A', 'C', 'B'])).toEqual(['A', 'B', 'C']);
    const many = Array.from({ length: 10_000 }, (_, index) => `C${index}`);
    expect(initialCodes({ replace: [...many, 'C1', 'C2'], add: [], property: 'configuration.licenses' })).toHaveLength(10_000);
    expect(() => initialCodes({ replace: many, add: ['extra'], property: 'configuration.licenses' })).toThrow(expect.objectContaining({ status: 422, code: 'account_limit_exceeded', meta: { property: 'configuration.licenses', limit: 10_000 } }));
  });
});

describe('partial updates', () => {
  const current = fieldsOf({ ...remote, label: 'Key', configuration: { ...remote.configuration, custom_header_name: 'X-Pool', custom_header_value: 'v', http_authorization_password: 'p' } });

  it('change what is sent, keep the rest, null restores defaults', () => {
    const { settings, secrets } = update({ name: 'Renamed', label: null, configuration: { format: 'xml' } }, current);
    expect(settings).toMatchObject({ name: 'Renamed', label: 'License', format: 'xml', url: 'https://keys.example.test/issue', custom_header_name: 'X-Pool' });
    expect(secrets).toEqual({ http_authorization_password: 'p', custom_header_value: 'v' });
  });

  it('accept the same type and refuse another one', () => {
    expect(refusal({ type: 'remote_url' }, current)).toBeUndefined();
    expect(refusal({ type: 'list' }, current)).toMatchObject({ property: 'type', reason: 'not_allowed' });
  });

  it('validate the result: clearing only the header value, or the url, is refused', () => {
    expect(refusal({ configuration: { custom_header_value: null } }, current)).toMatchObject({ property: 'configuration.custom_header_value', reason: 'required' });
    expect(refusal({ configuration: { url: null } }, current)).toMatchObject({ property: 'configuration.url', reason: 'required' });
    expect(update({ configuration: { custom_header_value: null, custom_header_name: null } }, current).secrets.custom_header_value).toBeNull();
  });

  it('re-arm low_licenses only once the count is above the threshold, the threshold is cleared or codes are not consumed', () => {
    expect(rearms(6, { notify_at_count: 5, remove_after_use: true })).toBe(true);
    expect(rearms(5, { notify_at_count: 5, remove_after_use: true })).toBe(false);
    expect(rearms(0, { notify_at_count: null, remove_after_use: true })).toBe(true);
    expect(rearms(0, { notify_at_count: 5, remove_after_use: false })).toBe(true);
  });
});

describe('what readers see', () => {
  const record = {
    license_service_id: 'LS1', account_id: 'ACCT', mode: 'test', name: 'Keys', label: 'Serial', instructions: null, description: 'internal', type: 'list', expand: null,
    url: null, format: null, http_authorization_username: null, custom_header_name: null, per_quantity: true, remove_after_use: true, notify_at_count: 5,
    secrets_sealed: null, license_count: 2, requests_outstanding: 0, linked_products: 0, low_licenses_notified: false,
    pool_generation: 0, pool_start: 0, pool_end: 2, pool_next: 2, pool_holes: [], created_ms: 0, modified_ms: 1000,
  } as unknown as LicenseServiceRecord;
  const context = { url: (path: string) => `https://api.example.test/api/v1/${path}`, date: (ms: number) => new Date(ms).toISOString().replace('.000', '') } as unknown as RenderContext;

  it('renders a list service with the remote properties null, and the codes only on a privileged view', () => {
    const plain = licenseServiceDeclaration.toJson(record, context);
    expect(plain).toEqual({
      object: 'license_service', url: 'https://api.example.test/api/v1/license_services/LS1', license_service_id: 'LS1', test: true, account_id: 'ACCT',
      name: 'Keys', label: 'Serial', instructions: null, description: 'internal', type: 'list', expand: null,
      configuration: { license_count: 2, per_quantity: true, remove_after_use: true, notify_at_count: 5, url: null, format: null, http_authorization_username: null, custom_header_name: null },
      date_created: '1970-01-01T00:00:00Z', date_modified: '1970-01-01T00:00:01Z',
    });
    const privileged = licenseServiceDeclaration.toJson({ ...record, privileged: { secrets: { http_authorization_password: null, custom_header_value: null }, licenses: ['A', 'B'] } }, context);
    expect(privileged.configuration).toEqual({
      licenses: ['A', 'B'], license_count: 2, per_quantity: true, remove_after_use: true, notify_at_count: 5,
      url: null, format: null, http_authorization_username: null, http_authorization_password: null, custom_header_name: null, custom_header_value: null,
    });
  });

  it('renders a remote service with the list properties null', () => {
    const service = { ...record, type: 'remote_url', url: 'https://k.test/x', format: 'json', custom_header_name: 'X-A', privileged: { secrets: { http_authorization_password: 'p', custom_header_value: 'v' }, licenses: null } } as const;
    expect(licenseServiceDeclaration.toJson(service as unknown as LicenseServiceRecord, context).configuration).toEqual({
      licenses: null, license_count: null, per_quantity: null, remove_after_use: null, notify_at_count: null,
      url: 'https://k.test/x', format: 'json', http_authorization_username: null, http_authorization_password: 'p', custom_header_name: 'X-A', custom_header_value: 'v',
    });
  });

  it('shows secrets and codes to owners and holders of license_services:update only', () => {
    const principal = (permissions: Principal['permissions'], extra: Partial<Principal> = {}) => ({ kind: 'secret', isOwner: false, permissions, ...extra }) as Principal;
    expect(maySeeSecrets(principal([], { isOwner: true }))).toBe(true);
    expect(maySeeSecrets(principal([{ resource: 'license_services', methods: ['update'], allow: true }]))).toBe(true);
    expect(maySeeSecrets(principal([{ resource: 'license_services', methods: ['read'], allow: true }]))).toBe(false);
    expect(maySeeSecrets(principal([], { kind: 'limited', isOwner: true }))).toBe(false);
    expect(maySeeSecrets(undefined)).toBe(false);
  });
});
