/**
 * The stored shape of a license service (licenses.md §2.1), shared by its store, its operations,
 * the code pool and the license-request side. Settings are stored in clear, the two secret
 * properties sealed together (`secrets_sealed`); a list service's codes are not in this item
 * (10,000 codes of up to 4,096 characters exceed DynamoDB's 400 KB item) but in a partition of
 * their own, described by the `pool_*` fields (./license-code-store.ts).
 */

/** Service types. */
export type LicenseServiceType = 'list' | 'remote_url';

/** The secret properties: sealed at rest, shown only to tokens that may update license services. */
export interface ServiceSecrets {
  http_authorization_password: string | null;
  custom_header_value: string | null;
}

/** The writable properties stored in clear. Those that do not apply to `type` keep their defaults and render as null. */
export interface ServiceSettings {
  name: string;
  label: string;
  /** Sanitised on save to the limited HTML of licenses.md §2.1; null when nothing visible is left. */
  instructions: string | null;
  description: string | null;
  type: LicenseServiceType;
  expand: string | null;
  /** remote_url: the script's URL (null for list services). */
  url: string | null;
  /** remote_url: body format (null for list services). */
  format: 'json' | 'xml' | null;
  http_authorization_username: string | null;
  custom_header_name: string | null;
  /** list: one code per unit of quantity (false for remote services). */
  per_quantity: boolean;
  /** list: codes are consumed (true for remote services, where it means nothing). */
  remove_after_use: boolean;
  /** list: threshold of `license_service:low_licenses` (null for remote services). */
  notify_at_count: number | null;
}

/**
 * Where a list service's published codes are (./license-code-store.ts). Code items are keyed by
 * a sequence number that is never reused: a writer reserves a fresh range under the pool lock,
 * writes its codes there and publishes them by moving `pool_end` (or, for a replacement,
 * `pool_start` and `pool_generation`). Readers see exactly the codes with
 * `pool_start <= seq < pool_end` outside `pool_holes`: ranges reserved by writers that never
 * published (a crash, a lost lease), whose items may exist but are never read.
 */
export interface PoolState {
  /** Bumped by every replacement of the list: a take that read the old list is refused. */
  pool_generation: number;
  /** First sequence number of the current list. */
  pool_start: number;
  /** One past the last published sequence number. */
  pool_end: number;
  /** Next sequence number a writer may reserve. */
  pool_next: number;
  /** Reserved but never published ranges `[from, to)` inside `[pool_start, pool_end)`. */
  pool_holes: Array<[number, number]>;
  /** The lease token of the writer changing the codes, while one is. */
  pool_lock?: string;
  /** When that lease lapses (epoch ms); another writer may take over after it. */
  pool_lock_until?: number;
}

/** A stored license service. */
export interface LicenseServiceRecord extends ServiceSettings, PoolState {
  license_service_id: string;
  account_id: string;
  mode: 'live' | 'test';
  /** The secret properties as sealed JSON (`ServiceSecrets`), or null when none is set. */
  secrets_sealed: string | null;
  /** list: published codes left (0 for remote services). */
  license_count: number;
  /** License requests of this service that are `queued` or `retry` (kept by the request side); a delete needs 0. */
  requests_outstanding: number;
  /** Products whose `license_service_id` names this service (kept by product writes); a delete needs 0. */
  linked_products: number;
  /** `license_service:low_licenses` fired and has not re-armed yet (licenses.md §8). */
  low_licenses_notified: boolean;
  created_ms: number;
  modified_ms: number;
  /** Its place in the creation-order listing. */
  seq: number;
}
