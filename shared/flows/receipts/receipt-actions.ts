/** The printable receipt of `GET /orders/{order_id}` with `Accept: application/pdf` (conventions.md §4), as an action. */
import { pdfResult } from '../../http/accept';
import type { ApiContext, ApiResult } from '../../http/types';
import { orderDeclaration } from '../../modules/orders';
import { actionScope } from '../../rest/action-scope';
import { resolveLocale } from '../../rest/formatted';
import { readReachable } from '../../rest/reach';
import { orderReceiptDocument, readOrderReceipt } from './order-receipt';
import { renderDocumentPdf } from './pdf';

/**
 * The order of the path as a PDF receipt, read exactly as the JSON read reads it (the caller's
 * reach: a limited token's paid sale, customer scope's own orders; 404 otherwise). Money, numbers
 * and dates follow the `formatted` locale rule (conventions.md §14: `user_locale`, else
 * `Accept-Language`, else the account's) and the zone in effect.
 */
export async function orderReceiptAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const order = await readReachable(orderDeclaration, scope, context.params.order_id!, principal);
  const locale = resolveLocale({
    ...(context.query.user_locale ? { userLocale: context.query.user_locale } : {}),
    ...(context.headers['accept-language'] ? { acceptLanguage: context.headers['accept-language'] } : {}),
    accountDefault: render.locale,
  });
  const facts = await readOrderReceipt(scope, order, { locale, zone: render.zone });
  return pdfResult(await renderDocumentPdf(orderReceiptDocument(facts)), `receipt-${order.order_id}.pdf`);
}
