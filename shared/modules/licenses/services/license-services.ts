/**
 * License services (licenses.md §2, §3): declaration, validation, sealing of the secret
 * properties and the operations behind the endpoints. A mode-scoped offset collection with
 * generated ids, listed in creation order through the bucketed offset index. The two secret
 * properties are sealed together with the platform's secrets port (`secrets_sealed`), bound to
 * the service by their purpose, and opened only for readers holding `license_services:update`
 * (who also see the `licenses` array) and for the outbound request. A list's codes are written
 * by ./license-pool.ts and handed out by ./take-codes.ts.
 */
import { type Principal } from '../../../core/access/principal';
import { InvalidInputError } from '../../../http/errors';
import { newId } from '../../../core/ids';
import { logger } from '../../../core/logging';
import { assertDestinationAllowed, checkCustomHeader, httpUrl } from '../../../outbound/destinations';
import { sealedFields } from '../../../outbound/sealed-fields';
import type { Clock, OutboundHttp, SecretsPort } from '../../../platform/ports';
import { declareResource } from '../../../rest/declarations';
import { invalid, sends, valueAfter } from '../../../rest/input';
import type { RenderContext } from '../../../rest/render-context';
import { OtherModeError, RecordNotFoundError } from '../../../store/errors';
import type { RecordScope, TransactEntry } from '../../../store/entity';
import { startListedRecord } from '../../../store/offset-index';
import { productIdsLinkedTo } from '../../catalog';
import { hasVisibleText, sanitizeInstructions } from '../sanitize';
import { LicenseServiceBusyError, LicenseServiceLinkedError, LicenseServiceOtherModeError } from './errors';
import { deleteCodePartition, readPublishedCodes } from './license-code-store';
import { changeCodes, initialCodes, rearms, writeInitialCodes, type CodesChange, type PoolOptions } from './license-pool';
import type { LicenseServiceRecord, ServiceSecrets, ServiceSettings } from './license-service-record';
import type { ConfigurationInput, LicenseServiceInput } from './license-service-schemas';
import {
  findLicenseServiceRecord,
  getLicenseServiceRecord,
  insertLicenseService,
  LicenseServiceDeleteRefused,
  linkedProductsEntry,
  removeLicenseServiceRecord,
  reserveLicenseServiceSequence,
  reviseLicenseServiceRecord,
  updateLicenseServiceRecord,
  type LicenseServiceChange,
} from './license-service-store';

/** The label a service shows when none is set (licenses.md §2.1). */
export const DEFAULT_LABEL = 'License';

/** Most product ids a 409 in_use names (licenses.md §2.2). */
export const MAX_LINKED_IDS = 20;

/** The secret properties, in their order of output. */
export const SECRET_PROPERTIES = ['http_authorization_password', 'custom_header_value'] as const satisfies ReadonlyArray<keyof ServiceSecrets>;

/** How they are sealed (bound to the service) and who sees them (holders of `license_services:update`). */
const sealed = sealedFields({ purpose: 'license_service', permission: 'license_services', idField: 'license_service_id', names: SECRET_PROPERTIES });

/** What only holders of `license_services:update` see: the secrets, and a list's codes (null for remote services). */
export interface PrivilegedParts {
  secrets: ServiceSecrets;
  licenses: string[] | null;
}

/** What the declaration renders: a record, with `privileged` only when the reader may see those parts. */
export type LicenseServiceView = LicenseServiceRecord & { privileged?: PrivilegedParts };

/** The path of a license service below the API root. */
export function licenseServicePath(serviceId: string): string {
  return `license_services/${encodeURIComponent(serviceId)}`;
}

/**
 * The license service declaration (REST conventions engine). `configuration` properties that do
 * not apply to the type are null; secrets and `licenses` appear only on a privileged view, so
 * the stored record alone (what a low_licenses notification carries) renders without them.
 */
export const licenseServiceDeclaration = declareResource<LicenseServiceView>({
  name: 'license_service',
  collection: 'license_services',
  idField: 'license_service_id',
  permission: 'license_services',
  scope: 'mode',
  formatted: { dates: ['date_created', 'date_modified'] },
  idOf: (stored) => stored.license_service_id,
  toJson(stored, context: RenderContext) {
    const list = stored.type === 'list';
    const remote = !list;
    const privileged = stored.privileged;
    return {
      object: 'license_service',
      url: context.url(licenseServicePath(stored.license_service_id)),
      license_service_id: stored.license_service_id,
      test: stored.mode === 'test',
      account_id: stored.account_id,
      name: stored.name,
      label: stored.label,
      instructions: stored.instructions,
      description: stored.description,
      type: stored.type,
      expand: stored.expand,
      configuration: {
        ...(privileged ? { licenses: list && privileged.licenses ? [...privileged.licenses] : null } : {}),
        license_count: list ? stored.license_count : null,
        per_quantity: list ? stored.per_quantity : null,
        remove_after_use: list ? stored.remove_after_use : null,
        notify_at_count: list ? stored.notify_at_count : null,
        url: remote ? stored.url : null,
        format: remote ? stored.format : null,
        http_authorization_username: remote ? stored.http_authorization_username : null,
        ...(privileged ? { http_authorization_password: remote ? privileged.secrets.http_authorization_password : null } : {}),
        custom_header_name: remote ? stored.custom_header_name : null,
        ...(privileged ? { custom_header_value: remote ? privileged.secrets.custom_header_value : null } : {}),
      },
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
    };
  },
});

/** Whether `principal` may see the secrets and codes (licenses.md §2.1: holders of `license_services:update`). */
export const maySeeSecrets = sealed.maySee;

/** The secrets of a stored service, opened (all null when none is set): what the outbound request sends. */
export const openServiceSecrets: (record: LicenseServiceRecord, secrets: SecretsPort) => Promise<ServiceSecrets> = sealed.openRecord;

/** Every published code of a list service in list order (null for a remote service). */
export async function serviceCodes(record: LicenseServiceRecord): Promise<string[] | null> {
  if (record.type !== 'list') return null;
  return (await readPublishedCodes({ accountId: record.account_id, mode: record.mode }, record.license_service_id, record)).map((code) => code.code!);
}

/** What `principal` may see of a record: with secrets and codes when it holds `license_services:update`. */
export async function licenseServiceView(record: LicenseServiceRecord, principal: Principal | undefined, port: SecretsPort): Promise<LicenseServiceView> {
  if (!maySeeSecrets(principal)) return record;
  const [secrets, licenses] = await Promise.all([openServiceSecrets(record, port), serviceCodes(record)]);
  return { ...record, privileged: { secrets, licenses } };
}

/** A service's writable properties, as they will be after a change, and the change of its codes if any. */
export interface LicenseServiceFields {
  settings: ServiceSettings;
  secrets: ServiceSecrets;
  /** Set when the body sends `licenses` or `add_licenses` for a list service. */
  codes?: CodesChange;
}

/** Instructions as stored: sanitised to the limited HTML of §2.1; null when nothing visible is left. */
export function cleanInstructions(html: string | null): string | null {
  if (html === null) return null;
  const clean = sanitizeInstructions(html).trim();
  return clean !== '' && hasVisibleText(clean) ? clean : null;
}

/**
 * Applies a parsed create body or partial update to the current fields (sent properties
 * change, null clears or restores the default), then checks the rules between properties on
 * the result (licenses.md §2.1):
 * - `type` is fixed at creation: an update may repeat it, not change it (`not_allowed`);
 * - a remote service has an absolute http(s) `configuration.url`, and its custom header has
 *   both a name and a value, or neither;
 * - `configuration` properties that do not apply to the type are ignored (and keep their defaults);
 * - instructions are sanitised.
 */
export function licenseServiceFields(body: LicenseServiceInput, current: Omit<LicenseServiceFields, 'codes'> | undefined): LicenseServiceFields {
  const was = current?.settings;
  const type = was?.type ?? body.type!;
  if (was && body.type !== undefined && body.type !== was.type) {
    invalid('type', `The property type cannot be changed (this service is ${was.type}); create another service instead.`, 'not_allowed');
  }
  const config: ConfigurationInput = body.configuration ?? {};
  const list = type === 'list';
  const settings: ServiceSettings = {
    name: body.name ?? was!.name,
    label: valueAfter(body, 'label', was?.label, DEFAULT_LABEL),
    instructions: sends(body, 'instructions') ? cleanInstructions(body.instructions ?? null) : (was?.instructions ?? null),
    description: valueAfter(body, 'description', was?.description, null),
    type,
    expand: valueAfter(body, 'expand', was?.expand, null),
    url: list ? null : valueAfter(config, 'url', was?.url, null),
    format: list ? null : valueAfter(config, 'format', was?.format, 'json'),
    http_authorization_username: list ? null : valueAfter(config, 'http_authorization_username', was?.http_authorization_username, null),
    custom_header_name: list ? null : valueAfter(config, 'custom_header_name', was?.custom_header_name, null),
    per_quantity: list ? valueAfter(config, 'per_quantity', was?.per_quantity, false) : false,
    remove_after_use: list ? valueAfter(config, 'remove_after_use', was?.remove_after_use, true) : true,
    notify_at_count: list ? valueAfter(config, 'notify_at_count', was?.notify_at_count, null) : null,
  };
  const secrets: ServiceSecrets = list
    ? sealed.none()
    : {
        http_authorization_password: valueAfter(config, 'http_authorization_password', current?.secrets.http_authorization_password, null),
        custom_header_value: valueAfter(config, 'custom_header_value', current?.secrets.custom_header_value, null),
      };

  if (!list) {
    if (!httpUrl(settings.url)) {
      invalid('configuration.url', 'The property configuration.url must be an absolute http:// or https:// URL for a remote_url service.', settings.url === null ? 'required' : 'invalid');
    }
    checkCustomHeader(settings.custom_header_name, secrets.custom_header_value, 'configuration.');
  }
  const replaces = list && sends(config, 'licenses');
  const adds = list && sends(config, 'add_licenses');
  const codes: CodesChange | undefined =
    replaces || adds
      ? { ...(replaces ? { replace: config.licenses ?? [] } : {}), add: (adds && config.add_licenses) || [], property: replaces ? 'configuration.licenses' : 'configuration.add_licenses' }
      : undefined;
  return { settings, secrets, ...(codes ? { codes } : {}) };
}

/**
 * The address check of events.md §3 at save time, as event subscriptions make it: a remote
 * service whose URL host is, or resolves to, a blocked address gives 400 `invalid_input`
 * (`destination_not_allowed`). The policy is the outbound port's (loopback allowed locally only).
 */
export async function checkServiceUrl(settings: ServiceSettings, http: OutboundHttp): Promise<void> {
  if (settings.type !== 'remote_url' || settings.url === null) return;
  await assertDestinationAllowed(settings.url, http, 'configuration.url', 'license requests');
}

/** The ports a service write needs: sealing and the outbound address policy. */
export interface LicenseServicePorts {
  secrets: SecretsPort;
  http: OutboundHttp;
  clock: Clock;
}

/** A service as just written, with the parts a privileged reader sees at hand (no second open). */
export type WrittenLicenseService = LicenseServiceRecord & { privileged: PrivilegedParts };

/** The empty pool of a new service. */
const EMPTY_POOL = { pool_generation: 0, pool_start: 0, pool_end: 0, pool_next: 0, pool_holes: [] as Array<[number, number]> };

/**
 * Creates a service: validate, check the URL, seal. A list's initial codes (at most 10,000, else
 * 422 before anything is written) are written first under the new id, which nobody knows yet,
 * and published by the record's own creation, so the service never exists half-filled.
 */
export async function createLicenseService(scope: RecordScope, body: LicenseServiceInput, ports: LicenseServicePorts): Promise<WrittenLicenseService> {
  const { settings, secrets, codes } = licenseServiceFields(body, undefined);
  await checkServiceUrl(settings, ports.http);
  const initial = codes ? initialCodes(codes) : [];
  const serviceId = newId();
  const secretsSealed = await sealed.seal(secrets, scope, serviceId, ports.secrets);
  if (initial.length) await writeInitialCodes(scope, serviceId, initial);
  const start = await startListedRecord(scope, reserveLicenseServiceSequence, ports.clock);
  const record: LicenseServiceRecord = {
    license_service_id: serviceId,
    ...settings,
    secrets_sealed: secretsSealed,
    license_count: initial.length,
    requests_outstanding: 0,
    linked_products: 0,
    low_licenses_notified: false,
    ...EMPTY_POOL,
    pool_end: initial.length,
    pool_next: initial.length,
    ...start,
  };
  await insertLicenseService(scope, record);
  return { ...record, privileged: { secrets, licenses: settings.type === 'list' ? initial : null } };
}

/** The current fields of a stored service (secrets opened), what an update applies to. */
async function currentFields(record: LicenseServiceRecord, port: SecretsPort): Promise<Omit<LicenseServiceFields, 'codes'>> {
  const settings: ServiceSettings = {
    name: record.name,
    label: record.label,
    instructions: record.instructions,
    description: record.description,
    type: record.type,
    expand: record.expand,
    url: record.url,
    format: record.format,
    http_authorization_username: record.http_authorization_username,
    custom_header_name: record.custom_header_name,
    per_quantity: record.per_quantity,
    remove_after_use: record.remove_after_use,
    notify_at_count: record.notify_at_count,
  };
  return { settings, secrets: await openServiceSecrets(record, port) };
}

/**
 * The change a partial update makes of a service read at `current`, and the secrets after it:
 * validation covers the result, the URL is checked again, the secrets are sealed again only when
 * they changed. A change of the codes goes through the pool writer, which publishes the settings
 * with the codes in one update (conditional on the version read); other changes are the settings
 * the store sets conditionally. Raising `notify_at_count` above the count (or clearing it) re-arms low_licenses.
 */
async function licenseServiceChange(
  current: LicenseServiceRecord,
  body: LicenseServiceInput,
  ports: LicenseServicePorts,
  options: PoolOptions,
): Promise<{ change: LicenseServiceChange; secrets: ServiceSecrets }> {
  const before = await currentFields(current, ports.secrets);
  const { settings, secrets, codes } = licenseServiceFields(body, before);
  await checkServiceUrl(settings, ports.http);
  const scope = { accountId: current.account_id, mode: current.mode };
  const secretsSealed = sealed.same(secrets, before.secrets) ? current.secrets_sealed : await sealed.seal(secrets, scope, current.license_service_id, ports.secrets);
  const changes: Partial<LicenseServiceRecord> = { ...settings, secrets_sealed: secretsSealed, modified_ms: Math.max(ports.clock.nowMs(), current.modified_ms + 1) };
  if (codes) return { change: { published: await changeCodes(current, codes, changes, ports.clock, options) }, secrets };
  const rearm = current.low_licenses_notified && rearms(current.license_count, settings);
  if (rearm) changes.low_licenses_notified = false;
  return { change: { next: { ...current, ...changes }, set: changes, ...(rearm ? { countRead: current.license_count } : {}) }, secrets };
}

/** The service as written, with its privileged parts at hand. */
async function written(saved: LicenseServiceRecord, secrets: ServiceSecrets): Promise<WrittenLicenseService> {
  return { ...saved, privileged: { secrets, licenses: await serviceCodes(saved) } };
}

/**
 * Applies a partial update to a service read at `current`, conditional on that version: one
 * round, a lost race is a `VersionConflictError` (`updateLicenseService` reads again).
 */
export async function reviseLicenseService(current: LicenseServiceRecord, body: LicenseServiceInput, ports: LicenseServicePorts, options: PoolOptions = {}): Promise<WrittenLicenseService> {
  const { change, secrets } = await licenseServiceChange(current, body, ports, options);
  return written(await reviseLicenseServiceRecord(current, change), secrets);
}

/** Applies a partial update to a service read by id (`licenseServiceChange`), reading and changing again after a lost race. */
export async function updateLicenseService(scope: RecordScope, serviceId: string, body: LicenseServiceInput, ports: LicenseServicePorts, options: PoolOptions = {}): Promise<WrittenLicenseService> {
  let secrets: ServiceSecrets | undefined;
  const saved = await updateLicenseServiceRecord(scope, serviceId, async (current) => {
    const decided = await licenseServiceChange(current, body, ports, options);
    secrets = decided.secrets;
    return decided.change;
  });
  return written(saved, secrets!);
}

/**
 * Deletes a service (hard), with its codes. Refused with 409 in_use while a product links to
 * it (`meta.product_ids`, at most 20) or one of its requests is `queued` or `retry`: both are
 * counters on the service kept in the transactions that change them, and the delete is
 * conditional on both being zero, so it is atomic. The codes' partition is deleted after the
 * record, best effort (a failure is logged; nothing reads a deleted service's codes).
 */
export async function deleteLicenseService(current: LicenseServiceRecord): Promise<void> {
  const scope = { accountId: current.account_id, mode: current.mode };
  const serviceId = current.license_service_id;
  try {
    if (current.linked_products > 0 || current.requests_outstanding > 0) throw new LicenseServiceDeleteRefused();
    await removeLicenseServiceRecord(current);
  } catch (error) {
    if (!(error instanceof LicenseServiceDeleteRefused)) throw error;
    const now = await getLicenseServiceRecord(scope, serviceId);
    if (now.linked_products > 0) throw new LicenseServiceLinkedError(serviceId, await productIdsLinkedTo(scope, serviceId, MAX_LINKED_IDS));
    throw new LicenseServiceBusyError(serviceId);
  }
  await deleteCodePartition(scope, serviceId).catch((error: unknown) =>
    logger.error('Deleting the codes of a deleted license service failed; they are never read', { serviceId, error: error as Error }),
  );
}

/** A service by id; 404, or 400 token_type_mismatch for one of the other mode. */
export function getLicenseService(scope: RecordScope, serviceId: string): Promise<LicenseServiceRecord> {
  return getLicenseServiceRecord(scope, serviceId);
}

/** A service by id, or undefined (strongly consistent). */
export function findLicenseService(scope: RecordScope, serviceId: string): Promise<LicenseServiceRecord | undefined> {
  return findLicenseServiceRecord(scope, serviceId);
}

/**
 * The writes that move a product's link from service `from` to service `to` (either may be
 * null), for the product's transaction (licenses.md §3): `to` must be a service of the same
 * mode (400 invalid_input `not_found` on `property`, or 400 token_type_mismatch), and its
 * `linked_products` counter goes up in the same transaction, conditional on it still existing;
 * `from`'s goes down. No change, no writes.
 */
export async function productLinkEntries(scope: RecordScope, from: string | null, to: string | null, property = 'license_service_id'): Promise<TransactEntry[]> {
  if (from === to) return [];
  const missing = (id: string) => new InvalidInputError(`The license service ${id} does not exist.`, { property, reason: 'not_found' });
  const entries: TransactEntry[] = [];
  if (to !== null) {
    try {
      await getLicenseServiceRecord(scope, to);
    } catch (error) {
      if (error instanceof OtherModeError) throw new LicenseServiceOtherModeError(property, to);
      if (error instanceof RecordNotFoundError) throw missing(to);
      throw error;
    }
    // A delete that commits between this read and the product's write fails the write (not_found).
    entries.push(linkedProductsEntry(scope, to, 1, () => missing(to)));
  }
  // A linked service cannot be deleted, so `from` exists; records that predate the counter are skipped.
  if (from !== null && (await findLicenseServiceRecord(scope, from))) {
    entries.push(linkedProductsEntry(scope, from, -1, () => missing(from)));
  }
  return entries;
}
