/** Who is calling: the authenticated token and what it may do. */
import type { PermissionEntry } from './permissions';
import { IDLE_LIFETIME_MS, type TokenRecord } from './token-records';
import type { Mode, TokenKind, TokenPrefix } from './tokens';

/** The caller of an authenticated request. */
export interface Principal {
  authId: string;
  accountId: string;
  mode: Mode;
  kind: TokenKind;
  prefix: TokenPrefix;
  tokenHash: string;
  /** Write-format permissions (secret tokens; trusted tokens carry a copy of their user's). */
  permissions: PermissionEntry[];
  /** Owners hold every permission whatever the list says. */
  isOwner: boolean;
  /** When the token lapses after this request (epoch ms), or null for never. */
  expiresAtMs: number | null;
  userId?: string;
  customerId?: string;
  /** The token record as authentication left it (after this request's use). */
  record: TokenRecord;
}

/** Whether the caller reaches the resource at `path` (e.g. `orders/3HE81X8T8P1B`) through its bindings or a paid sale. */
export function reaches(principal: Principal, path: string): boolean {
  if (principal.kind !== 'limited') return true;
  return (principal.record.bindings?.includes(path) ?? false) || (principal.record.reach?.includes(path) ?? false);
}

/**
 * The customer a customer-scope token acts for (commerce.md §0.1), or undefined for every other
 * token. It is what `me` means in `/customers/me/...` (./aliases) and whose records the token reaches.
 */
export function scopeCustomerOf(principal: Principal): string | undefined {
  return principal.kind === 'limited' ? principal.customerId : undefined;
}

/**
 * Whether the caller reaches a record at `path` that belongs to customer `customerId`
 * (undefined: the resource is not one customer scope reaches; null: no customer): its bindings
 * and reach, or customer scope when the record is its customer's (commerce.md §0.1).
 *
 * @example reachesRecord(principal, 'orders/3HE81X8T8P1B', order.customer_id)
 */
export function reachesRecord(principal: Principal, path: string, customerId: string | null | undefined): boolean {
  if (reaches(principal, path)) return true;
  const own = scopeCustomerOf(principal);
  return own !== undefined && typeof customerId === 'string' && customerId === own;
}

/** Seconds from `now` (epoch ms) until the principal's token lapses (X-Token-Expires-In-Seconds), or undefined for never. */
export function expiresInSeconds(principal: Principal, now: number): number | undefined {
  // A sliding window restarts with this very use: exactly its length (1209600, 3600).
  const idle = IDLE_LIFETIME_MS[principal.kind];
  if (idle) return idle / 1000;
  if (principal.expiresAtMs === null) return undefined;
  return Math.max(0, Math.floor((principal.expiresAtMs - now) / 1000));
}
