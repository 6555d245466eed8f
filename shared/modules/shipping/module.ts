/**
 * The shipping module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow } from '../../http/routes';
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
    { method: 'GET', path: '/api/v1/shipping_methods', family: 'shipping', access: allow('settings', 'read') },
    { method: 'POST', path: '/api/v1/shipping_methods', family: 'shipping', access: allow('settings', 'update') },
    { method: 'GET', path: '/api/v1/shipping_methods/{shipping_method_id}', family: 'shipping', access: allow('settings', 'read') },
    { method: 'POST', path: '/api/v1/shipping_methods/{shipping_method_id}', family: 'shipping', access: allow('settings', 'update') },
    { method: 'DELETE', path: '/api/v1/shipping_methods/{shipping_method_id}', family: 'shipping', access: allow('settings', 'update') },
  ],
  declarations: [shippingMethodDeclaration],
});
