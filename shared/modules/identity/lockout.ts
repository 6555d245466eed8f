/**
 * Login lockout (auth.md 5.3): five failed password checks for one login name within a rolling
 * 15 minutes lock that name for 10 minutes from the fifth failure. While locked every attempt,
 * even with the right password, gets 401 account_locked with `Retry-After`; those attempts are
 * not counted and do not extend the lock. A success, or the end of a lock, resets the count.
 * Unknown login names are never counted.
 *
 * The state of one login name is one small item (`<partition>#login-lockout#<realm>#<name>`)
 * holding the recent failure instants and the lock end, kept only a while (the store's TTL) so idle items go away.
 * Every change is a put conditional on the version read, so concurrent failures each count
 * exactly once: a loser re-reads and applies its failure on top (or finds the name locked).
 * Time comes from the platform clock, so the local manual clock drives lockouts.
 */
import { ApiError } from '../../http/errors';
import type { Clock } from '../../platform/ports';
import type { ItemKey } from '../../store/keys';
import { retryOnConflict } from '../../store/records';
import { clearFailedLogins, readLockout, recordFailedLogin, type LockoutState } from './lockout-store';
import { decoyPasswordCheck, hashPassword, needsRehash, verifyPassword } from './passwords';

export { lockoutKey } from './lockout-store';

/** The lockout rule of auth.md 5.3. */
export const LOCKOUT_RULE = Object.freeze({
  /** Failures inside the window that lock the name. */
  maxFailures: 5,
  /** The rolling window failures are counted over. */
  windowMs: 15 * 60 * 1000,
  /** How long a lock lasts, from the failure that caused it. */
  lockMs: 10 * 60 * 1000,
});

/** Concurrent failures on one name retry their conditional write this often before giving up. */
const WRITE_ATTEMPTS = 20;

/** The same message for an unknown name and a wrong password, so neither is revealed. */
export const INVALID_LOGIN_MESSAGE = 'The username or password is incorrect.';

/** 401 invalid_login: wrong login name or password (auth.md 11). */
export class InvalidLoginError extends ApiError {
  override name = 'InvalidLoginError';
  constructor() {
    super(401, 'invalid_login', INVALID_LOGIN_MESSAGE);
  }
}

/** 401 account_locked: too many failures; `Retry-After` and `meta.retry_after_seconds` say when to try again. */
export class AccountLockedError extends ApiError {
  override name = 'AccountLockedError';
  constructor(readonly retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(401, 'account_locked', 'Too many failed sign-in attempts. Try again later.', { retry_after_seconds: seconds }, { 'Retry-After': String(seconds) });
  }
}

/** What a password check found. */
export type LoginCheck<T> = { outcome: 'success'; value: T } | { outcome: 'failure' } | { outcome: 'unknown' };

/** The lock end when `item` is locked at `now`. */
function lockedUntil(item: LockoutState | undefined, now: number): number | undefined {
  return item?.locked_until_ms !== undefined && item.locked_until_ms > now ? item.locked_until_ms : undefined;
}

/** The failures that still count at `now`: none once a lock has ended, else those inside the window. */
function countingFailures(item: LockoutState | undefined, now: number): number[] {
  if (!item) return [];
  if (item.locked_until_ms !== undefined && item.locked_until_ms <= now) return [];
  return item.failures_ms.filter((at) => at > now - LOCKOUT_RULE.windowMs);
}

/** Throws 401 account_locked when the name is locked now. */
function assertUnlocked(item: LockoutState | undefined, now: number): void {
  const until = lockedUntil(item, now);
  if (until !== undefined) throw new AccountLockedError((until - now) / 1000);
}

/**
 * Counts one failure. Answers whether this failure locked the name; throws 401 account_locked
 * when a concurrent failure locked it first (this one is then not counted).
 */
async function countFailure(key: ItemKey, clock: Clock): Promise<{ locked: boolean }> {
  return retryOnConflict(async () => {
    const current = await readLockout(key);
    const now = clock.nowMs();
    assertUnlocked(current, now);
    const failures = [...countingFailures(current, now), now];
    const locks = failures.length >= LOCKOUT_RULE.maxFailures;
    const next: LockoutState = {
      // A lock starts the count afresh: attempts during it are not counted, and its end resets.
      failures_ms: locks ? [] : failures,
      ...(locks ? { locked_until_ms: now + LOCKOUT_RULE.lockMs } : {}),
      version: (current?.version ?? 0) + 1,
    };
    await recordFailedLogin(key, current, next, locks ? now + LOCKOUT_RULE.lockMs : now + LOCKOUT_RULE.windowMs);
    return { locked: locks };
  }, WRITE_ATTEMPTS);
}

/** Forgets the failures of a name after a success, unless a concurrent failure locked it meanwhile. */
async function resetFailures(key: ItemKey, clock: Clock): Promise<void> {
  await clearFailedLogins(key, clock.nowMs());
}

/**
 * Runs one password check under the lockout of `key`, at the time `clock` tells, and answers the checked value.
 * Locked: 401 account_locked without running `check`. `unknown` (no such login name): 401
 * invalid_login, not counted. `failure`: counted, 401 invalid_login (also for the failure that
 * locks; the next attempt gets account_locked). `success`: the count is reset.
 *
 * @example
 * const customer = await withLockout(lockoutKey('ACCT#live', 'customers', name), platform.clock, async () =>
 *   found ? ((await verifyPassword(password, found.hash)) ? { outcome: 'success', value: found } : { outcome: 'failure' }) : { outcome: 'unknown' });
 */
export async function withLockout<T>(key: ItemKey, clock: Clock, check: () => Promise<LoginCheck<T>>): Promise<T> {
  const state = await readLockout(key);
  assertUnlocked(state, clock.nowMs());
  const result = await check();
  if (result.outcome === 'unknown') throw new InvalidLoginError();
  if (result.outcome === 'failure') {
    await countFailure(key, clock);
    throw new InvalidLoginError();
  }
  if (state) await resetFailures(key, clock);
  return result.value;
}

/**
 * The password check of every login (users and customers alike), for `withLockout`: an unknown
 * login name (`found` undefined) spends a dummy hash check and is `unknown`; a right password
 * is `success`, and a hash of older parameters is rewritten through `rehash` (auth.md 9.3;
 * a failed rewrite leaves the old hash, which keeps verifying); a wrong one is `failure`.
 */
export async function checkPassword<T>(password: string, found: { value: T; hash: string } | undefined, rehash: (hash: string) => Promise<void>): Promise<LoginCheck<T>> {
  if (!found) {
    await decoyPasswordCheck(password);
    return { outcome: 'unknown' };
  }
  if (!(await verifyPassword(password, found.hash))) return { outcome: 'failure' };
  if (needsRehash(found.hash)) await rehash(await hashPassword(password));
  return { outcome: 'success', value: found.value };
}
