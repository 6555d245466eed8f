/**
 * OAuth grants (auth.md 6.2, 6.3): the consent ticket of a signed-in user, the authorization
 * code and implicit token it leads to, the code exchange, refresh token rotation, and
 * revocation. Every write that issues something is one transaction (spend the code or refresh
 * token, store the grant or move it on, store the new refresh token and the access token), so a
 * crash at any point leaves either nothing or all of it.
 *
 * Revocation marks the grant first (from then on authenticate.ts refuses every token that
 * carries its id, in every process within a second) and then deletes the access tokens it
 * issued one by one; a crash in between leaves dead tokens that lapse idle, and any later
 * presentation of the grant's code or refresh tokens runs the deletion again.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { IDLE_LIFETIME_MS, type TokenRecord } from '../../../core/access/token-records';
import { newToken, parseToken, type Mode } from '../../../core/access/tokens';
import { newId, randomBase62 } from '../../../core/ids';
import type { Clock } from '../../../platform/ports';
import { transact } from '../../../store/entity';
import { forgetGrant } from '../authenticate';
import { revokeAuth, tokenWrites } from '../auths';
import { findTokenByAuthId } from '../token-store';
import { findUser } from '../user-store';
import type { UserRecord } from '../users';
import { InvalidGrantError } from './errors';
import {
  findCode,
  findGrant,
  findRefresh,
  listGrants,
  markGrantRevoked,
  newCodeEntry,
  newConsentEntry,
  newGrantEntry,
  newRefreshEntry,
  rotateGrantEntry,
  spendCodeEntry,
  spendRefreshEntry,
  takeConsent,
} from './grant-store';
import { grantedRights } from './granted-rights';
import { secretHash } from './secrets';
import type { CodeRecord, ConsentRecord, GrantRecord, OAuthAppRecord } from './oauth-records';

/** A code lives 5 minutes (auth.md 6.2). */
export const CODE_LIFETIME_MS = 5 * 60 * 1000;
/** A refresh token lives 30 days (auth.md 6.3). */
export const REFRESH_LIFETIME_MS = 30 * 24 * 3600 * 1000;
/** A consent ticket lives 10 minutes: the time a user has to approve after signing in. */
export const CONSENT_LIFETIME_MS = 10 * 60 * 1000;
/** Most grants of one account searched when revoking a user's or an app's. */
const MAX_GRANT_SCAN = 10_000;
/** A PKCE verifier (RFC 7636 §4.1): 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** What a successful exchange or refresh issued: the access token (and its record) and the next refresh token. */
export interface IssuedGrantTokens {
  accessToken: string;
  record: TokenRecord;
  refreshToken: string;
}

/** The S256 transformation (RFC 7636 §4.2): base64url, no padding, of the verifier's SHA-256. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether `verifier` is well formed (43-128 unreserved characters). */
export function isWellFormedVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The user a grant or consent names, when it is still a user of `accountId`. */
async function accountUser(accountId: string, userId: string): Promise<UserRecord | undefined> {
  const user = await findUser(userId);
  return user && user.account_id === accountId ? user : undefined;
}

/** The writes of a new trusted token for `user` through `app` (rights narrowed by the app's cap). */
function accessTokenWrites(user: UserRecord, app: OAuthAppRecord, mode: Mode, now: number, grantId?: string) {
  const rights = grantedRights(user, app);
  return tokenWrites(
    { accountId: user.account_id, mode, kind: 'trusted', permissions: rights.permissions, isOwner: rights.isOwner, userId: user.user_id, oauthAppId: app.oauth_app_id, ...(grantId ? { grantId } : {}) },
    now,
  );
}

// --- the authorize page

/** What a signed-in user is asked to approve. */
export type ConsentRequest = Omit<ConsentRecord, 'ticket_hash' | 'expires_at_ms'>;

/** Stores a consent ticket for `request` and answers the ticket (shown once, in the consent form). */
export async function issueConsentTicket(request: ConsentRequest, clock: Clock): Promise<string> {
  const ticket = randomBase62(40);
  await transact([newConsentEntry({ ...request, ticket_hash: secretHash(ticket), expires_at_ms: clock.nowMs() + CONSENT_LIFETIME_MS })]);
  return ticket;
}

/** Takes a consent ticket once; undefined when it is unknown, already taken or lapsed. */
export async function takeConsentTicket(ticket: string, clock: Clock): Promise<ConsentRecord | undefined> {
  if (!/^[0-9A-Za-z]{40}$/.test(ticket)) return undefined;
  const consent = await takeConsent(secretHash(ticket));
  return consent && consent.expires_at_ms > clock.nowMs() ? consent : undefined;
}

/** Issues an authorization code for an approved consent: single-use, 5 minutes (auth.md 6.2). */
export async function issueAuthorizationCode(consent: ConsentRecord, clock: Clock): Promise<string> {
  const code = randomBase62(40);
  const now = clock.nowMs();
  const record: CodeRecord = {
    code_hash: secretHash(code),
    account_id: consent.account_id,
    mode: consent.mode,
    oauth_app_id: consent.oauth_app_id,
    user_id: consent.user_id,
    redirect_uri: consent.redirect_uri,
    ...(consent.code_challenge ? { code_challenge: consent.code_challenge } : {}),
    grant_id: newId(),
    expires_at_ms: now + CODE_LIFETIME_MS,
    created_ms: now,
  };
  await transact([newCodeEntry(record)]);
  return code;
}

/** Issues the access token of an approved implicit grant (no refresh token); undefined when the user is gone. */
export async function issueImplicitToken(consent: ConsentRecord, app: OAuthAppRecord, clock: Clock): Promise<{ token: string; record: TokenRecord } | undefined> {
  const user = await accountUser(consent.account_id, consent.user_id);
  if (!user) return undefined;
  const { record, token, entries } = accessTokenWrites(user, app, consent.mode, clock.nowMs());
  await transact(entries);
  return { token, record };
}

// --- the token endpoint

/** A code that was refused by the spending write (used meanwhile, or lapsed). */
class CodeRefused extends Error {}
/** A refresh token or grant that was refused by the rotating write. */
class RefreshRefused extends Error {}

const badCode = () => new InvalidGrantError('The code is unknown, expired or already used.', 'code');
const badRefresh = () => new InvalidGrantError('The refresh token is unknown, expired or already used.', 'refresh_token');

/**
 * Exchanges an authorization code (auth.md 6.3) for an access token and a refresh token, for
 * the authenticated `app`. A wrong verifier or redirect leaves the code unspent; a code
 * presented after it was spent is refused and the grant its first use made is revoked.
 */
export async function exchangeCode(app: OAuthAppRecord, input: { code: string; redirectUri: string; codeVerifier?: string }, clock: Clock): Promise<IssuedGrantTokens> {
  if (!/^[0-9A-Za-z]{40}$/.test(input.code)) throw badCode();
  const codeHash = secretHash(input.code);
  const code = await findCode(codeHash);
  if (!code || code.oauth_app_id !== app.oauth_app_id) throw badCode();
  if (code.used_ms !== undefined) {
    await revokeGrant(code.account_id, code.grant_id, clock.nowMs());
    throw badCode();
  }
  if (code.expires_at_ms <= clock.nowMs()) throw badCode();
  if (!sameText(code.redirect_uri, input.redirectUri)) throw new InvalidGrantError('The redirect_uri differs from the one of the authorization request.', 'redirect_uri');
  if (code.code_challenge !== undefined) {
    if (input.codeVerifier === undefined || !sameText(s256(input.codeVerifier), code.code_challenge)) {
      throw new InvalidGrantError('The code_verifier does not match the code_challenge.', 'code_verifier');
    }
  }
  if (!app.active) throw new InvalidGrantError('The OAuth app is inactive.', 'client_id');
  const user = await accountUser(code.account_id, code.user_id);
  if (!user) throw badCode();

  const now = clock.nowMs();
  const refreshToken = newToken('rt', code.mode);
  const refreshHash = secretHash(refreshToken);
  const access = accessTokenWrites(user, app, code.mode, now, code.grant_id);
  const grant: GrantRecord = {
    grant_id: code.grant_id,
    account_id: code.account_id,
    mode: code.mode,
    oauth_app_id: app.oauth_app_id,
    user_id: user.user_id,
    refresh_hash: refreshHash,
    access_auth_ids: [access.record.auth_id],
    expires_at_ms: now + REFRESH_LIFETIME_MS,
    created_ms: now,
    modified_ms: now,
  };
  try {
    await transact([
      spendCodeEntry(codeHash, now, () => new CodeRefused()),
      newGrantEntry(grant),
      newRefreshEntry({ refresh_hash: refreshHash, grant_id: grant.grant_id, account_id: grant.account_id, mode: grant.mode, expires_at_ms: now + REFRESH_LIFETIME_MS, created_ms: now }),
      ...access.entries,
    ]);
  } catch (error) {
    if (!(error instanceof CodeRefused)) throw error;
    // Spent by a concurrent exchange (a second use): what that one issued is revoked.
    const again = await findCode(codeHash);
    if (again?.used_ms !== undefined) await revokeGrant(again.account_id, again.grant_id, clock.nowMs());
    throw badCode();
  }
  return { accessToken: access.token, record: access.record, refreshToken };
}

/**
 * Rotates a refresh token (auth.md 6.3): the presented one is spent, a new one and a new access
 * token are issued, with the user's rights as they are now. A refresh token presented after it
 * was spent (or after the grant moved on) revokes the whole grant.
 */
export async function refreshGrant(app: OAuthAppRecord, presented: string, clock: Clock): Promise<IssuedGrantTokens> {
  const parsed = parseToken(presented);
  if (!parsed || parsed.kind !== 'refresh') throw badRefresh();
  const refreshHash = secretHash(presented);
  const refresh = await findRefresh(refreshHash);
  if (!refresh) throw badRefresh();
  const grant = await findGrant(refresh.account_id, refresh.grant_id);
  if (!grant || grant.oauth_app_id !== app.oauth_app_id) throw badRefresh();
  if (grant.revoked || refresh.used_ms !== undefined || grant.refresh_hash !== refreshHash) {
    await revokeGrant(grant.account_id, grant.grant_id, clock.nowMs());
    throw badRefresh();
  }
  if (refresh.expires_at_ms <= clock.nowMs()) throw badRefresh();
  if (!app.active) throw new InvalidGrantError('The OAuth app is inactive.', 'client_id');
  const user = await accountUser(grant.account_id, grant.user_id);
  if (!user) {
    await revokeGrant(grant.account_id, grant.grant_id, clock.nowMs());
    throw badRefresh();
  }

  const now = clock.nowMs();
  const nextToken = newToken('rt', grant.mode);
  const nextHash = secretHash(nextToken);
  const access = accessTokenWrites(user, app, grant.mode, now, grant.grant_id);
  const expiresAtMs = now + REFRESH_LIFETIME_MS;
  try {
    await transact([
      spendRefreshEntry(refreshHash, now, () => new RefreshRefused()),
      rotateGrantEntry(grant, { oldHash: refreshHash, newHash: nextHash, authId: access.record.auth_id, now, expiresAtMs }, () => new RefreshRefused()),
      newRefreshEntry({ refresh_hash: nextHash, grant_id: grant.grant_id, account_id: grant.account_id, mode: grant.mode, expires_at_ms: expiresAtMs, created_ms: now }),
      ...access.entries,
    ]);
  } catch (error) {
    if (!(error instanceof RefreshRefused)) throw error;
    // Spent by a concurrent refresh, or the grant was revoked meanwhile: both end the grant.
    await revokeGrant(grant.account_id, grant.grant_id, clock.nowMs());
    throw badRefresh();
  }
  return { accessToken: access.token, record: access.record, refreshToken: nextToken };
}

// --- revocation

/** Revokes a grant: marks it (which ends its tokens everywhere), then deletes the access tokens it issued. */
export async function revokeGrant(accountId: string, grantId: string, now: number): Promise<void> {
  const grant = await findGrant(accountId, grantId);
  if (!grant) return;
  await markGrantRevoked(grant, now);
  forgetGrant(grant.grant_id);
  for (const authId of grant.access_auth_ids) {
    const record = await findTokenByAuthId(accountId, authId);
    if (record) await revokeAuth(record).catch(() => undefined);
  }
}

/** Revokes every grant of a user (its refresh tokens and their access tokens), but `keepGrantId`'s. */
export async function revokeUserGrants(accountId: string, userId: string, now: number, keepGrantId?: string): Promise<void> {
  const lower = userId.toLowerCase();
  const mine = (await listGrants(accountId, MAX_GRANT_SCAN)).filter((grant) => grant.user_id.toLowerCase() === lower && !grant.revoked && grant.grant_id !== keepGrantId);
  for (const grant of mine) await revokeGrant(accountId, grant.grant_id, now);
}

/** Revokes every grant of an app (before the app is deleted). */
export async function revokeAppGrants(accountId: string, appId: string, now: number): Promise<void> {
  const grants = (await listGrants(accountId, MAX_GRANT_SCAN)).filter((grant) => grant.oauth_app_id === appId && !grant.revoked);
  for (const grant of grants) await revokeGrant(accountId, grant.grant_id, now);
}

/** The idle lifetime of an issued access token in seconds (`expires_in`). */
export const ACCESS_TOKEN_SECONDS = IDLE_LIFETIME_MS.trusted! / 1000;
