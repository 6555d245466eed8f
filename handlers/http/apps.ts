/** Lambda entry point of the `apps` route family: hosted apps, their versions, deployments and aliases (hosting.md §2–§5). */
import { createAliasAction, createAppAction, deleteAliasAction, deleteAppAction, deleteVersionAction, deployAction, getAliasAction, getAppAction, getDeploymentAction, getVersionAction, listAliasesAction, listAppsAction, listDeploymentsAction, listVersionsAction, rollbackAction, updateAliasAction, updateAppAction, uploadVersionAction } from '../../shared/modules/hosting/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import type { ActionTable } from '../../shared/http/pipeline';

/** Every action but the upload (a multipart route, which the route table describes). */
export const appActions = {
  'GET /api/v1/apps': listAppsAction,
  'POST /api/v1/apps': createAppAction,
  'GET /api/v1/apps/{app_id}': getAppAction,
  'POST /api/v1/apps/{app_id}': updateAppAction,
  'DELETE /api/v1/apps/{app_id}': deleteAppAction,
  'GET /api/v1/apps/{app_id}/versions': listVersionsAction,
  'GET /api/v1/apps/{app_id}/versions/{version_id}': getVersionAction,
  'DELETE /api/v1/apps/{app_id}/versions/{version_id}': deleteVersionAction,
  'POST /api/v1/apps/{app_id}/deploy': deployAction,
  'POST /api/v1/apps/{app_id}/rollback': rollbackAction,
  'GET /api/v1/apps/{app_id}/deployments': listDeploymentsAction,
  'GET /api/v1/apps/{app_id}/deployments/{deployment_id}': getDeploymentAction,
  'GET /api/v1/apps/{app_id}/aliases': listAliasesAction,
  'POST /api/v1/apps/{app_id}/aliases': createAliasAction,
  'GET /api/v1/apps/{app_id}/aliases/{alias}': getAliasAction,
  'POST /api/v1/apps/{app_id}/aliases/{alias}': updateAliasAction,
  'DELETE /api/v1/apps/{app_id}/aliases/{alias}': deleteAliasAction,
} satisfies ActionTable;

export const family = defineFamily('apps', {
  ...appActions,
  'POST /api/v1/apps/{app_id}/versions': uploadVersionAction,
});

export const handler = lambdaHandler(family);
