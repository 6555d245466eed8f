/**
 * What a limited token may touch beyond its base rights (auth.md 3.3): resources it is bound
 * to, and the uncounted reach a paid sale gives it. Other tokens reach everything their
 * permissions allow.
 */
import { NotFoundError } from '../../http/errors';
import type { TransactItem } from '../../store/transact';
import { reaches, type Principal } from '../../core/access/principal';
import { reachEntry, readTokenRecord } from './token-store';

/** 404 for a resource outside a limited token's reach: its existence is not revealed. */
export function assertReach(principal: Principal, path: string, what = 'resource'): void {
  if (!reaches(principal, path)) throw new NotFoundError(`The ${what} does not exist.`);
}

/** The transaction entry that gives a limited token reach over `paths` (after a paid sale). */
export function reachWrite(principal: Principal, paths: string[]): TransactItem | undefined {
  if (principal.kind !== 'limited' || paths.length === 0) return undefined;
  return reachEntry(principal.record, paths).item;
}

/**
 * The transaction entry that gives the limited token with hash `tokenHash` reach over `paths`,
 * for a completion outside that token's own request (a 3-D Secure payment completed by the
 * client's commit, Stripe's webhook or the sweep: commerce.md §4.7). Undefined when the token
 * is gone or expired by `now` (nobody left to reach anything) or already reaches every path.
 */
export async function tokenReachWrite(tokenHash: string, paths: string[], now: number): Promise<TransactItem | undefined> {
  const record = await readTokenRecord(tokenHash);
  if (!record || record.kind !== 'limited' || (record.expires_at_ms !== undefined && record.expires_at_ms <= now)) return undefined;
  const missing = paths.filter((path) => !record.reach?.includes(path));
  return missing.length ? reachEntry(record, missing).item : undefined;
}
