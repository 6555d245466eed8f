/**
 * Stripe's webhooks (commerce.md §4.7): `POST /gateway_events/stripe/{account_id}/{live|test}`,
 * no token. The `Stripe-Signature` header is verified over the body's bytes with that mode's
 * `webhook_secret` by the SDK's own verifier (300 s tolerance); a bad or missing signature, or a
 * mode without a connection, is 400 invalid_input and changes nothing. Each event id is taken
 * once (a replay answers 200 and changes nothing). A `payment_intent.*` event for a payment of
 * this account and mode that its paying request handed off settles it through the same
 * completion as the client's commit and the sweep (`recoverPayment`), which Stripe is asked
 * again for (the event's own body is never trusted for the outcome). Everything else (unknown
 * types, other accounts' metadata, unknown payments, `charge.refunded`, `refund.updated`: refunds
 * are settled when they are made) answers 200 and changes nothing. The answer is sent within
 * 2 seconds; a completion that takes longer is left to the payment's recovery record.
 */
import { readPaymentSettingsCached, openStripeConnection } from '../../modules/accounts';
import { InvalidInputError, NotFoundError } from '../../http/errors';
import type { ApiContext, ApiResult } from '../../http/types';
import { logger } from '../../core/logging';
import { settleWithin } from '../../core/parallel';
import type { RecordScope } from '../../store/entity';
import { payments, takeGatewayEventOnce } from '../../modules/payments';
import type { StripeWebhookEvent } from '../../platform/ports';
import { recoverPayment } from './recover-payment';

/** The event types that can settle a payment. */
const SETTLING = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled', 'payment_intent.processing', 'payment_intent.requires_action']);

/** How long the answer may wait for the completion (§4.7: answered within 2 s). */
const ANSWER_WITHIN_MS = 1_500;

/** `POST /gateway_events/stripe/{account_id}/{mode}`. */
export async function stripeEventAction(context: ApiContext): Promise<ApiResult> {
  const accountId = context.params.account_id!;
  const mode = context.params.mode!;
  if (mode !== 'live' && mode !== 'test') throw new NotFoundError('Stripe events are received at .../{account_id}/live or .../{account_id}/test.');
  const scope: RecordScope = { accountId, mode };
  const settings = await readPaymentSettingsCached(accountId);
  const connection = await openStripeConnection(accountId, mode, settings, context.platform);
  if (!connection?.webhookSecret) {
    throw new InvalidInputError(`This account has no Stripe webhook secret for ${mode} mode.`, { property: 'Stripe-Signature', reason: 'invalid' });
  }
  let event: StripeWebhookEvent;
  try {
    event = context.platform.stripe.verifyEvent(context.rawBody ?? Buffer.alloc(0), context.headers['stripe-signature'], connection.webhookSecret);
  } catch {
    throw new InvalidInputError('The Stripe-Signature header does not verify (bad or missing signature, or too old).', { property: 'Stripe-Signature', reason: 'invalid' });
  }
  const first = await takeGatewayEventOnce(scope, event.id, event.type, context.platform.clock.nowMs());
  if (first && SETTLING.has(event.type)) {
    await settleWithin(settleFromEvent(context, scope, event).catch((error: unknown) => {
      logger.error('A Stripe event could not settle its payment; recovery will', { event_id: event.id, error: error as Error });
    }), ANSWER_WITHIN_MS, undefined);
  }
  return { status: 200, body: { object: 'gateway_event', id: event.id, type: event.type, received: true, duplicate: !first } };
}

/** Settles the payment the event names, when it is this account's and was handed off. */
async function settleFromEvent(context: ApiContext, scope: RecordScope, event: StripeWebhookEvent): Promise<void> {
  const paymentId = event.metadata.payment_id;
  if (!paymentId || event.metadata.account_id !== scope.accountId) return;
  const payment = await payments.find(scope, paymentId);
  if (!payment || payment.status !== 'initiated' || payment.gateway_charge?.handed_off !== true) return;
  if (payment.gateway_transaction_id && event.paymentIntentId && payment.gateway_transaction_id !== event.paymentIntentId) return;
  await recoverPayment(context.platform, scope, paymentId);
}
