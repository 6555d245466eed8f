/**
 * Bindings of limited tokens (auth.md 3.3): the resources a token's own actions created or
 * signed in to, at most 20. A binding is written in the same transaction as the action that
 * creates it, guarded by a condition on the token record, so the 21st fails with no effect.
 */
import { ApiError } from '../../http/errors';
import type { TransactItem } from '../../store/transact';
import { forgetToken, tokenRecordChanged } from './authenticate';
import type { Principal } from '../../core/access/principal';
import { bindingEntry } from './token-store';

/** Most direct bindings a limited token may hold. */
export const MAX_BINDINGS = 20;

/** 422 binding_limit_exceeded: the token would exceed 20 bindings. */
export class BindingLimitExceededError extends ApiError {
  override name = 'BindingLimitExceededError';
  constructor() {
    super(422, 'binding_limit_exceeded', 'This session is linked to too many records. Start a new session.', { limit: MAX_BINDINGS });
  }
}

/** Whether the token is already bound to `path` (e.g. `carts/7KQ2ZP4M8TWX`). */
export function isBound(principal: Principal, path: string): boolean {
  return principal.record.bindings?.includes(path) ?? false;
}

/**
 * Fails early (before any effect) when binding `path` would exceed the limit. The write's own
 * condition still decides under concurrency.
 */
export function assertBindingCapacity(principal: Principal, path: string): void {
  if (principal.kind !== 'limited' || isBound(principal, path)) return;
  if ((principal.record.bindings?.length ?? 0) >= MAX_BINDINGS) throw new BindingLimitExceededError();
}

/**
 * The transaction entry that binds `path` to a limited token; undefined when nothing is to
 * write (another kind of token, or already bound). A cancelled transaction whose reason is
 * this entry means the limit was reached meanwhile.
 */
export function bindingWrite(principal: Principal, path: string): TransactItem | undefined {
  if (principal.kind !== 'limited' || isBound(principal, path)) return undefined;
  return bindingEntry(principal.record, path).item;
}

/**
 * After a binding to `path` was written: this process's cached token record gains it (the
 * token's next request needs no read). Without `path` (another change of the record), the
 * process re-reads the token on its next use.
 */
export function bindingWritten(principal: Principal, path?: string): void {
  if (path === undefined) return forgetToken(principal.tokenHash);
  tokenRecordChanged(principal.tokenHash, (record) =>
    record.bindings?.includes(path) ? record : { ...record, bindings: [...(record.bindings ?? []), path] },
  );
}
