/**
 * The customers module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allowCrud, allowOrReach, collectionRoutes } from '../../http/routes';
import { customerDeclaration } from './customers';

export const customersModule = defineModule({
  name: 'customers',
  families: {
    customers: {
      entry: 'handlers/http/customers.ts',
      memoryMb: 256,
      description: 'Customers: /customers',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
    },
  },
  routes: [
    // Limited tokens that reach a customer may read and update it.
    ...collectionRoutes({
      family: 'customers',
      path: '/api/v1/customers',
      id: 'customer_id',
      access: { ...allowCrud('customers'), read: allowOrReach('customers', 'read'), update: allowOrReach('customers', 'update') },
    }),
    { method: 'POST', path: '/api/v1/customers/login', family: 'customers', access: { kind: 'public' } },
    { method: 'GET', path: '/api/v1/customers/me', family: 'customers', access: { kind: 'any-token' } },
    { method: 'POST', path: '/api/v1/customers/me', family: 'customers', access: { kind: 'any-token' } },
  ],
  declarations: [customerDeclaration],
});
