/** Lambda entry point of the `invoices` route family (commerce.md §9): invoices and their payments. */
import { cancelInvoiceAction, createInvoiceAction, createInvoiceLinkAction, deleteInvoiceAction, getInvoiceAction, listCustomerInvoicesAction, listInvoicesAction, publishInvoiceAction, updateInvoiceAction } from '../../shared/modules/invoices/actions';
import { listInvoicePaymentsAction, payInvoiceAction } from '../../shared/flows/checkout/invoice-payment-actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import { withPrintable } from '../../shared/http/accept';
import { invoicePdfAction } from '../../shared/flows/receipts/receipt-actions';

export const family = defineFamily('invoices', {
  'GET /api/v1/invoices': listInvoicesAction,
  'POST /api/v1/invoices': createInvoiceAction,
  // JSON, or the printable invoice when the request prefers application/pdf (conventions.md §4).
  'GET /api/v1/invoices/{invoice_id}': withPrintable(getInvoiceAction, invoicePdfAction),
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
