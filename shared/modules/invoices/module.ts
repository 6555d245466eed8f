/**
 * The invoices module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route family it owns, its routes and the resources it declares. Its family serves the
 * invoice's payments too (`/invoices/{id}/payments`, as the shipments family serves
 * `/orders/{id}/shipments`): paying an invoice charges a card and makes its order, so the family
 * gets what the payments family has (the notifications and license queues, email).
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach, collectionRoutes } from '../../http/routes';
import { invoiceDeclaration, invoiceItemDeclaration } from './declaration';

export const invoicesModule = defineModule({
  name: 'invoices',
  families: {
    invoices: {
      entry: 'handlers/http/invoices.ts',
      memoryMb: 512,
      description: 'Invoices and their payments: /invoices, /invoices/{id}/payments',
      // Publishing emails the invoice; paying it hands the order's events and license requests to their queues.
      grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: true, sendsTo: ['event-notifications', 'license-requests'] },
    },
  },
  routes: [
    ...collectionRoutes({
      family: 'invoices',
      path: '/api/v1/invoices',
      id: 'invoice_id',
      access: { list: allow('invoices', 'read'), create: allow('invoices', 'create'), read: allowOrReach('invoices', 'read'), update: allowOrReach('invoices', 'update'), delete: allow('invoices', 'delete') },
    }),
    { method: 'POST', path: '/api/v1/invoices/{invoice_id}/publish', family: 'invoices', access: allow('invoices', 'update') },
    { method: 'POST', path: '/api/v1/invoices/{invoice_id}/cancel', family: 'invoices', access: allow('invoices', 'update') },
    { method: 'POST', path: '/api/v1/invoices/{invoice_id}/links', family: 'invoices', access: allow('invoices', 'update'), created: true },
    // A pay link's token and customer scope pay the invoices they reach (commerce.md §0.1).
    { method: 'POST', path: '/api/v1/invoices/{invoice_id}/payments', family: 'invoices', access: allowOrReach('payments', 'create') },
    { method: 'GET', path: '/api/v1/invoices/{invoice_id}/payments', family: 'invoices', access: allowOrReach('payments', 'read') },
    // Customer scope reads its own invoices (commerce.md §6.1).
    { method: 'GET', path: '/api/v1/customers/{customer_id}/invoices', family: 'invoices', access: allowOrReach('invoices', 'read') },
  ],
  declarations: [invoiceDeclaration, invoiceItemDeclaration],
});
