/**
 * The carts module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach } from '../../http/routes';
import { cartDeclaration, cartItemDeclaration } from './carts';

export const cartsModule = defineModule({
  name: 'carts',
  families: {
    carts: {
      entry: 'handlers/http/carts.ts',
      memoryMb: 256,
      description: 'Carts and cart items: /carts',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
    },
  },
  routes: [
    { method: 'GET', path: '/api/v1/carts', family: 'carts', access: allow('carts', 'read') },
    { method: 'POST', path: '/api/v1/carts', family: 'carts', access: allow('carts', 'create') },
    { method: 'GET', path: '/api/v1/carts/{cart_id}', family: 'carts', access: allowOrReach('carts', 'read') },
    { method: 'POST', path: '/api/v1/carts/{cart_id}', family: 'carts', access: allowOrReach('carts', 'update') },
    { method: 'GET', path: '/api/v1/carts/{cart_id}/items', family: 'carts', access: allowOrReach('carts', 'read') },
    { method: 'POST', path: '/api/v1/carts/{cart_id}/items', family: 'carts', access: allowOrReach('carts', 'create') },
    { method: 'GET', path: '/api/v1/carts/{cart_id}/items/{item_id}', family: 'carts', access: allowOrReach('carts', 'read') },
    { method: 'POST', path: '/api/v1/carts/{cart_id}/items/{item_id}', family: 'carts', access: allowOrReach('carts', 'update') },
    { method: 'DELETE', path: '/api/v1/carts/{cart_id}/items/{item_id}', family: 'carts', access: allowOrReach('carts', 'update') },
    { method: 'POST', path: '/api/v1/carts/{cart_id}/login', family: 'carts', access: allowOrReach('carts', 'update') },
    { method: 'POST', path: '/api/v1/carts/{cart_id}/logout', family: 'carts', access: allowOrReach('carts', 'update') },
  ],
  declarations: [cartDeclaration, cartItemDeclaration],
});
