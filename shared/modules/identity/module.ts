/**
 * The identity module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, collectionRoutes } from '../../http/routes';
import { authDeclaration } from './auths';

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
    { method: 'POST', path: '/api/v1/auths/limited', family: 'auths', access: { kind: 'public' } },
    { method: 'GET', path: '/api/v1/auths/options', family: 'auths', access: { kind: 'any-token' } },
    { method: 'GET', path: '/api/v1/auths/me', family: 'auths', access: { kind: 'any-token' } },
    { method: 'DELETE', path: '/api/v1/auths/me', family: 'auths', access: { kind: 'any-token' } },
  ],
  declarations: [authDeclaration],
});
