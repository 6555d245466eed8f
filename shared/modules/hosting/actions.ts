/** The hosting module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { createAliasAction, createAppAction, deleteAliasAction, deleteAppAction, deleteVersionAction, deployAction, getAliasAction, getAppAction, getDeploymentAction, getVersionAction, listAliasesAction, listAppsAction, listDeploymentsAction, listVersionsAction, rollbackAction, updateAliasAction, updateAppAction } from './apps/app-actions';
export { uploadVersionAction } from './apps/upload-version-action';
