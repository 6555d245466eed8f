/**
 * The accounts module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow } from '../../http/routes';

export const accountsModule = defineModule({
  name: 'accounts',
  families: {
    settings: {
      entry: 'handlers/http/settings.ts',
      memoryMb: 256,
      description: 'Account settings: /settings/*',
      grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: false, sendsTo: [] },
    },
  },
  routes: [
    { method: 'GET', path: '/api/v1/settings/{group}', family: 'settings', access: allow('settings', 'read') },
    { method: 'POST', path: '/api/v1/settings/{group}', family: 'settings', access: allow('settings', 'update') },
  ],
  declarations: [],
});
