/**
 * The identity module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow } from '../../http/routes';
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
    { method: 'GET', path: '/api/v1/auths', family: 'auths', access: allow('auths', 'read') },
    { method: 'POST', path: '/api/v1/auths/secret', family: 'auths', access: allow('auths', 'create') },
    { method: 'POST', path: '/api/v1/auths/limited', family: 'auths', access: { kind: 'public' } },
    { method: 'GET', path: '/api/v1/auths/options', family: 'auths', access: { kind: 'any-token' } },
    { method: 'GET', path: '/api/v1/auths/me', family: 'auths', access: { kind: 'any-token' } },
    { method: 'DELETE', path: '/api/v1/auths/me', family: 'auths', access: { kind: 'any-token' } },
    { method: 'GET', path: '/api/v1/auths/{auth_id}', family: 'auths', access: allow('auths', 'read') },
    { method: 'POST', path: '/api/v1/auths/{auth_id}', family: 'auths', access: allow('auths', 'update') },
    { method: 'DELETE', path: '/api/v1/auths/{auth_id}', family: 'auths', access: allow('auths', 'delete') },
  ],
  declarations: [authDeclaration],
});
