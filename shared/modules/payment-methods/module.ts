/**
 * The payment-methods module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allowOrReach, collectionRoutes } from '../../http/routes';
import { paymentMethodDeclaration } from './payment-methods';

export const paymentMethodsModule = defineModule({
  name: 'payment-methods',
  families: {
  },
  routes: [
    ...collectionRoutes({
      family: 'customers',
      path: '/api/v1/customers/{customer_id}/payment_methods',
      id: 'payment_method_id',
      access: { list: allowOrReach('customers', 'read'), create: allowOrReach('customers', 'create'), read: allowOrReach('customers', 'read'), update: allowOrReach('customers', 'update'), delete: allowOrReach('customers', 'delete') },
    }),
  ],
  declarations: [paymentMethodDeclaration],
});
