/**
 * The shipping module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, collectionRoutes } from '../../http/routes';
import { shippingMethodDeclaration } from './shipping-methods';

export const shippingModule = defineModule({
  name: 'shipping',
  families: {
    shipping: {
      entry: 'handlers/http/shipping-methods.ts',
      memoryMb: 256,
      description: 'Shipping methods: /shipping_methods',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
    },
  },
  routes: [
    // Shipping methods are account settings: reading them needs `settings:read`, any change `settings:update`.
    ...collectionRoutes({
      family: 'shipping',
      path: '/api/v1/shipping_methods',
      id: 'shipping_method_id',
      access: { list: allow('settings', 'read'), create: allow('settings', 'update'), read: allow('settings', 'read'), update: allow('settings', 'update'), delete: allow('settings', 'update') },
      // Creating one answers 201 with its Location although the permission is settings:update.
    }).map((route) => (route.method === 'POST' && !route.path.endsWith('}') ? { ...route, created: true as const } : route)),
  ],
  declarations: [shippingMethodDeclaration],
});
