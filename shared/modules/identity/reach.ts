/**
 * What a limited token may touch beyond its base rights (auth.md 3.3): resources it is bound
 * to, and the uncounted reach a paid sale gives it. Other tokens reach everything their
 * permissions allow.
 */
import { NotFoundError } from '../../http/errors';
import type { TransactItem } from '../../store/transact';
import { reaches, type Principal } from '../../core/access/principal';
import { reachEntry } from './token-store';

/** 404 for a resource outside a limited token's reach: its existence is not revealed. */
export function assertReach(principal: Principal, path: string, what = 'resource'): void {
  if (!reaches(principal, path)) throw new NotFoundError(`The ${what} does not exist.`);
}

/** The transaction entry that gives a limited token reach over `paths` (after a paid sale). */
export function reachWrite(principal: Principal, paths: string[]): TransactItem | undefined {
  if (principal.kind !== 'limited' || paths.length === 0) return undefined;
  return reachEntry(principal.record, paths).item;
}
