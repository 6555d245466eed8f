/**
 * License requests and licenses (licenses.md §4, §7, §11): one request per licensed order item,
 * its status, attempt log and schedule; and the license object a success stores for the item.
 * This file holds the records' shapes, their ids and their REST declarations;
 * `./license-request-store` is the only code that knows their keys and conditions.
 */
import { derivedId } from '../../../core/ids';
import { attemptsJson, type AttemptLogEntry } from '../../../outbound/attempt';
import type { RequestErrorCode } from '../../../outbound/errors';
import { declareResource } from '../../../rest/declarations';
import type { RecordScope } from '../../../store/entity';

/** §4.2. */
export type LicenseRequestStatus = 'queued' | 'retry' | 'completed' | 'failed';

/** Why an attempt failed (§5.5, §6), and `service_deleted` when the service is gone. */
export type LicenseAttemptErrorCode = RequestErrorCode | 'empty_response' | 'response_too_long' | 'no_licenses_available' | 'service_deleted';

/** One attempt (§11.1: the attempt object of events.md §7.1; `status_code` null for list services). */
export type LicenseAttempt = AttemptLogEntry<LicenseAttemptErrorCode>;

/** §11.1 `last_failure_meta`, as stored. */
export interface LicenseFailure {
  code: LicenseAttemptErrorCode;
  message: string;
  status_code: number | null;
  response_body: string | null;
  date_ms: number;
}

/** A stored license request. */
export interface LicenseRequestRecord {
  license_request_id: string;
  account_id: string;
  mode: RecordScope['mode'];
  status: LicenseRequestStatus;
  order_id: string;
  item_id: string;
  product_id: string;
  /** The order item's quantity (a `per_quantity` list service hands out this many codes). */
  quantity: number;
  license_service_id: string;
  /** The sanitised code text once obtained. */
  license: string | null;
  /**
   * List services: codes taken from the list for the attempt in progress but not yet stored as
   * the license (a crash between the two). The next attempt uses them instead of taking more.
   */
  reserved_codes: string[];
  /** Automatic attempts made (the schedule counts these). */
  automatic_attempts: number;
  attempts_count: number;
  /** The last 50 attempts, oldest first. */
  attempts: LicenseAttempt[];
  last_attempt_ms: number | null;
  next_attempt_ms: number | null;
  last_failure: LicenseFailure | null;
  /**
   * The validated W3C `traceparent` of the request that made the order, if it carried one (kept
   * from the opening's due work): every attempt sends the same trace id with a parent id of its
   * own. Never shown by the API nor sent in the body.
   */
  traceparent?: string;
  created_ms: number;
  modified_ms: number;
}

/** A stored license (§7): the code of one order item. */
export interface LicenseRecord {
  license_id: string;
  account_id: string;
  mode: RecordScope['mode'];
  license_request_id: string;
  license_service_id: string;
  order_id: string;
  item_id: string;
  label: string;
  instructions: string | null;
  html: string;
  text: string;
  created_ms: number;
  modified_ms: number;
}

/** How many attempts a request keeps in its log. */
export const KEPT_LICENSE_ATTEMPTS = 50;

/** The one request of an order item (its id is derived, so a repeated opening finds it taken). */
export function licenseRequestIdFor(orderId: string, itemId: string): string {
  return derivedId(`license_request:${orderId}:${itemId}`);
}

/** The one license of a request (replaced in place by a re-send). */
export function licenseIdFor(requestId: string): string {
  return derivedId(`license:${requestId}`);
}

/** The path of a license request under the API root. */
export function licenseRequestPath(requestId: string): string {
  return `license_requests/${encodeURIComponent(requestId)}`;
}

/** The path of a license under the API root. */
export function licensePath(licenseId: string): string {
  return `licenses/${encodeURIComponent(licenseId)}`;
}

/** Whether a request still counts as outstanding for its order (the item's `license_pending`). */
export function isOutstanding(status: LicenseRequestStatus): boolean {
  return status === 'queued' || status === 'retry';
}

/** The operational properties, left out of the outbound body (§5.1). */
export const OPERATIONAL_PROPERTIES = ['attempts', 'attempts_count', 'date_last_request_attempt', 'date_next_request_attempt', 'last_failure_meta'] as const;

/**
 * The license request declaration. `order` is a link here; every reader expands it with its
 * customer (§11.1: always the full order with customer and items), see `REQUEST_EXPAND`.
 */
export const licenseRequestDeclaration = declareResource<LicenseRequestRecord>({
  name: 'license_request',
  collection: 'license_requests',
  idField: 'license_request_id',
  permission: 'license_requests',
  scope: 'mode',
  links: { order: 'order', license_service: 'license_service' },
  formatted: { dates: ['date_last_request_attempt', 'date_next_request_attempt', 'date_created', 'date_modified'] },
  idOf: (stored) => stored.license_request_id,
  toJson(stored, context) {
    const failure = stored.last_failure;
    return {
      object: 'license_request',
      url: context.url(licenseRequestPath(stored.license_request_id)),
      license_request_id: stored.license_request_id,
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
      test: stored.mode === 'test',
      account_id: stored.account_id,
      status: stored.status,
      product_id: stored.product_id,
      item_id: stored.item_id,
      license: stored.license,
      license_service: context.url(`license_services/${encodeURIComponent(stored.license_service_id)}`),
      order: context.url(`orders/${encodeURIComponent(stored.order_id)}`),
      attempts_count: stored.attempts_count,
      attempts: attemptsJson(stored.attempts, context),
      date_last_request_attempt: context.date(stored.last_attempt_ms),
      date_next_request_attempt: context.date(stored.next_attempt_ms),
      last_failure_meta: failure
        ? { code: failure.code, message: failure.message, status_code: failure.status_code, response_body: failure.response_body, date: context.date(failure.date_ms) }
        : null,
    };
  },
});

/** What every reader of a license request expands: the full order with its customer (§11.1). */
export const REQUEST_EXPAND = 'order.customer';

/**
 * The license declaration (§7). It needs `orders:read`; a limited token reads it through the
 * reach its payment gave it (the license ids of a paid order are known when it is paid).
 */
export const licenseDeclaration = declareResource<LicenseRecord>({
  name: 'license',
  collection: 'licenses',
  idField: 'license_id',
  permission: 'orders',
  scope: 'mode',
  links: { license_service: 'license_service', order: 'order' },
  formatted: { dates: ['date_created', 'date_modified'] },
  idOf: (stored) => stored.license_id,
  toJson(stored, context) {
    return {
      object: 'license',
      license_id: stored.license_id,
      url: context.url(licensePath(stored.license_id)),
      label: stored.label,
      html: stored.html,
      text: stored.text,
      instructions: stored.instructions,
      license_service: context.url(`license_services/${encodeURIComponent(stored.license_service_id)}`),
      order: context.url(`orders/${encodeURIComponent(stored.order_id)}`),
      item_id: stored.item_id,
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
    };
  },
});
