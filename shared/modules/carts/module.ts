/**
 * The carts module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach, collectionRoutes } from '../../http/routes';
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
    ...collectionRoutes({
      family: 'carts',
      path: '/api/v1/carts',
      id: 'cart_id',
      access: { list: allow('carts', 'read'), create: allow('carts', 'create'), read: allowOrReach('carts', 'read'), update: allowOrReach('carts', 'update') },
    }),
    // Removing an item changes the cart: it needs `carts:update`.
    // commerce.md §3: adding a product already in the cart answers 200 with the grown line; an
    // update to quantity 0 removes the line and answers 204.
    ...collectionRoutes({
      family: 'carts',
      path: '/api/v1/carts/{cart_id}/items',
      id: 'item_id',
      access: { list: allowOrReach('carts', 'read'), create: allowOrReach('carts', 'create'), read: allowOrReach('carts', 'read'), update: allowOrReach('carts', 'update'), delete: allowOrReach('carts', 'update') },
    }).map((route) => (route.method === 'POST' ? { ...route, alsoAnswers: route.path.endsWith('{item_id}') ? ([204] as const) : ([200] as const) } : route)),
    { method: 'POST', path: '/api/v1/carts/{cart_id}/login', family: 'carts', access: allowOrReach('carts', 'update') },
    { method: 'POST', path: '/api/v1/carts/{cart_id}/logout', family: 'carts', access: allowOrReach('carts', 'update') },
  ],
  declarations: [cartDeclaration, cartItemDeclaration],
});
