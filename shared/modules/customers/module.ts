/**
 * The customers module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach } from '../../http/routes';
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
    { method: 'GET', path: '/api/v1/customers', family: 'customers', access: allow('customers', 'read') },
    { method: 'POST', path: '/api/v1/customers', family: 'customers', access: allow('customers', 'create') },
    { method: 'POST', path: '/api/v1/customers/login', family: 'customers', access: { kind: 'public' } },
    { method: 'GET', path: '/api/v1/customers/me', family: 'customers', access: { kind: 'any-token' } },
    { method: 'POST', path: '/api/v1/customers/me', family: 'customers', access: { kind: 'any-token' } },
    { method: 'GET', path: '/api/v1/customers/{customer_id}', family: 'customers', access: allowOrReach('customers', 'read') },
    { method: 'POST', path: '/api/v1/customers/{customer_id}', family: 'customers', access: allowOrReach('customers', 'update') },
    { method: 'DELETE', path: '/api/v1/customers/{customer_id}', family: 'customers', access: allow('customers', 'delete') },
  ],
  declarations: [customerDeclaration],
});
