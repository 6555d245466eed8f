/**
 * The one list of module manifests (architecture.md "Top-level layout"). What the app derives
 * from it: the route table and families (./routes.ts), the resource registry (./resources.ts),
 * the work queues (./queues.ts) and the API description's families (handlers/http/openapi.ts).
 * A module joins the platform by adding its manifest here.
 */
import { accountsModule } from '../modules/accounts/module';
import { identityModule } from '../modules/identity/module';
import { catalogModule } from '../modules/catalog/module';
import { imagesModule } from '../modules/images/module';
import { customersModule } from '../modules/customers/module';
import { paymentMethodsModule } from '../modules/payment-methods/module';
import { cartsModule } from '../modules/carts/module';
import { paymentsModule } from '../modules/payments/module';
import { ordersModule } from '../modules/orders/module';
import { refundsModule } from '../modules/refunds/module';
import { promotionsModule } from '../modules/promotions/module';
import { shippingModule } from '../modules/shipping/module';
import { eventsModule } from '../modules/events/module';
import { licensesModule } from '../modules/licenses/module';
import { hostingModule } from '../modules/hosting/module';
import { functionsModule } from '../modules/functions/module';
import { shipmentsModule } from '../modules/shipments/module';
import { subscriptionsModule } from '../modules/subscriptions/module';
import { reportsModule } from '../modules/reports/module';
import { invoicesModule } from '../modules/invoices/module';

export { accountsModule, identityModule, catalogModule, imagesModule, customersModule, paymentMethodsModule, cartsModule, paymentsModule, ordersModule, refundsModule, promotionsModule, shippingModule, eventsModule, licensesModule, hostingModule, functionsModule, shipmentsModule, subscriptionsModule, reportsModule, invoicesModule };

/** Every module of the platform. */
export const modules = [accountsModule, identityModule, catalogModule, imagesModule, customersModule, paymentMethodsModule, cartsModule, paymentsModule, ordersModule, refundsModule, promotionsModule, shippingModule, eventsModule, licensesModule, hostingModule, functionsModule, shipmentsModule, subscriptionsModule, reportsModule, invoicesModule] as const;
