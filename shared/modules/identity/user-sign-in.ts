/**
 * Users signing in (auth.md 5): the password check under the login lockout (the same code as
 * customer logins), trusted tokens issued with the user's rights copied, and the revocation of
 * a user's trusted tokens when the user goes or changes its password (auth.md 9.2).
 */
import type { Clock } from '../../platform/ports';
import type { TokenRecord } from '../../core/access/token-records';
import type { Mode } from '../../core/access/tokens';
import { issueToken, revokeAuth } from './auths';
import { checkPassword, lockoutKey, withLockout } from './lockout';
import { revokeUserGrants } from './oauth/grants';
import { listTokens } from './token-store';
import { findUser, recordUserLogin, userIdOfEmail } from './user-store';
import { rightsOfUser, type UserRecord } from './users';

/** Where users' lockout items live: user ids are unique on the whole platform. */
const USER_LOCKOUT_PARTITION = 'platform';

/** Most trusted tokens of one account and mode searched for a user's (they lapse after an idle hour). */
const MAX_TRUSTED_SCAN = 10_000;

/** The user a login name names (a user id, else an email address; both case-insensitive), or undefined. */
export async function findUserByLogin(loginName: string): Promise<UserRecord | undefined> {
  const byId = await findUser(loginName);
  if (byId) return byId;
  if (!loginName.includes('@')) return undefined;
  const userId = await userIdOfEmail(loginName);
  return userId ? findUser(userId) : undefined;
}

/**
 * Checks a login name and password under the lockout of the user (auth.md 5.3) and answers the
 * user. Unknown names and users without a password get 401 invalid_login after a dummy hash
 * check (not counted); a wrong password is counted; 401 account_locked while locked. A success
 * records `date_last_login` and rewrites a hash of older parameters (auth.md 9.3).
 */
export async function signInUser(loginName: string, password: string, clock: Clock): Promise<UserRecord> {
  const user = await findUserByLogin(loginName);
  let rehashed: string | undefined;
  const key = lockoutKey(USER_LOCKOUT_PARTITION, 'users', user?.user_id ?? loginName);
  const signedIn = await withLockout(key, clock, () =>
    checkPassword(password, user?.password_hash ? { value: user, hash: user.password_hash } : undefined, async (hash) => {
      rehashed = hash;
    }),
  );
  const now = clock.nowMs();
  await recordUserLogin(signedIn.user_id, now, rehashed ? { before: signedIn.password_hash!, after: rehashed } : undefined);
  return { ...signedIn, last_login_ms: now };
}

/** Issues a trusted token for `user` in `mode` with the user's rights as they are now (auth.md 1.5). */
export async function issueTrustedToken(user: UserRecord, mode: Mode, clock: Clock): Promise<{ record: TokenRecord; token: string }> {
  return issueToken(
    { accountId: user.account_id, mode, kind: 'trusted', permissions: [...rightsOfUser(user)], isOwner: user.is_account_owner, userId: user.user_id },
    clock,
  );
}

/**
 * Issues a trusted token with the same user and rights as the trusted token `caller` (the test
 * twin, auth.md 5.2), and the same OAuth app limits: its app, and its grant, whose revocation
 * ends the twin too.
 */
export async function issueTrustedTwin(caller: TokenRecord, mode: Mode, clock: Clock): Promise<{ record: TokenRecord; token: string }> {
  return issueToken(
    {
      accountId: caller.account_id,
      mode,
      kind: 'trusted',
      permissions: [...(caller.permissions ?? [])],
      isOwner: caller.is_owner === true,
      userId: caller.user_id!,
      ...(caller.oauth_app_id ? { oauthAppId: caller.oauth_app_id } : {}),
      ...(caller.grant_id ? { grantId: caller.grant_id } : {}),
    },
    clock,
  );
}

/**
 * Revokes every trusted token of a user in both modes and every OAuth grant of the user (its
 * refresh tokens), except the token whose hash is `keep` and the grant it came from (the token
 * that changed the password keeps working, auth.md 9.2). `now` marks the revoked grants.
 */
export async function revokeUserTokens(accountId: string, userId: string, now: number, keep?: string): Promise<number> {
  const lower = userId.toLowerCase();
  const found = (await Promise.all((['live', 'test'] as const).map((mode) => listTokens(accountId, mode, 'trusted', MAX_TRUSTED_SCAN, false)))).flat();
  const keptGrant = found.find((record) => record.token_hash === keep)?.grant_id;
  // Grants first: once marked, every token they issued is refused, wherever it is cached.
  await revokeUserGrants(accountId, userId, now, keptGrant);
  const mine = found.filter((record) => record.user_id?.toLowerCase() === lower && record.token_hash !== keep);
  await Promise.all(mine.map((record) => revokeAuth(record).catch(() => undefined)));
  return mine.length;
}
