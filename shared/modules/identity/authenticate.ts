/**
 * Authentication of bearer tokens, with expiry, sliding lifetimes and the per-token rate
 * limit (auth.md 1.3–1.5, conventions.md 18).
 *
 * The hot path must not cost a DynamoDB write per request, nor even a read when a token is
 * busy, so each process keeps two small things per token:
 * - the token record, re-read (consistently) when older than one second. Revoking or
 *   changing a token in this process forgets it at once; other processes see the change
 *   within that second, and the next lease write (below) fails for a revoked token.
 * - a rate-limit lease: a number of requests taken from the token's shared GCRA bucket in
 *   one conditional write. Leases start at four requests and double while they are used up
 *   within their second (up to a quarter of the burst), so a busy token writes rarely and a
 *   quiet one exactly as often as it is used. Slots a lease leaves unused lapse with it, so
 *   several processes together never exceed the limit; they may only refuse a little early.
 * The stored last-use time (and with it the end of a sliding token's idle window) is
 * refreshed at most once a minute, as auth.md 1.5 allows, in the same write.
 */
import type { RateLimit } from '../../core/config';
import { RequestLimitExceededError } from '../../http/errors';
import type { Clock } from '../../platform/ports';
import { ExpiredTokenError, InvalidTokenError } from '../../http/auth-errors';
import { rightsOfToken } from '../../core/access/permissions';
import type { Principal } from '../../core/access/principal';
import { bucketBackoff, bucketClauses, MAX_BUCKET_ATTEMPTS, nextStep, slotsFit } from './rate-limit';
import { IDLE_LIFETIME_MS, type TokenRecord } from '../../core/access/token-records';
import { recordTokenUse } from './token-store';
import { findGrant } from './oauth/grant-store';
import { hashToken, parseToken } from '../../core/access/tokens';

/** How long a cached token record is trusted (real time). */
const RECORD_FRESH_MS = 1000;
/** Requests the first lease of a token takes (at most a quarter of the burst). */
const FIRST_LEASE = 4;
/** How long a lease's unused slots stay usable (real time). */
const LEASE_LIFETIME_MS = 1000;
/** The stored last use is refreshed when older than this (platform clock). */
const LAST_USE_REFRESH_MS = 60_000;
/** Bound on cached tokens per process. */
const MAX_CACHED = 10_000;
/**
 * Entries untouched for this long are dropped (real time): their record and lease lapsed long
 * ago, so all they still hold is a guess at the bucket, which a quiet token's refill makes moot.
 * A busy process keeps a few seconds of tokens, not the last ten thousand shoppers.
 */
const IDLE_DROP_MS = 10_000;

interface Lease {
  remaining: number;
  size: number;
  takenAt: number;
}

interface CachedToken {
  record: TokenRecord;
  fetchedAt: number;
  lease?: Lease;
  /** Tokens of an OAuth grant: when the grant was last found live (real time). */
  grantCheckedAt?: number;
}

const cache = new Map<string, CachedToken>();
/** Lease renewals in progress, by token hash. */
const renewals = new Map<string, Promise<CachedToken>>();
/** Renewals a request waits for before writing its own (bounded, so a hot token cannot starve one). */
const MAX_WAITS = 64;

/** How many tokens this process holds (tests and benches: it stays small however many shoppers came). */
export function cachedTokenCount(): number {
  return cache.size;
}

/** Forgets what this process knows of a token (after revoking or changing it). */
export function forgetToken(tokenHash: string): void {
  cache.delete(tokenHash);
}

/**
 * Forgets every token of an OAuth grant this process knows (after revoking the grant), so their
 * next use here reads the grant again at once; other processes see it within a second.
 */
export function forgetGrant(grantId: string): void {
  for (const [hash, entry] of cache) if (entry.record.grant_id === grantId) cache.delete(hash);
}

/**
 * Authenticates `token` at the time `clock` tells and takes one request from its rate-limit
 * bucket (`limit`, the per-token limit). Throws 401 invalid_token (missing, malformed, unknown,
 * revoked, expired) or 429.
 */
export async function authenticate(token: string | undefined, clock: Clock, limit: RateLimit): Promise<Principal> {
  if (!token) throw new InvalidTokenError();
  const parsed = parseToken(token);
  // Refresh tokens are never bearer tokens; malformed strings never reach the table.
  if (!parsed || parsed.kind === 'refresh') throw new InvalidTokenError();
  const tokenHash = hashToken(token);
  const idle = IDLE_LIFETIME_MS[parsed.kind];

  let entry = cache.get(tokenHash);
  if (!entry || performance.now() - entry.fetchedAt > RECORD_FRESH_MS) {
    // Unknown or stale: the conditional use write itself answers the current record (or why
    // it refused), so a cold token costs one call, not a read and then a write.
    const stale = entry;
    const pending = renewals.get(tokenHash);
    entry = pending ? await pending : await singleFlight(tokenHash, () => writeUse(tokenHash, stale, !leaseUsable(stale?.lease), idle, clock, limit));
  }
  const now = clock.nowMs();
  if (isExpired(entry.record, now)) throw new ExpiredTokenError();
  if (entry.record.grant_id) await assertGrantLive(tokenHash, entry);

  // Take one slot of the lease. Renewals are single-flight per token and process: concurrent
  // requests wait for the renewal in progress instead of each reserving a lease of their own
  // (several big leases at once would drain the shared bucket and refuse requests early).
  for (let round = 0; ; round++) {
    const lease = entry.lease;
    const usable = leaseUsable(lease);
    const useIsStale = now - (entry.record.last_used_ms ?? 0) >= LAST_USE_REFRESH_MS;
    if (usable && !useIsStale) {
      lease!.remaining--;
      break;
    }
    const pending = renewals.get(tokenHash);
    if (pending && round < MAX_WAITS) {
      entry = await pending;
      continue;
    }
    const current = entry;
    entry = await singleFlight(tokenHash, () => writeUse(tokenHash, current, !usable, idle, clock, limit));
    if (entry.lease && entry.lease.remaining > 0) entry.lease.remaining--;
    break;
  }

  const record = entry.record;
  return {
    authId: record.auth_id,
    accountId: record.account_id,
    mode: record.mode,
    kind: record.kind,
    prefix: record.prefix,
    tokenHash,
    permissions: [...rightsOfToken(record)],
    isOwner: record.is_owner === true,
    // A sliding token's window restarts with every use, whatever the stored value lags.
    expiresAtMs: idle ? now + idle : (record.expires_at_ms ?? null),
    ...(record.user_id ? { userId: record.user_id } : {}),
    ...(record.customer_id ? { customerId: record.customer_id } : {}),
    record,
  };
}

/**
 * A token issued through an OAuth grant lives only while its grant does (auth.md 6.3: a code or
 * refresh token presented twice revokes every token of the grant). The grant is read at most
 * once a second per token and process, like the token record itself.
 */
async function assertGrantLive(tokenHash: string, entry: CachedToken): Promise<void> {
  if (entry.grantCheckedAt !== undefined && performance.now() - entry.grantCheckedAt <= RECORD_FRESH_MS) return;
  const grant = await findGrant(entry.record.account_id, entry.record.grant_id!);
  if (!grant || grant.revoked) {
    forgetToken(tokenHash);
    throw new InvalidTokenError();
  }
  entry.grantCheckedAt = performance.now();
}

function isExpired(record: TokenRecord, now: number): boolean {
  return record.expires_at_ms !== undefined && record.expires_at_ms <= now;
}

function remember(tokenHash: string, record: TokenRecord, lease: Lease | undefined): CachedToken {
  const entry: CachedToken = { record, fetchedAt: performance.now(), ...(lease ? { lease } : {}) };
  cache.delete(tokenHash);
  cache.set(tokenHash, entry);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  // Oldest first (every write re-inserts): drop the idle ones at the front.
  for (const [hash, cached] of cache) {
    if (entry.fetchedAt - cached.fetchedAt <= IDLE_DROP_MS) break;
    cache.delete(hash);
  }
  return entry;
}

/** Whether `lease` still has slots and has not lapsed. */
function leaseUsable(lease: Lease | undefined): boolean {
  return lease !== undefined && lease.remaining > 0 && performance.now() - lease.takenAt <= LEASE_LIFETIME_MS;
}

/** Runs `write` as the one renewal in progress for the token (others wait for it, see above). */
function singleFlight(tokenHash: string, write: () => Promise<CachedToken>): Promise<CachedToken> {
  const renewal = write().finally(() => {
    if (renewals.get(tokenHash) === renewal) renewals.delete(tokenHash);
  });
  renewals.set(tokenHash, renewal);
  return renewal;
}

/**
 * After this process wrote a change to the token record (a binding, reach): keeps the cached
 * record in step with it instead of forgetting it, so the token's next request needs no read.
 * The change is applied only to an entry that exists; a missing one is read on next use.
 */
export function tokenRecordChanged(tokenHash: string, change: (record: TokenRecord) => TokenRecord): void {
  const entry = cache.get(tokenHash);
  if (entry) entry.record = change(entry.record);
}

/**
 * The size of the next lease: a few requests at first (a shopper's token makes a cart, pays and
 * reads the order within a second), doubled while leases are used up within their lifetime.
 */
function nextLeaseSize(lease: Lease | undefined, limit: RateLimit): number {
  const cap = Math.max(1, Math.floor(limit.burst / 4));
  if (!lease || lease.remaining > 0 || performance.now() - lease.takenAt > LEASE_LIFETIME_MS) return Math.min(cap, FIRST_LEASE);
  return Math.min(cap, lease.size * 2);
}

/**
 * One conditional write on the token record: takes a lease (when `takeLease`) and records the
 * use. It fails for a revoked or expired token, and when the bucket cannot give the lease.
 */
async function writeUse(tokenHash: string, entry: CachedToken | undefined, takeLease: boolean, idle: number | undefined, clock: Clock, limit: RateLimit): Promise<CachedToken> {
  // Unknown bucket: guess it is full (`fresh`); a wrong guess answers the stored TAT.
  let knownTat = entry?.record.rl_tat;
  let slots = takeLease ? nextLeaseSize(entry?.lease, limit) : 0;
  for (let attempt = 0; attempt < MAX_BUCKET_ATTEMPTS; attempt++) {
    const now = clock.nowMs();
    if (slots > 1 && !slotsFit(knownTat, now, limit, slots)) slots = 1;
    const bucket = slots ? bucketClauses(nextStep(knownTat, now, limit, slots), now, limit, slots) : undefined;
    const slide = idle ? { expiresAtMs: now + idle } : undefined;
    const result = await recordTokenUse(tokenHash, { now, ...(slide ? { slide } : {}), ...(bucket ? { bucket } : {}) });
    if ('used' in result) {
      const lease = slots ? { remaining: slots, size: slots, takenAt: performance.now() } : entry?.lease;
      return remember(tokenHash, result.used, lease);
    }
    const record = result.refused;
    if (!record) {
      forgetToken(tokenHash);
      throw new InvalidTokenError();
    }
    if (isExpired(record, now)) throw new ExpiredTokenError();
    // The bucket was not where we guessed: decide again from its stored TAT.
    knownTat = record.rl_tat;
    await bucketBackoff(attempt);
  }
  throw new RequestLimitExceededError(1);
}

