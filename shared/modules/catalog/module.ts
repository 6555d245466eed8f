/**
 * The catalog module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allowCrud, collectionRoutes } from '../../http/routes';
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
    ...collectionRoutes({ family: 'catalog', path: '/api/v1/products', id: 'product_id', access: allowCrud('products') }),
  ],
  declarations: [productDeclaration],
});
