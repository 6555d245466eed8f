/** The HTTP actions of OAuth apps and the token endpoint (what handlers/http/oauth.ts binds to routes). */
export { createOAuthAppAction, deleteOAuthAppAction, getOAuthAppAction, listOAuthAppsAction, resetClientSecretAction, updateOAuthAppAction } from './oauth-app-actions';
export { oauthTokenAction } from './token-actions';
