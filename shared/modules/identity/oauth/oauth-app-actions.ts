/** The `/oauth_apps` endpoints (auth.md 6.1), as actions of the API pipeline: parse, call one operation, render. */
import { InvalidInputError } from '../../../http/errors';
import { booleanParameter } from '../../../http/request';
import { declareAnswer, declareQuery, withBody, type ApiContext, type ApiResult } from '../../../http/types';
import { actionScope } from '../../../rest/action-scope';
import { offsetList, offsetPage, pageUrlBuilder } from '../../../rest/offset-list';
import { renderElements, renderResource } from '../../../rest/render';
import { accountOAuthApps, createOAuthApp, deleteOAuthApp, getOAuthApp, resetClientSecret, updateOAuthApp } from './oauth-apps';
import { oauthAppCreate, oauthAppUpdate } from './oauth-app-schemas';
import { oauthAppDeclaration, oauthAppPath, type OAuthAppRecord } from './oauth-records';

const SORT_FIELDS = new Set(['name', 'date_created']);

/** `GET /oauth_apps`: an offset list of the account's apps; `q` searches name and client id; `sort_by` name or date_created. */
export async function listOAuthAppsAction(context: ApiContext): Promise<ApiResult> {
  const { principal, render } = await actionScope(context);
  const page = offsetPage(context.query);
  const sortBy = context.query.sort_by || 'date_created';
  if (!SORT_FIELDS.has(sortBy)) throw new InvalidInputError('The parameter sort_by must be name or date_created.', { parameter: 'sort_by', reason: 'invalid' });
  const descending = booleanParameter(context.query, 'desc') ?? false;
  const search = context.query.q?.trim().toLowerCase() || undefined;
  let apps = await accountOAuthApps(principal.accountId);
  if (search) apps = apps.filter((app) => app.name.toLowerCase().includes(search) || app.client_id.toLowerCase().includes(search));
  const key = (app: OAuthAppRecord): string | number => (sortBy === 'name' ? app.name.toLowerCase() : app.created_ms);
  const direction = descending ? -1 : 1;
  apps.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return direction * (x < y ? -1 : x > y ? 1 : a.oauth_app_id < b.oauth_app_id ? -1 : 1);
  });
  const data = await renderElements(oauthAppDeclaration, apps.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, apps.length, pageUrlBuilder(render.url('oauth_apps'), context.query, 'offset')) };
}

/** `POST /oauth_apps`: 201; a confidential app's `client_secret` in full, this once. */
export const createOAuthAppAction = withBody(oauthAppCreate, async (context) => {
  const { principal, render } = await actionScope(context);
  const { app, secret } = await createOAuthApp(principal, context.body, context.platform.clock);
  return {
    status: 201,
    body: await renderResource(oauthAppDeclaration, { ...app, ...(secret ? { full_secret: secret } : {}) }, render),
    location: render.url(oauthAppPath(app.oauth_app_id)),
    sensitive: true,
  };
});

/** `GET /oauth_apps/{oauth_app_id}`: the secret redacted. */
export async function getOAuthAppAction(context: ApiContext): Promise<ApiResult> {
  const { principal, render } = await actionScope(context);
  return { status: 200, body: await renderResource(oauthAppDeclaration, await getOAuthApp(principal.accountId, context.params.oauth_app_id!), render) };
}

/** `POST /oauth_apps/{oauth_app_id}`: partial update. */
export const updateOAuthAppAction = withBody(oauthAppUpdate, async (context) => {
  const { principal, render } = await actionScope(context);
  const app = await updateOAuthApp(principal, context.params.oauth_app_id!, context.body, context.platform.clock);
  return { status: 200, body: await renderResource(oauthAppDeclaration, app, render) };
});

/** `DELETE /oauth_apps/{oauth_app_id}`: 204; the app's grants and their tokens are revoked first. */
export async function deleteOAuthAppAction(context: ApiContext): Promise<ApiResult> {
  const { principal } = await actionScope(context);
  await deleteOAuthApp(principal, context.params.oauth_app_id!, context.platform.clock);
  return { status: 204 };
}

/** `POST /oauth_apps/{oauth_app_id}/reset_secret`: a new client secret, in full this once; the old one stops working. */
export async function resetClientSecretAction(context: ApiContext): Promise<ApiResult> {
  const { principal, render } = await actionScope(context);
  const { app, secret } = await resetClientSecret(principal, context.params.oauth_app_id!, context.platform.clock);
  return { status: 200, body: await renderResource(oauthAppDeclaration, { ...app, full_secret: secret }, render), sensitive: true };
}

declareQuery(listOAuthAppsAction, { list: 'offset', filters: { q: 'Search in name and client_id', sort_by: 'date_created (default) or name' } });

declareAnswer(resetClientSecretAction, { resource: 'oauth_app', description: 'Answers the app with its new client secret in full, in this answer only; the old secret stops working.' });
