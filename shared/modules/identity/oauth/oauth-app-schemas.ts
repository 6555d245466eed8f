/** Request bodies of `/oauth_apps` (auth.md 6.1), declared once: validation, types and OpenAPI. */
import { body, flag, list, oneOf, reason, requiredText, text, z } from '../../../rest/fields';
import { permissionEntry } from '../auth-schemas';

const MAX_REDIRECT_URIS = 50;
const MAX_URI = 2000;
const MAX_PERMISSION_ENTRIES = 200;

/**
 * Whether `uri` may be registered (auth.md 6.1): absolute, `https`, or `http` only on
 * `localhost`, `127.0.0.1` and `*.localhost`; no fragment (the platform writes one on implicit
 * grants) and no user info.
 */
export function isAllowedRedirectUri(uri: string): boolean {
  if (uri.includes('#')) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === 'https:') return url.hostname !== '';
  if (url.protocol !== 'http:') return false;
  return url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname.endsWith('.localhost');
}

/** One redirect URI, matched character for character later, so it is stored exactly as sent. */
const redirectUri = z
  .string({ error: 'must be a string' })
  .max(MAX_URI, { error: `must be at most ${MAX_URI} characters` })
  .refine(isAllowedRedirectUri, reason('invalid', 'must be an absolute https URI without a fragment (http only for localhost, 127.0.0.1 and *.localhost)'));

const redirectUris = list(redirectUri, MAX_REDIRECT_URIS).transform((uris) => [...new Set(uris)]);

/** The cap on issued tokens: a write-format list (may be empty: no rights), or null for none. */
const appPermissions = list(permissionEntry, MAX_PERMISSION_ENTRIES).nullable();

/** `POST /oauth_apps`. */
export const oauthAppCreate = body({
  name: requiredText(100),
  description: text(1000).optional(),
  client_type: oneOf(['confidential', 'public'] as const).optional(),
  redirect_uris: redirectUris.optional(),
  permissions: appPermissions.optional(),
  active: flag().optional(),
});

/** `POST /oauth_apps/{oauth_app_id}`: a partial update; `client_id` and `client_type` never change (silently ignored). */
export const oauthAppUpdate = body({
  name: requiredText(100).optional(),
  description: text(1000).optional(),
  redirect_uris: redirectUris.optional(),
  permissions: appPermissions.optional(),
  active: flag().optional(),
});

/** An app body as parsed (create or update). */
export type OAuthAppInput = z.output<typeof oauthAppCreate>;
