/**
 * OAuth apps and what they grant (auth.md 6): the app resource (account-wide, governed by the
 * `auths` permissions), and the records behind its grants, which never leave the platform: a
 * grant (one user's approval of one app, the family of tokens it issued), the authorization
 * codes, refresh tokens and consent tickets that lead to it. Secrets of every kind are stored
 * only as their SHA-256: the client secret, codes, refresh tokens and consent tickets are long
 * random strings, so a fast hash is as safe as for bearer tokens (auth.md 1.2).
 */
import type { PermissionEntry } from '../../../core/access/permissions';
import type { Mode } from '../../../core/access/tokens';
import { declareResource } from '../../../rest/declarations';
import type { RenderContext } from '../../../rest/render-context';

/** `confidential` (a server that keeps a secret) or `public` (code on users' devices; PKCE required). */
export type ClientType = 'confidential' | 'public';

/** A stored OAuth app. */
export interface OAuthAppRecord {
  oauth_app_id: string;
  account_id: string;
  name: string;
  description: string | null;
  /** Generated, public, unique on the whole platform (a pointer item finds the app by it). */
  client_id: string;
  client_type: ClientType;
  /** SHA-256 of the client secret (confidential apps), never the secret itself. */
  secret_hash: string | null;
  /** The secret's last four characters, for the redacted form. */
  secret_last4: string | null;
  redirect_uris: string[];
  /** Write-format cap on issued tokens; null: no cap beyond the user's rights. */
  permissions: PermissionEntry[] | null;
  active: boolean;
  created_ms: number;
  modified_ms: number;
}

/** An app as rendered: the full client secret only in the answer that makes it. */
export type RenderedOAuthApp = OAuthAppRecord & { full_secret?: string };

/** The prefix of client secrets (and of their redacted form, `cs_...AB12`). */
export const CLIENT_SECRET_PREFIX = 'cs_';

/** The API path of an app. */
export function oauthAppPath(appId: string): string {
  return `oauth_apps/${appId}`;
}

/** The OAuth app declaration (REST conventions engine): account-wide; the secret redacted unless just made. */
export const oauthAppDeclaration = declareResource<RenderedOAuthApp>({
  name: 'oauth_app',
  collection: 'oauth_apps',
  idField: 'oauth_app_id',
  permission: 'auths',
  scope: 'account',
  formatted: { dates: ['date_created', 'date_modified'] },
  idOf: (record) => record.oauth_app_id,
  toJson(record, context: RenderContext) {
    return {
      object: 'oauth_app',
      oauth_app_id: record.oauth_app_id,
      url: context.url(oauthAppPath(record.oauth_app_id)),
      account_id: record.account_id,
      name: record.name,
      description: record.description,
      client_id: record.client_id,
      client_secret:
        record.client_type !== 'confidential' ? null : (record.full_secret ?? `${CLIENT_SECRET_PREFIX}...${record.secret_last4 ?? ''}`),
      client_type: record.client_type,
      redirect_uris: record.redirect_uris,
      permissions: record.permissions,
      active: record.active,
      date_created: context.date(record.created_ms),
      date_modified: context.date(record.modified_ms),
    };
  },
});

/**
 * One grant: a user's approval of an app, through an authorization code. It holds the current
 * refresh token's hash (only that one works), the auth ids of every access token it issued (so
 * revoking it can delete them), and `revoked` once a code or refresh token was presented twice,
 * the user went or changed its password, or the app was deleted. Tokens carry its id; a revoked
 * or missing grant ends them (authenticate.ts checks it).
 */
export interface GrantRecord {
  grant_id: string;
  account_id: string;
  mode: Mode;
  oauth_app_id: string;
  user_id: string;
  refresh_hash: string;
  access_auth_ids: string[];
  revoked?: boolean;
  /** When the newest refresh token lapses (epoch ms); the record is kept a while after. */
  expires_at_ms: number;
  created_ms: number;
  modified_ms: number;
}

/** An authorization code (auth.md 6.2): single-use, 5 minutes, tied to app, redirect, user, mode and challenge. */
export interface CodeRecord {
  code_hash: string;
  account_id: string;
  mode: Mode;
  oauth_app_id: string;
  user_id: string;
  redirect_uri: string;
  /** The S256 challenge, when one was sent. */
  code_challenge?: string;
  /** The grant its exchange creates (known beforehand, so a second use can revoke it). */
  grant_id: string;
  expires_at_ms: number;
  /** Set by the exchange that spent it. */
  used_ms?: number;
  created_ms: number;
}

/** A refresh token (auth.md 6.3): 30 days, once; a used one is kept to recognise its reuse. */
export interface RefreshRecord {
  refresh_hash: string;
  grant_id: string;
  account_id: string;
  mode: Mode;
  expires_at_ms: number;
  used_ms?: number;
  created_ms: number;
}

/**
 * What a user who signed in on the authorize page may now approve or refuse (the consent
 * screen's hidden ticket): the request it answers, for ten minutes, once.
 */
export interface ConsentRecord {
  ticket_hash: string;
  account_id: string;
  mode: Mode;
  oauth_app_id: string;
  user_id: string;
  response_type: 'code' | 'token';
  redirect_uri: string;
  state?: string;
  code_challenge?: string;
  expires_at_ms: number;
}
