/**
 * The `/apps` endpoints (hosting.md §2–§5), as actions of the API pipeline: parse, call one
 * operation, render. They need `apps:*` (the route table checks it). Apps are account-wide:
 * tokens of both modes see the same apps. The version upload is in ./upload-version-action.
 */
import { booleanParameter } from '../../../http/request';
import { declareAnswer, declareQuery, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../../http/types';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter, type OffsetPage } from '../../../rest/offset-list';
import { renderElements, renderResource } from '../../../rest/render';
import { actionScope } from '../../../rest/action-scope';
import type { RenderContext } from '../../../rest/render-context';
import { createAlias, deleteAlias, listAliases, readAlias, updateAlias } from './aliases';
import { aliasCreate, aliasUpdate, appCreate, appUpdate, APP_SORT_FIELDS, deployBody, DEPLOYMENT_SORT_FIELDS, rollbackBody, VERSION_SORT_FIELDS } from './app-schemas';
import { aliasDeclaration, aliasPath, appDeclaration, appPath, deploymentDeclaration, deploymentPath, versionDeclaration } from './apps';
import { getApp } from './apps-store';
import { deployVersion, listDeployments, readDeployment, rollback } from './deploy';
import { createApp, deleteApp, listApps, updateApp } from './manage-apps';
import { deleteVersion, listVersions, readVersion } from './versions';

/** The caller's account and render context. */
export async function appScope(context: ApiContext): Promise<{ accountId: string; render: RenderContext }> {
  const { scope, render } = await actionScope(context);
  return { accountId: scope.accountId, render };
}

/** Paging of a list and its direction (`desc`, default oldest first). */
function paging(query: Record<string, string>): OffsetPage & { descending: boolean } {
  return { ...offsetPage(query), descending: booleanParameter(query, 'desc') ?? false };
}

// --- apps

/** `POST /apps`: 201 with `Location`; `test` defaults to the token's mode. */
export const createAppAction = withBody(appCreate, async (context) => {
  const principal = requirePrincipal(context);
  const { render } = await appScope(context);
  const app = await createApp(context.platform, principal.accountId, principal.mode, context.body);
  return { status: 201, body: await renderResource(appDeclaration, app, render), location: render.url(appPath(app.app_id)) };
});

/** `GET /apps/{app_id}`. */
export async function getAppAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  return { status: 200, body: await renderResource(appDeclaration, await getApp(accountId, context.params.app_id!), render) };
}

/** `POST /apps/{app_id}`: partial update. */
export const updateAppAction = withBody(appUpdate, async (context) => {
  const { accountId, render } = await appScope(context);
  const app = await updateApp(context.platform, accountId, context.params.app_id!, context.body);
  return { status: 200, body: await renderResource(appDeclaration, app, render) };
});

/** `DELETE /apps/{app_id}`: 204; every alias stops at once, files go afterwards. */
export async function deleteAppAction(context: ApiContext): Promise<ApiResult> {
  const { accountId } = await appScope(context);
  await deleteApp(context.platform, accountId, context.params.app_id!);
  return { status: 204 };
}

/** `GET /apps`: offset list, oldest first unless `desc`; `q` searches name and alias; `sort_by` name, date_created, date_deployed. */
export async function listAppsAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  const query = context.query;
  const page = paging(query);
  const search = query.q?.trim().toLowerCase();
  const { items, total } = await listApps(accountId, { ...page, sortBy: sortByParameter(query, APP_SORT_FIELDS), ...(search ? { search } : {}) });
  const data = await renderElements(appDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url('apps'), query, 'offset')) };
}

// --- versions

/** `GET /apps/{app_id}/versions`: offset list by number (upload order). */
export async function listVersionsAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  const query = context.query;
  const appId = context.params.app_id!;
  // Upload order is both number order and creation order.
  sortByParameter(query, VERSION_SORT_FIELDS);
  const page = paging(query);
  const { items, total } = await listVersions(accountId, appId, page);
  const data = await renderElements(versionDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url(`${appPath(appId)}/versions`), query, 'offset')) };
}

/** `GET /apps/{app_id}/versions/{version_id}`. */
export async function getVersionAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  const version = await readVersion(accountId, context.params.app_id!, context.params.version_id!);
  return { status: 200, body: await renderResource(versionDeclaration, version, render) };
}

/** `DELETE /apps/{app_id}/versions/{version_id}`: 204; 409 in_use while live or pinned. */
export async function deleteVersionAction(context: ApiContext): Promise<ApiResult> {
  const { accountId } = await appScope(context);
  await deleteVersion(context.platform, accountId, context.params.app_id!, context.params.version_id!);
  return { status: 204 };
}

// --- deploy, rollback, deployments

/** `POST /apps/{app_id}/deploy`: 201 with the deployment record. */
export const deployAction = withBody(deployBody, async (context) => {
  const principal = requirePrincipal(context);
  const { accountId, render } = await appScope(context);
  const deployment = await deployVersion(context.platform, accountId, context.params.app_id!, context.body.version_id, principal);
  return { status: 201, body: await renderResource(deploymentDeclaration, deployment, render), location: render.url(deploymentPath(deployment.app_id, deployment.deployment_id)) };
});

/** `POST /apps/{app_id}/rollback`: 201 with the deployment record (`action: rollback`). */
export const rollbackAction = withBody(rollbackBody, async (context) => {
  const principal = requirePrincipal(context);
  const { accountId, render } = await appScope(context);
  const deployment = await rollback(context.platform, accountId, context.params.app_id!, context.body.version_id ?? undefined, principal);
  return { status: 201, body: await renderResource(deploymentDeclaration, deployment, render), location: render.url(deploymentPath(deployment.app_id, deployment.deployment_id)) };
});

/** `GET /apps/{app_id}/deployments`: offset list, oldest first unless `desc`. */
export async function listDeploymentsAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  const query = context.query;
  const appId = context.params.app_id!;
  sortByParameter(query, DEPLOYMENT_SORT_FIELDS);
  const page = paging(query);
  const { items, total } = await listDeployments(accountId, appId, page);
  const data = await renderElements(deploymentDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url(`${appPath(appId)}/deployments`), query, 'offset')) };
}

/** `GET /apps/{app_id}/deployments/{deployment_id}`. */
export async function getDeploymentAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  const deployment = await readDeployment(accountId, context.params.app_id!, context.params.deployment_id!);
  return { status: 200, body: await renderResource(deploymentDeclaration, deployment, render) };
}

// --- aliases

/** `GET /apps/{app_id}/aliases`: offset list, primary first. */
export async function listAliasesAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  const query = context.query;
  const appId = context.params.app_id!;
  const page = paging(query);
  const all = await listAliases(accountId, appId);
  const ordered = page.descending ? [...all].reverse() : all;
  const data = await renderElements(aliasDeclaration, ordered.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, all.length, pageUrlBuilder(render.url(`${appPath(appId)}/aliases`), query, 'offset')) };
}

/** `POST /apps/{app_id}/aliases`: 201 with `Location`. */
export const createAliasAction = withBody(aliasCreate, async (context) => {
  const { accountId, render } = await appScope(context);
  const alias = await createAlias(context.platform, accountId, context.params.app_id!, context.body);
  return { status: 201, body: await renderResource(aliasDeclaration, alias, render), location: render.url(aliasPath(alias.app_id, alias.alias)) };
});

/** `GET /apps/{app_id}/aliases/{alias}`. */
export async function getAliasAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  const alias = await readAlias(accountId, context.params.app_id!, context.params.alias!);
  return { status: 200, body: await renderResource(aliasDeclaration, alias, render) };
}

/** `POST /apps/{app_id}/aliases/{alias}`: change `version_id` or `test`. */
export const updateAliasAction = withBody(aliasUpdate, async (context) => {
  const { accountId, render } = await appScope(context);
  const alias = await updateAlias(context.platform, accountId, context.params.app_id!, context.params.alias!, context.body);
  return { status: 200, body: await renderResource(aliasDeclaration, alias, render) };
});

/** `DELETE /apps/{app_id}/aliases/{alias}`: 204; the primary alias cannot be deleted (422). */
export async function deleteAliasAction(context: ApiContext): Promise<ApiResult> {
  const { accountId } = await appScope(context);
  await deleteAlias(context.platform, accountId, context.params.app_id!, context.params.alias!);
  return { status: 204 };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listAppsAction, { list: 'offset', filters: { q: 'Search in name and alias', sort_by: '`date_created` (default), `name` or `date_deployed`' } });
declareQuery(listVersionsAction, { list: 'offset', filters: { sort_by: '`number` (default) or `date_created` (the same order: upload order)' } });
declareQuery(listDeploymentsAction, { list: 'offset', filters: { sort_by: '`date_created` (default)' } });
declareQuery(listAliasesAction, { list: 'offset' });

declareAnswer(deployAction, { resource: 'app_deployment', description: 'Answers 201 with the deployment record; `Location` holds its URL.' });
declareAnswer(rollbackAction, { resource: 'app_deployment', description: 'Answers 201 with the deployment record (`action: rollback`); `Location` holds its URL.' });
