/** Lambda entry point of the `invoices` route family (commerce.md §9): invoices and their payments. */
import { cancelInvoiceAction, createInvoiceAction, createInvoiceLinkAction, deleteInvoiceAction, getInvoiceAction, listCustomerInvoicesAction, listInvoicesAction, publishInvoiceAction, updateInvoiceAction } from '../../shared/modules/invoices/actions';
import { listInvoicePaymentsAction, payInvoiceAction } from '../../shared/flows/checkout/invoice-payment-actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('invoices', {
  'GET /api/v1/invoices': listInvoicesAction,
  'POST /api/v1/invoices': createInvoiceAction,
  'GET /api/v1/invoices/{invoice_id}': getInvoiceAction,
  'POST /api/v1/invoices/{invoice_id}': updateInvoiceAction,
  'DELETE /api/v1/invoices/{invoice_id}': deleteInvoiceAction,
  'POST /api/v1/invoices/{invoice_id}/publish': publishInvoiceAction,
  'POST /api/v1/invoices/{invoice_id}/cancel': cancelInvoiceAction,
  'POST /api/v1/invoices/{invoice_id}/links': createInvoiceLinkAction,
  'POST /api/v1/invoices/{invoice_id}/payments': payInvoiceAction,
  'GET /api/v1/invoices/{invoice_id}/payments': listInvoicePaymentsAction,
  'GET /api/v1/customers/{customer_id}/invoices': listCustomerInvoicesAction,
});

export const handler = lambdaHandler(family);
