/**
 * Managing OAuth apps (auth.md 6.1): create, change, delete, a new client secret; and what an
 * app's tokens may do (the user's rights narrowed by the app's cap). The client secret is shown
 * once, in the answer that makes it, and stored only as its SHA-256; a deleted app's grants are
 * revoked before the app goes.
 */
import type { PermissionEntry } from '../../../core/access/permissions';
import type { Principal } from '../../../core/access/principal';
import { newId, randomBase62 } from '../../../core/ids';
import { InvalidStateError, NotFoundError } from '../../../http/errors';
import type { Clock } from '../../../platform/ports';
import { retryOnConflict } from '../../../store/entity';
import { revokeAuth } from '../auths';
import { checkEscalation } from '../grants';
import { listTokens } from '../token-store';
import { revokeAppGrants } from './grants';
import { secretHash } from './secrets';
import { findOAuthApp, insertOAuthApp, listOAuthApps, removeOAuthApp, saveOAuthApp } from './oauth-app-store';
import type { OAuthAppInput } from './oauth-app-schemas';
import { CLIENT_SECRET_PREFIX, type OAuthAppRecord } from './oauth-records';

/** An account's apps are read whole for lists (an account has few); beyond this many the list refuses. */
export const MAX_OAUTH_APPS = 5000;
/** Most trusted tokens of one account and mode searched for a deleted app's (they lapse after an idle hour). */
const MAX_TOKEN_SCAN = 10_000;

/** A new client secret: `cs_` and 40 base62 characters. */
function newClientSecret(): string {
  return `${CLIENT_SECRET_PREFIX}${randomBase62(40)}`;
}

/** An app of the caller's account; 404 for unknown ids and other accounts' apps alike. */
export async function getOAuthApp(accountId: string, appId: string): Promise<OAuthAppRecord> {
  const app = await findOAuthApp(accountId, appId);
  if (!app) throw new NotFoundError('The OAuth app does not exist.', { parameter: 'oauth_app_id' });
  return app;
}

/** The apps of an account in creation order. */
export function accountOAuthApps(accountId: string): Promise<OAuthAppRecord[]> {
  return listOAuthApps(accountId, MAX_OAUTH_APPS);
}

/** Nobody caps an app above what they hold themselves (the escalation rule of auth.md 4.1, 9.2). */
function checkCap(principal: Principal, permissions: PermissionEntry[] | null | undefined): void {
  if (permissions) checkEscalation(principal, permissions);
}

/** Creates an app; a confidential app's secret is answered once, here. */
export async function createOAuthApp(principal: Principal, input: OAuthAppInput, clock: Clock): Promise<{ app: OAuthAppRecord; secret?: string }> {
  checkCap(principal, input.permissions);
  const now = clock.nowMs();
  const clientType = input.client_type ?? 'confidential';
  const secret = clientType === 'confidential' ? newClientSecret() : undefined;
  const app: OAuthAppRecord = {
    oauth_app_id: newId(),
    account_id: principal.accountId,
    name: input.name,
    description: input.description ?? null,
    client_id: `ci_${randomBase62(24)}`,
    client_type: clientType,
    secret_hash: secret ? secretHash(secret) : null,
    secret_last4: secret ? secret.slice(-4) : null,
    redirect_uris: input.redirect_uris ?? [],
    permissions: input.permissions ?? null,
    active: input.active ?? true,
    created_ms: now,
    modified_ms: now,
  };
  await insertOAuthApp(app);
  return { app, ...(secret ? { secret } : {}) };
}

/** Applies a partial update over the version read (again after a lost race). */
export async function updateOAuthApp(principal: Principal, appId: string, input: Partial<OAuthAppInput>, clock: Clock): Promise<OAuthAppRecord> {
  checkCap(principal, input.permissions);
  return retryOnConflict(async () => {
    const current = await getOAuthApp(principal.accountId, appId);
    const next: OAuthAppRecord = {
      ...current,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.redirect_uris !== undefined ? { redirect_uris: input.redirect_uris } : {}),
      ...(input.permissions !== undefined ? { permissions: input.permissions } : {}),
      ...(input.active !== undefined ? { active: input.active } : {}),
      modified_ms: Math.max(clock.nowMs(), current.modified_ms + 1),
    };
    await saveOAuthApp(current, next);
    return next;
  });
}

/** A new client secret for a confidential app (the old one stops working at once); public apps have none (422). */
export async function resetClientSecret(principal: Principal, appId: string, clock: Clock): Promise<{ app: OAuthAppRecord; secret: string }> {
  return retryOnConflict(async () => {
    const current = await getOAuthApp(principal.accountId, appId);
    if (current.client_type !== 'confidential') throw new InvalidStateError('A public app has no client secret.');
    const secret = newClientSecret();
    const next: OAuthAppRecord = { ...current, secret_hash: secretHash(secret), secret_last4: secret.slice(-4), modified_ms: Math.max(clock.nowMs(), current.modified_ms + 1) };
    await saveOAuthApp(current, next);
    return { app: next, secret };
  });
}

/**
 * Deletes an app. Its grants are revoked first (each one marked, then its tokens deleted), so a
 * crash part-way leaves the app in place for the delete to be repeated, never live tokens of a
 * deleted app's revoked grant; the app and its client id pointer then go in one transaction.
 */
export async function deleteOAuthApp(principal: Principal, appId: string, clock: Clock): Promise<void> {
  const app = await getOAuthApp(principal.accountId, appId);
  await revokeAppGrants(app.account_id, app.oauth_app_id, clock.nowMs());
  // Implicit grants issued tokens outside any grant: they go too.
  const issued = (await Promise.all((['live', 'test'] as const).map((mode) => listTokens(app.account_id, mode, 'trusted', MAX_TOKEN_SCAN, false)))).flat();
  for (const record of issued.filter((token) => token.oauth_app_id === app.oauth_app_id)) await revokeAuth(record).catch(() => undefined);
  await retryOnConflict(async () => removeOAuthApp(await getOAuthApp(principal.accountId, appId)));
}
