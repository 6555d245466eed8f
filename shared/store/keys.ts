/**
 * Key builders for the single table. Isolation starts here: every mode-scoped item is keyed
 * from `(account_id, mode)`, every account-wide item from `account_id`, and the few
 * platform-wide lookups (token hash, user id, user email) point straight to their account.
 */
import type { Mode } from '../core/access/tokens';

/** A primary key. */
export interface ItemKey {
  pk: string;
  sk: string;
}

/** Prefix of a mode-scoped partition: `<account>#<mode>`. */
export function scope(accountId: string, mode: Mode): string {
  return `${accountId}#${mode}`;
}

/** The account record. */
export function accountKey(accountId: string): ItemKey {
  return { pk: `account#${accountId}`, sk: 'account' };
}

/** A settings group of an account (`technical`, `general`, `payment`, `tax`). */
export function settingsKey(accountId: string, group: string): ItemKey {
  return { pk: `account#${accountId}`, sk: `settings#${group}` };
}

/** The token record, found by the SHA-256 of the token string. */
export function tokenKey(tokenHash: string): ItemKey {
  return { pk: `token#${tokenHash}`, sk: 'token' };
}

/** The token hash a token record's key holds (`tokenKey`'s inverse). */
export function tokenHashOf(key: ItemKey): string {
  return key.pk.slice('token#'.length);
}

/** Pointer from an auth id to its token record (auths are account-wide). */
export function authIdKey(accountId: string, authId: string): ItemKey {
  return { pk: `${accountId}#auth#${authId}`, sk: 'auth' };
}

/** A user, unique on the whole platform by lowercase user id. */
export function userKey(userId: string): ItemKey {
  return { pk: `user#${userId.toLowerCase()}`, sk: 'user' };
}

/** The claim that makes an email address unique across the platform. */
export function userEmailKey(email: string): ItemKey {
  return { pk: `useremail#${email.toLowerCase()}`, sk: 'useremail' };
}

/** A per-client-IP rate-limit bucket for public endpoints. */
export function ipBucketKey(ip: string): ItemKey {
  return { pk: `ratelimit#ip#${ip}`, sk: 'bucket' };
}

/** A collection counter (total_items of offset lists), kept in the same transaction as writes. */
export function counterKey(partition: string, collection: string): ItemKey {
  return { pk: `${partition}#counters`, sk: collection };
}

/** The sort key of a listing index entry: time, then id as tie-breaker. */
export function listSortKey(epochMs: number, id: string): string {
  return `${new Date(epochMs).toISOString()}#${id}`;
}

/** What every record of a date-listed collection carries: the times it is listed by (its store keeps it in gsi1 by date_created and gsi2 by date_modified). */
export interface Dated {
  created_ms: number;
  modified_ms: number;
}
