/** The printable receipt of `GET /orders/{order_id}` and invoice of `GET /invoices/{invoice_id}` with `Accept: application/pdf` (conventions.md §4), as actions. */
import { pdfResult } from '../../http/accept';
import type { ApiContext, ApiResult } from '../../http/types';
import { readGeneralSettingsCached } from '../../modules/accounts';
import { invoiceDeclaration, invoiceDocumentOf } from '../../modules/invoices';
import { orderDeclaration } from '../../modules/orders';
import { paymentsOfInvoice } from '../../modules/payments';
import { actionScope } from '../../rest/action-scope';
import { resolveLocale } from '../../rest/formatted';
import { readReachable } from '../../rest/reach';
import { orderReceiptDocument, readOrderReceipt } from './order-receipt';
import { invoiceDocument } from './invoice-document';
import { renderDocumentPdf, renderInvoicePdf } from './pdf';

/**
 * The order of the path as a PDF receipt, read exactly as the JSON read reads it (the caller's
 * reach: a limited token's paid sale, customer scope's own orders; 404 otherwise). Money, numbers
 * and dates follow the `formatted` locale rule (conventions.md §14: `user_locale`, else
 * `Accept-Language`, else the account's) and the zone in effect.
 */
export async function orderReceiptAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const order = await readReachable(orderDeclaration, scope, context.params.order_id!, principal);
  const locale = localeOf(context, render.locale);
  const facts = await readOrderReceipt(scope, order, { locale, zone: render.zone });
  return pdfResult(await renderDocumentPdf(orderReceiptDocument(facts)), `receipt-${order.order_id}.pdf`);
}

/**
 * The invoice of the path as a PDF (`GET /invoices/{invoice_id}` with `Accept: application/pdf`,
 * commerce.md §9): read as the JSON read reads it (a pay link's token reaches its own invoice,
 * customer scope its customer's; 404 otherwise), with the completed payments so far and what
 * remains, in the same locale and zone rules as a receipt.
 */
export async function invoicePdfAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const invoice = await readReachable(invoiceDeclaration, scope, context.params.invoice_id!, principal);
  const locale = localeOf(context, render.locale);
  const [paid, seller] = await Promise.all([paymentsOfInvoice(scope, invoice.invoice_id), readGeneralSettingsCached(scope.accountId)]);
  const payments = paid
    .filter((payment) => payment.status === 'completed')
    .map((payment) => ({ payment_id: payment.payment_id, date_created_ms: payment.created_ms, total: payment.total, method_label: payment.payment_method?.data.label ?? null }));
  const document = invoiceDocument(invoiceDocumentOf(invoice), payments, seller, { locale, zone: render.zone });
  return pdfResult(await renderInvoicePdf(document), `invoice-${invoice.invoice_id}.pdf`);
}

/** The `formatted` locale rule (conventions.md §14): `user_locale`, else `Accept-Language`, else the account's. */
function localeOf(context: ApiContext, accountDefault: string): string {
  return resolveLocale({
    ...(context.query.user_locale ? { userLocale: context.query.user_locale } : {}),
    ...(context.headers['accept-language'] ? { acceptLanguage: context.headers['accept-language'] } : {}),
    accountDefault,
  });
}
