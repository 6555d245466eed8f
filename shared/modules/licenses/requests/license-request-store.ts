/**
 * Where license requests and licenses live: two mode-scoped entities. Requests are listed by
 * date_created (gsi1) and date_modified (gsi2) for the cursor list of `GET /license_requests`;
 * each change is a versioned save (`modified_ms`), so an attempt's outcome is recorded only over
 * the state it started from. A license is keyed by an id derived from its request, so a re-send
 * replaces it in place.
 */
import { table } from '../../../store/client';
import { byDate, defineEntity, type RecordScope, type TransactEntry } from '../../../store/entity';
import { equalityFilter } from '../../../store/query';
import type { LicenseRecord, LicenseRequestRecord } from './license-request-records';

const requests = defineEntity<LicenseRequestRecord>({ name: 'license request', collection: 'license_requests', scope: 'mode', idField: 'license_request_id',
  indexes: { gsi1: 'license requests by date_created (cursor list)', gsi2: 'license requests by date_modified (cursor list, date_type=date_modified)' },
  indexKeys: (request, partition) => ({
    gsi1: byDate(partition, request.created_ms, request.license_request_id),
    gsi2: byDate(partition, request.modified_ms, request.license_request_id),
  }) });

const licenses = defineEntity<LicenseRecord>({ name: 'license', collection: 'licenses', scope: 'mode', idField: 'license_id' });

/** The entry that creates a request (its id is derived from order and item: a second opening is refused). */
export function newLicenseRequestEntry(record: LicenseRequestRecord): TransactEntry {
  return requests.putEntry(record, { ifNew: true, name: 'license request.create' });
}

/** The entry that replaces `current` by `next` if nobody changed it meanwhile (moves its date_modified position). */
export function licenseRequestSaveEntry(current: LicenseRequestRecord, next: LicenseRequestRecord): TransactEntry {
  return requests.putEntry(next, { ifVersion: current.modified_ms, name: 'license request.save' });
}

/**
 * The entry that records `codes` (taken from a list service by the same transaction) as
 * reserved for the attempt in progress, only if the reservation still holds `before` codes
 * (so two runs of one request can never both append).
 */
export function reserveCodesEntry(scope: RecordScope, requestId: string, codes: readonly string[], before: number): TransactEntry {
  return {
    name: 'license request.reserve-codes',
    item: {
      Update: {
        TableName: table(),
        Key: requests.key(scope, requestId),
        UpdateExpression: 'SET reserved_codes = list_append(reserved_codes, :codes)',
        ConditionExpression: 'attribute_exists(pk) AND size(reserved_codes) = :before',
        ExpressionAttributeValues: { ':codes': [...codes], ':before': before },
      },
    },
  };
}

/** A request by id, or undefined (strongly consistent). */
export function findLicenseRequest(scope: RecordScope, requestId: string): Promise<LicenseRequestRecord | undefined> {
  return requests.find(scope, requestId);
}

/** A request by id; 404, or 400 token_type_mismatch when it exists in the other mode. */
export function getLicenseRequest(scope: RecordScope, requestId: string): Promise<LicenseRequestRecord> {
  return requests.get(scope, requestId);
}

/** Many requests by id in one batch read. */
export function findLicenseRequests(scope: RecordScope, requestIds: readonly string[]): Promise<Map<string, LicenseRequestRecord>> {
  return requests.findMany(scope, requestIds);
}

/** The entry that writes a license (created, or replaced by a re-send). */
export function licensePutEntry(record: LicenseRecord): TransactEntry {
  return licenses.putEntry(record, { name: 'license.put' });
}

/** A license by id, or undefined. */
export function findLicense(scope: RecordScope, licenseId: string): Promise<LicenseRecord | undefined> {
  return licenses.find(scope, licenseId);
}

/** A license by id; 404, or 400 token_type_mismatch when it exists in the other mode. */
export function getLicense(scope: RecordScope, licenseId: string): Promise<LicenseRecord> {
  return licenses.get(scope, licenseId);
}

/** Many licenses by id in one batch read (the confirmation email's codes). */
export function findLicenses(scope: RecordScope, licenseIds: readonly string[]): Promise<Map<string, LicenseRecord>> {
  return licenses.findMany(scope, licenseIds);
}

/** What `GET /license_requests` may filter on (§11.2), each an exact match. */
export interface LicenseRequestFilters {
  status?: string;
  order_id?: string;
  product_id?: string;
  license_service_id?: string;
}

/** Where the cursor list of a scope's license requests reads (shared/rest/cursor-list.ts `CursorSource`). */
export function licenseRequestListSource(scope: RecordScope, filters: LicenseRequestFilters) {
  const filter = equalityFilter({ ...filters });
  return {
    partition: requests.partition(scope),
    idOf: (item: Record<string, unknown>) => item.license_request_id as string,
    find: async (id: string) => (await requests.find(scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(filter ? { filter } : {}),
  };
}
