/**
 * Which `redirect_uri` values the sign-in page may send a browser to (auth.md 5.1): exact,
 * character-for-character matches of the account setting `oauth_redirect_uris`, or the
 * `oauth/callback.html` address of one of the account's hosted app aliases (hosting.md §8).
 */
import { readTechnicalSettings } from '../../modules/accounts';
import { findAliasPointer } from '../../modules/hosting';

/** `<apps url>/<alias>/oauth/callback.html`, the alias captured. */
const CALLBACK_PATH = /^\/([^/]+)\/oauth\/callback\.html$/;

/**
 * Whether `uri` is registered for the account: listed in `oauth_redirect_uris`, or exactly the
 * callback address of an existing alias under the account's app host (`appsTemplate`, the
 * deployment's `{account_id}` URL template; the host is matched as the template writes it or
 * lower-cased, as browsers write it).
 */
export async function isRegisteredRedirect(accountId: string, uri: string, appsTemplate: string): Promise<boolean> {
  const settings = await readTechnicalSettings(accountId);
  if (settings?.oauth_redirect_uris.includes(uri)) return true;
  for (const base of new Set([appsTemplate.replace('{account_id}', accountId), appsTemplate.replace('{account_id}', accountId.toLowerCase())])) {
    if (!uri.startsWith(`${base}/`)) continue;
    const match = CALLBACK_PATH.exec(uri.slice(base.length));
    if (!match) continue;
    const alias = match[1]!;
    // The address must be exactly what the platform serves: no escapes, query or fragment.
    if (alias !== encodeURIComponent(alias)) return false;
    return (await findAliasPointer(accountId, alias)) !== undefined;
  }
  return false;
}
