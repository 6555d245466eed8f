/** Lambda entry point of the `oauth` route family: OAuth apps and the token endpoint (auth.md 6.1, 6.3). */
import { createOAuthAppAction, deleteOAuthAppAction, getOAuthAppAction, listOAuthAppsAction, oauthTokenAction, resetClientSecretAction, updateOAuthAppAction } from '../../shared/modules/identity/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('oauth', {
  'GET /api/v1/oauth_apps': listOAuthAppsAction,
  'POST /api/v1/oauth_apps': createOAuthAppAction,
  'GET /api/v1/oauth_apps/{oauth_app_id}': getOAuthAppAction,
  'POST /api/v1/oauth_apps/{oauth_app_id}': updateOAuthAppAction,
  'DELETE /api/v1/oauth_apps/{oauth_app_id}': deleteOAuthAppAction,
  'POST /api/v1/oauth_apps/{oauth_app_id}/reset_secret': resetClientSecretAction,
  'POST /api/v1/oauth/token': oauthTokenAction,
});

export const handler = lambdaHandler(family);
