/**
 * The payment-methods module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allowOrReach } from '../../http/routes';
import { paymentMethodDeclaration } from './payment-methods';

export const paymentMethodsModule = defineModule({
  name: 'payment-methods',
  families: {
  },
  routes: [
    { method: 'GET', path: '/api/v1/customers/{customer_id}/payment_methods', family: 'customers', access: allowOrReach('customers', 'read') },
    { method: 'POST', path: '/api/v1/customers/{customer_id}/payment_methods', family: 'customers', access: allowOrReach('customers', 'create') },
    { method: 'GET', path: '/api/v1/customers/{customer_id}/payment_methods/{payment_method_id}', family: 'customers', access: allowOrReach('customers', 'read') },
    { method: 'POST', path: '/api/v1/customers/{customer_id}/payment_methods/{payment_method_id}', family: 'customers', access: allowOrReach('customers', 'update') },
    { method: 'DELETE', path: '/api/v1/customers/{customer_id}/payment_methods/{payment_method_id}', family: 'customers', access: allowOrReach('customers', 'delete') },
  ],
  declarations: [paymentMethodDeclaration],
});
