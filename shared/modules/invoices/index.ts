/** The invoices module's one door: what other modules, flows and the app may use of it. */
export { invoiceDeclaration, invoiceItemDeclaration, invoicePath, totalRemaining } from './declaration';
export { InvoiceLockedError, InvoiceStateError } from './errors';
export { invoiceEmailWork, renderInvoiceEmail, sendInvoiceEmail } from './invoice-email';
export {
  closeInvoiceEntry,
  invoiceLockEntry,
  invoiceLockHeld,
  invoicePaidForOrder,
  invoices,
  invoicesOfCustomer,
  releaseInvoiceLockEntry,
} from './invoice-store';
export { mintInvoiceLink, linkUrlOf, type InvoiceLink } from './links';
export { invoiceDocumentOf, readInvoiceDocument, type InvoiceDocument, type InvoiceDocumentLine } from './reads';
export { invoiceState, type InvoiceItemRecord, type InvoiceRecord, type InvoiceState } from './records';
