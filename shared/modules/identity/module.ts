/**
 * The identity module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowCrud, collectionRoutes } from '../../http/routes';
import { authDeclaration } from './auths';
import { oauthAppDeclaration } from './oauth/oauth-records';
import { userDeclaration } from './users';

export const identityModule = defineModule({
  name: 'identity',
  families: {
    auths: {
      entry: 'handlers/http/auths.ts',
      memoryMb: 256,
      description: 'Tokens: /auths',
      // Idempotent replays of answers that carry a new token are stored sealed.
      grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: false, sendsTo: [] },
    },
    users: {
      entry: 'handlers/http/users.ts',
      // scrypt at N=2^15, r=8, p=3 takes 32 MiB per hash.
      memoryMb: 512,
      description: 'Users: /users and /users/me',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
    },
    // OAuth apps and the token endpoint (auth.md 6.1, 6.3); the authorize page is the sign-in surface's.
    oauth: {
      entry: 'handlers/http/oauth.ts',
      memoryMb: 256,
      description: 'OAuth apps: /oauth_apps, and the token endpoint /oauth/token',
      // Reads users, writes apps, grants, codes and tokens; idempotent replays of answers that carry a client secret are stored sealed.
      grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: false, sendsTo: [] },
    },
    // The sign-in page surface (auth.md 5.1, shared/app/surfaces.ts): HTML forms, no API route.
    signin: {
      entry: 'handlers/http/signin.ts',
      memoryMb: 512,
      description: 'The sign-in page: {signin_url} (HTML form, trusted tokens)',
      // Reads users, settings and aliases, counts lockouts and the per-IP bucket, writes tokens.
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
    },
  },
  routes: [
    // Tokens are created at /auths/secret and /auths/limited, not at the collection.
    ...collectionRoutes({
      family: 'auths',
      path: '/api/v1/auths',
      id: 'auth_id',
      access: { list: allow('auths', 'read'), read: allow('auths', 'read'), update: allow('auths', 'update'), delete: allow('auths', 'delete') },
    }),
    { method: 'POST', path: '/api/v1/auths/secret', family: 'auths', access: allow('auths', 'create') },
    { method: 'POST', path: '/api/v1/auths/limited', family: 'auths', access: { kind: 'public' }, created: true },
    { method: 'GET', path: '/api/v1/auths/options', family: 'auths', access: { kind: 'any-token' } },
    { method: 'GET', path: '/api/v1/auths/me', family: 'auths', access: { kind: 'any-token' } },
    { method: 'DELETE', path: '/api/v1/auths/me', family: 'auths', access: { kind: 'any-token' } },
    // The test twin of a trusted token (auth.md 5.2): the action refuses other token kinds.
    { method: 'POST', path: '/api/v1/auths/trusted', family: 'auths', access: { kind: 'any-token' }, created: true },
    ...collectionRoutes({ family: 'users', path: '/api/v1/users', id: 'user_id', access: allowCrud('users') }),
    // The signed-in user (auth.md 9.2): the actions refuse every token but a trusted one.
    { method: 'GET', path: '/api/v1/users/me', family: 'users', access: { kind: 'any-token' } },
    { method: 'POST', path: '/api/v1/users/me', family: 'users', access: { kind: 'any-token' } },
    // OAuth apps are governed by the auths permissions (auth.md 6.1, 8.3).
    ...collectionRoutes({ family: 'oauth', path: '/api/v1/oauth_apps', id: 'oauth_app_id', access: allowCrud('auths') }),
    { method: 'POST', path: '/api/v1/oauth_apps/{oauth_app_id}/reset_secret', family: 'oauth', access: allow('auths', 'update') },
    // The token endpoint: public (client authentication is its own), form or JSON (auth.md 6.3).
    { method: 'POST', path: '/api/v1/oauth/token', family: 'oauth', access: { kind: 'public' }, body: 'form-or-json' },
  ],
  declarations: [authDeclaration, userDeclaration, oauthAppDeclaration],
});
