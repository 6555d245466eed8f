/** The refund endpoints that move money (commerce.md §7), as actions of the API pipeline. */
import { requirePrincipal, withBody, type ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { renderResource } from '../../rest/render';
import type { RenderContext } from '../../rest/render-context';
import { refundCreate, refundDeclaration, TransactionFailureError } from '../../modules/refunds';
import { refundPayment, type RefundOutcome } from './refund-payment';

/** 201 with the refund and its Location, or 402 `transaction_failure` carrying the failed refund in `meta.refund`. */
async function refundAnswer(outcome: RefundOutcome, render: RenderContext): Promise<ApiResult> {
  const body = await renderResource(refundDeclaration, outcome.refund, render);
  if (outcome.status === 'failed') throw new TransactionFailureError({ refund: body });
  return { status: 201, body, location: render.url(`refunds/${outcome.refund.refund_id}`) };
}

/** `POST /orders/{order_id}/refunds`: by items, by amount, or full. */
export const refundOrderAction = withBody(refundCreate, async (context) => {
  const { render } = await actionScope(context);
  const outcome = await refundPayment(context.platform, { principal: requirePrincipal(context), target: { orderId: context.params.order_id! }, body: context.body });
  return refundAnswer(outcome, render);
});

/** `POST /payments/{payment_id}/refunds`: by amount, or full (the refund path of direct payments). */
export const refundPaymentAction = withBody(refundCreate, async (context) => {
  const { render } = await actionScope(context);
  const outcome = await refundPayment(context.platform, { principal: requirePrincipal(context), target: { paymentId: context.params.payment_id! }, body: context.body });
  return refundAnswer(outcome, render);
});
