/** Lambda entry point of the `auths` route family: token management (auth.md section 7). */
import { authOptions, createLimitedAuth, createSecretAuth, createTrustedAuth, deleteAuth, deleteOwnAuth, getAuth, getOwnAuth, listAuths, updateAuth } from '../../shared/modules/identity/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('auths', {
  'GET /api/v1/auths': listAuths,
  'POST /api/v1/auths/secret': createSecretAuth,
  'POST /api/v1/auths/limited': createLimitedAuth,
  'POST /api/v1/auths/trusted': createTrustedAuth,
  'GET /api/v1/auths/options': authOptions,
  'GET /api/v1/auths/me': getOwnAuth,
  'DELETE /api/v1/auths/me': deleteOwnAuth,
  'GET /api/v1/auths/{auth_id}': getAuth,
  'POST /api/v1/auths/{auth_id}': updateAuth,
  'DELETE /api/v1/auths/{auth_id}': deleteAuth,
});

export const handler = lambdaHandler(family);
