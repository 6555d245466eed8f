/** The identity module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { authOptions, createLimitedAuth, createTrustedAuth, createSecretAuth, deleteAuth, deleteOwnAuth, getAuth, getOwnAuth, listAuths, updateAuth } from './auth-actions';
export { createUserAction, deleteUserAction, getMeUserAction, getUserAction, listUsersAction, updateMeUserAction, updateUserAction } from './user-actions';
export { createOAuthAppAction, deleteOAuthAppAction, getOAuthAppAction, listOAuthAppsAction, oauthTokenAction, resetClientSecretAction, updateOAuthAppAction } from './oauth/actions';
