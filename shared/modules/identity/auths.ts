/**
 * The auth resource: issuing, reading, listing, changing and revoking tokens
 * (auth.md sections 2, 4 and 7). Tokens are stored only as their SHA-256 (one item per
 * token, keyed by the hash); an account-wide pointer finds a token by `auth_id`.
 */
/** One raw entry of a TransactWriteItems call (kept here while other modules import it from auths). */
export type { TransactItem } from '../../store/transact';
import { InvalidInputError, NotFoundError } from '../../http/errors';
import { newId } from '../../core/ids';
import type { Clock } from '../../platform/ports';
import { declareResource } from '../../rest/declarations';
import type { RenderContext } from '../../rest/render-context';
import type { TransactEntry } from '../../store/entity';
import { forgetToken } from './authenticate';
import { effectivePermissions, rightsOfToken, type PermissionEntry } from '../../core/access/permissions';
import { IDLE_LIFETIME_MS, type TokenRecord } from '../../core/access/token-records';
import { changeToken, countTokens, deleteToken, findTokenByAuthId, insertToken, listTokens, newTokenEntries } from './token-store';
import { hashToken, newToken, redactToken, type Mode, type TokenKind, type TokenPrefix } from '../../core/access/tokens';

const PREFIX_OF: Record<Exclude<TokenKind, 'refresh'>, TokenPrefix> = { secret: 'sk', limited: 'lt', trusted: 'tt' };

/** What a new token is made of. */
export interface NewTokenInput {
  accountId: string;
  mode: Mode;
  kind: Exclude<TokenKind, 'refresh'>;
  permissions?: PermissionEntry[];
  isOwner?: boolean;
  comments?: string | null;
  /** Secret tokens: absolute expiry (epoch ms) or null for never. */
  expiresAtMs?: number | null;
  userId?: string;
  customerId?: string;
  /** Trusted tokens issued through an OAuth app (auth.md 6): the app, and the grant when there is one. */
  oauthAppId?: string;
  grantId?: string;
}

/** The record of a new token issued at `now` (epoch ms) and the entries that store it (record, id pointer, count). */
export function tokenWrites(input: NewTokenInput, now: number): { record: TokenRecord; token: string; entries: TransactEntry[] } {
  const token = newToken(PREFIX_OF[input.kind], input.mode);
  const authId = newId();
  const idle = IDLE_LIFETIME_MS[input.kind];
  const expiresAtMs = idle ? now + idle : (input.expiresAtMs ?? undefined);
  const record: TokenRecord = {
    token_hash: hashToken(token),
    auth_id: authId,
    account_id: input.accountId,
    mode: input.mode,
    kind: input.kind,
    prefix: PREFIX_OF[input.kind],
    last4: token.slice(-4),
    permissions: input.permissions,
    is_owner: input.isOwner || undefined,
    comments: input.comments ?? undefined,
    user_id: input.userId,
    customer_id: input.customerId,
    ...(input.oauthAppId ? { oauth_app_id: input.oauthAppId } : {}),
    ...(input.grantId ? { grant_id: input.grantId } : {}),
    expires_at_ms: expiresAtMs,
    created_ms: now,
    modified_ms: now,
  };
  return { record, token, entries: newTokenEntries(record) };
}

/** Stores a new token and returns its record and the full token string (shown exactly once). */
export async function issueToken(input: NewTokenInput, clock: Clock): Promise<{ record: TokenRecord; token: string }> {
  const { record, token } = tokenWrites(input, clock.nowMs());
  await insertToken(record);
  return { record, token };
}

/** Reads a token record by `auth_id` within an account (either mode); 404 when absent. */
export async function getAuthRecord(accountId: string, authId: string): Promise<TokenRecord> {
  const record = await findTokenByAuthId(accountId, authId);
  if (record) return record;
  throw new NotFoundError('The auth does not exist.', { parameter: 'auth_id' });
}


/** Revokes a token at once: its record, its id pointer and its count go in one transaction. */
export async function revokeAuth(record: TokenRecord): Promise<void> {
  forgetToken(record.token_hash);
  await deleteToken(record);
}

/** Changes of a secret token (auth.md section 4.2). */
export interface SecretTokenChanges {
  comments?: string | null;
  expiresAtMs?: number | null;
  permissions?: PermissionEntry[];
}

/** Applies changes to a secret token; they take effect from its next request. */
export async function updateSecretToken(record: TokenRecord, changes: SecretTokenChanges, clock: Clock): Promise<TokenRecord> {
  const sets = ['modified_ms = :now'];
  const removes: string[] = [];
  const values: Record<string, unknown> = { ':now': clock.nowMs() };
  const names: Record<string, string> = {};
  if (changes.comments !== undefined) {
    if (changes.comments === null) removes.push('comments');
    else {
      sets.push('comments = :comments');
      values[':comments'] = changes.comments;
    }
  }
  if (changes.permissions !== undefined) {
    sets.push('#permissions = :permissions');
    names['#permissions'] = 'permissions';
    values[':permissions'] = changes.permissions;
  }
  const stored = await changeToken(record, { sets, removes, values, names, ...(changes.expiresAtMs !== undefined ? { expiresAtMs: changes.expiresAtMs } : {}) });
  forgetToken(record.token_hash);
  return stored;
}

/** The stored count of an account's tokens of one mode and kind. */
export async function countAuths(accountId: string, mode: Mode, kind: TokenKind): Promise<number> {
  return countTokens(accountId, mode, kind);
}

/** Reads up to `max` token records of a listing partition in `date_created` order. */
export async function queryAuths(
  accountId: string,
  mode: Mode,
  kind: TokenKind,
  max: number,
  descending: boolean,
): Promise<TokenRecord[]> {
  return listTokens(accountId, mode, kind, max, descending);
}

/** A token record as rendered: the full token only in the answer that issues it. */
export type RenderedAuth = TokenRecord & { full_token?: string };

/** The auth declaration (REST conventions engine): account-wide, token redacted unless just issued. */
export const authDeclaration = declareResource<RenderedAuth>({
  name: 'auth',
  collection: 'auths',
  idField: 'auth_id',
  permission: 'auths',
  scope: 'account',
  links: { customer: 'customer' },
  formatted: { dates: ['expires', 'date_last_used', 'date_created', 'date_modified'] },
  idOf: (record) => record.auth_id,
  toJson(record, context: RenderContext) {
    const expires = record.expires_at_ms ?? null;
    return {
      object: 'auth',
      auth_id: record.auth_id,
      url: context.url(`auths/${record.auth_id}`),
      type: record.kind,
      token: record.full_token ?? redactToken(record.prefix, record.mode, record.last4),
      test: record.mode === 'test',
      account_id: record.account_id,
      user: record.user_id ? context.url(`users/${encodeURIComponent(record.user_id)}`) : null,
      customer: record.customer_id ? context.url(`customers/${encodeURIComponent(record.customer_id)}`) : null,
      oauth_app: record.oauth_app_id ? context.url(`oauth_apps/${record.oauth_app_id}`) : null,
      comments: record.comments ?? null,
      expires: context.date(expires),
      expires_in_seconds: expires === null ? null : Math.max(0, Math.floor((expires - context.now) / 1000)),
      permissions: record.kind === 'secret' ? (record.permissions ?? []) : null,
      effective_permissions: effectivePermissions(rightsOfToken(record)),
      bindings: (record.bindings ?? []).map((path) => context.url(path)),
      bindings_count: record.bindings?.length ?? 0,
      date_last_used: context.date(record.last_used_ms),
      date_created: context.date(record.created_ms),
      date_modified: context.date(record.modified_ms),
    };
  },
});
