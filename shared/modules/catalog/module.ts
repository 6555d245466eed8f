/**
 * The catalog module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow } from '../../http/routes';
import { productDeclaration } from './products';

export const catalogModule = defineModule({
  name: 'catalog',
  families: {
    catalog: {
      entry: 'handlers/http/catalog.ts',
      memoryMb: 256,
      description: 'Products: /products',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: ['event-notifications'] },
    },
  },
  routes: [
    { method: 'GET', path: '/api/v1/products', family: 'catalog', access: allow('products', 'read') },
    { method: 'POST', path: '/api/v1/products', family: 'catalog', access: allow('products', 'create') },
    { method: 'GET', path: '/api/v1/products/{product_id}', family: 'catalog', access: allow('products', 'read') },
    { method: 'POST', path: '/api/v1/products/{product_id}', family: 'catalog', access: allow('products', 'update') },
    { method: 'DELETE', path: '/api/v1/products/{product_id}', family: 'catalog', access: allow('products', 'delete') },
  ],
  declarations: [productDeclaration],
});
