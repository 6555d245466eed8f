/** The payment endpoints of an invoice (commerce.md §4.3, §9.1), as actions of the API pipeline. */
import { declareQuery, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { readReachable } from '../../rest/reach';
import { renderElements } from '../../rest/render';
import { invoiceDeclaration, invoicePath } from '../../modules/invoices';
import { cartPaymentCreate, paymentDeclaration, paymentsOfInvoice } from '../../modules/payments';
import { paymentAnswer } from './payment-actions';
import { payInvoice } from './pay-invoice';

/** `POST /invoices/{invoice_id}/payments`: charges `total_remaining` and creates the order. */
export const payInvoiceAction = withBody(cartPaymentCreate, async (context) => {
  const { render } = await actionScope(context);
  const outcome = await payInvoice(context.platform, { principal: requirePrincipal(context), invoiceId: context.params.invoice_id!, body: context.body, ipAddress: context.sourceIp });
  return paymentAnswer(outcome, render);
});

/** `GET /invoices/{invoice_id}/payments`: the invoice's payment attempts (offset list). */
export async function listInvoicePaymentsAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const invoice = await readReachable(invoiceDeclaration, scope, context.params.invoice_id!, principal);
  const page = offsetPage(context.query);
  const all = await paymentsOfInvoice(scope, invoice.invoice_id);
  const data = await renderElements(paymentDeclaration, all.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, all.length, pageUrlBuilder(render.url(`${invoicePath(invoice.invoice_id)}/payments`), context.query, 'offset')) };
}

declareQuery(listInvoicePaymentsAction, { list: 'offset' });
