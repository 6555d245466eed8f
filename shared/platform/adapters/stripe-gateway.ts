/**
 * The Stripe adapter of the payment gateway port (commerce.md §4.7): one account's own Stripe
 * connection, through the official `stripe` SDK (its types are the request and response
 * shapes). One PaymentIntent per payment, created and confirmed in one call under the
 * idempotency key `cartwheel-<payment_id>`; a refund under `cartwheel-<refund_id>`. Every
 * Stripe answer becomes one of the port's outcomes (the §4.7 table); the adapter never throws
 * for a card's fate, only when Stripe cannot be reached for a refund or a key check.
 *
 * The SDK reaches the API address the composition gives (`https://api.stripe.com` in the
 * cloud, `CARTWHEEL_STRIPE_API_BASE` locally, a stand-in in tests) through its host, port and
 * protocol options. Card numbers pass through to Stripe as `payment_method_data` only when the
 * caller sends a raw card, and are never kept or logged here.
 */
import Stripe from 'stripe';
import type {
  ChargeLookup,
  ChargeOutcome,
  ChargeRequest,
  ChargeResponseData,
  ChargeResult,
  RefundRequest,
  RefundResult,
  SaveCardRequest,
  SaveCardResult,
  StripeConnection,
  StripeGateways,
  StripeWebhookEvent,
} from '../ports';
import { stripeMinorAmount } from './stripe-amounts';

/** How long a Stripe call may take before the payment is left to the lookup (commerce.md §4.7: 20 s). */
export const STRIPE_TIMEOUT_MS = 20_000;

/** The signature tolerance of webhooks (seconds). */
export const STRIPE_WEBHOOK_TOLERANCE_S = 300;

/** Where the SDK sends its calls, and how long it waits. */
export interface StripeApiOptions {
  /** `https://api.stripe.com`, or a stand-in such as `http://127.0.0.1:12111`. */
  apiBase: string;
  /** Default `STRIPE_TIMEOUT_MS`. */
  timeoutMs?: number;
}

/** The idempotency key Stripe sees for a platform key `<account>#<mode>#<id>`: `cartwheel-<id>`. */
export function stripeIdempotencyKey(key: string): string {
  return `cartwheel-${key.slice(key.lastIndexOf('#') + 1)}`;
}

/** The SDK's address options from an API base URL. */
function addressOf(apiBase: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: Number(url.port || (protocol === 'http' ? 80 : 443)), protocol };
}

/** The Stripe connections at one API address; clients are kept per secret key (their sockets are reused). */
export function stripeGateways(options: StripeApiOptions): StripeGateways {
  const address = addressOf(options.apiBase);
  const timeout = options.timeoutMs ?? STRIPE_TIMEOUT_MS;
  const clients = new Map<string, Stripe>();
  const clientOf = (secretKey: string): Stripe => {
    let client = clients.get(secretKey);
    if (!client) {
      // Retries are the adapter's: one after a 5xx or rate limit, none after a timeout (§4.7).
      client = new Stripe(secretKey, { ...address, timeout, maxNetworkRetries: 0, telemetry: false });
      clients.set(secretKey, client);
      if (clients.size > 1000) clients.delete(clients.keys().next().value!);
    }
    return client;
  };
  // Verifying a signature needs no key; any client's `webhooks` is the SDK's verifier.
  const verifier = new Stripe('sk_verify_only', { ...address, telemetry: false });
  return {
    connect: (secretKey) => stripeConnection(clientOf(secretKey)),
    verifyEvent(payload, signature, webhookSecret): StripeWebhookEvent {
      const event = verifier.webhooks.constructEvent(payload, signature ?? '', webhookSecret, STRIPE_WEBHOOK_TOLERANCE_S);
      const object = event.data.object as unknown as Record<string, unknown>;
      const intentId = event.type.startsWith('payment_intent.') ? String(object.id) : typeof object.payment_intent === 'string' ? object.payment_intent : null;
      return { id: event.id, type: event.type, paymentIntentId: intentId, metadata: (object.metadata ?? {}) as Record<string, string> };
    },
  };
}

/** The failures that are Stripe's or the network's, retried once (§4.7: 5xx, `api_error`, `rate_limit`). */
function retryable(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeAPIError || error instanceof Stripe.errors.StripeRateLimitError || (error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500);
}

/** Whether Stripe did not answer in time (the SDK's timeout). */
function timedOut(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeConnectionError && /timeout/i.test(error.message);
}

/** A port result. */
function result(outcome: ChargeOutcome, message: string | null, transactionId: string | null = null, data: Partial<ChargeResponseData> = {}): ChargeResult {
  return { outcome, transactionId, responseData: { authorization_code: null, avs_match: null, cvv_match: null, message, ...data } };
}

/** A card-check answer (`pass`, `fail`, `unavailable`, `unchecked`) as a match flag. */
function check(value: string | null | undefined): boolean | null {
  return value === 'pass' ? true : value === 'fail' ? false : null;
}

/** The outcome of a card error code (§4.7). */
function declineOutcome(code: string | null | undefined): ChargeOutcome {
  if (code === 'incorrect_cvc' || code === 'invalid_cvc') return 'invalid_cvv';
  if (code === 'incorrect_zip') return 'invalid_avs';
  return 'declined';
}

/** A PaymentIntent (with `latest_charge` expanded when there is one) as the port's result. */
export function intentResult(intent: Stripe.PaymentIntent): ChargeResult {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const card = charge?.payment_method_details?.card;
  const base = (outcome: ChargeOutcome, message: string | null, data: Partial<ChargeResponseData> = {}): ChargeResult => ({
    ...result(outcome, message, intent.id, data),
    ...(card ? { card: { brand: card.brand ?? null, last4: card.last4 ?? '', expMonth: card.exp_month, expYear: card.exp_year } } : {}),
  });
  switch (intent.status) {
    case 'succeeded': {
      const method = typeof intent.payment_method === 'string' ? intent.payment_method : intent.payment_method?.id;
      const customer = typeof intent.customer === 'string' ? intent.customer : intent.customer?.id;
      return {
        ...base('approved', 'Approved.', {
          authorization_code: card?.authorization_code ?? null,
          cvv_match: check(card?.checks?.cvc_check),
          avs_match: check(card?.checks?.address_postal_code_check),
        }),
        ...(intent.setup_future_usage && method && customer ? { saved: { customer, method } } : {}),
      };
    }
    case 'requires_action': {
      const redirect = intent.next_action?.redirect_to_url?.url;
      return base('action_required', 'The card needs authentication (3-D Secure).', { client_secret: intent.client_secret ?? undefined, ...(redirect ? { redirect_url: redirect } : {}) });
    }
    case 'processing':
    case 'requires_capture':
      return base('processing', 'The payment is processing.');
    case 'canceled':
      return base('declined', 'The payment was cancelled.');
    default: {
      const error = intent.last_payment_error;
      return base(declineOutcome(error?.decline_code === 'incorrect_cvc' ? 'incorrect_cvc' : error?.code), error?.message ?? 'The card was declined.');
    }
  }
}

/** The PaymentIntent create parameters of a charge (§4.7). */
export function intentParams(request: ChargeRequest, customer: string | undefined): Stripe.PaymentIntentCreateParams {
  const amount = stripeMinorAmount(request.amount, request.currency);
  if (amount === undefined) throw new Error(`Stripe cannot represent ${request.amount} ${request.currency}; the checkout checks this before charging.`);
  const params: Stripe.PaymentIntentCreateParams = {
    amount,
    currency: request.currency.toLowerCase(),
    confirm: true,
    capture_method: 'automatic',
    // Cards only, confirmed here: no redirect-based methods that would need a return_url.
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    metadata: request.metadata ?? {},
    expand: ['latest_charge'],
  };
  const { card } = request;
  if (card.kind === 'token') params.payment_method = card.token;
  else if (card.kind === 'saved') {
    if (!card.gateway) throw new Error('A saved card without Stripe references cannot be charged through Stripe.');
    params.payment_method = card.gateway.method;
    params.customer = card.gateway.customer;
  } else {
    const address = card.billingAddress;
    const postalCode = (address?.postal_code as string | null | undefined) ?? request.billingPostalCode;
    // The Stripe types name raw card fields only on the tokens API; the PaymentIntents API takes them for accounts Stripe allows.
    params.payment_method_data = {
      type: 'card',
      card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvv },
      billing_details: { ...(card.cardholderName ? { name: card.cardholderName } : {}), ...(postalCode ? { address: { postal_code: postalCode } } : {}) },
    } as unknown as Stripe.PaymentIntentCreateParams.PaymentMethodData;
  }
  if (customer) params.customer = customer;
  if (request.saveCard) params.setup_future_usage = 'off_session';
  if (request.offSession) params.off_session = true;
  return params;
}

/**
 * The SetupIntent parameters that keep a card for later off-session charges (Stripe's "save a
 * card" flow: confirmed now, `usage: off_session`, cards only, the PaymentMethod expanded for
 * its brand, last four and expiry).
 */
export function setupParams(request: SaveCardRequest, customer: string): Stripe.SetupIntentCreateParams {
  const params: Stripe.SetupIntentCreateParams = {
    customer,
    confirm: true,
    usage: 'off_session',
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    metadata: request.metadata,
    expand: ['payment_method'],
  };
  const { card } = request;
  if (card.kind === 'token') params.payment_method = card.token;
  else {
    const postalCode = (card.billingAddress?.postal_code as string | null | undefined) ?? request.billingPostalCode;
    // As for PaymentIntents: raw card fields only for accounts Stripe allows (the types name them on the tokens API only).
    params.payment_method_data = {
      type: 'card',
      card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvv },
      billing_details: { ...(card.cardholderName ? { name: card.cardholderName } : {}), ...(postalCode ? { address: { postal_code: postalCode } } : {}) },
    } as unknown as Stripe.SetupIntentCreateParams.PaymentMethodData;
  }
  return params;
}

/** The adapter of one connection (`client` carries its secret key). */
function stripeConnection(client: Stripe): StripeConnection {
  /** Runs a create call once more after a retryable failure, under the same idempotency key. */
  const withRetry = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (!retryable(error)) throw error;
      return call();
    }
  };

  /** Finds the PaymentIntent of a payment by its metadata (after a lost answer, when no id or replay is possible). */
  const searchIntent = async (paymentId: string): Promise<Stripe.PaymentIntent | undefined> => {
    const found = await client.paymentIntents.search({ query: `metadata['payment_id']:'${paymentId}'`, limit: 1 });
    const intent = found.data[0];
    return intent ? client.paymentIntents.retrieve(intent.id, { expand: ['latest_charge'] }) : undefined;
  };

  /** The Stripe customer of a card being saved: one per payment key (a repeated charge finds the same one). */
  const customerFor = async (request: ChargeRequest, key: string): Promise<string | undefined> => {
    if (!request.saveCard || request.card.kind === 'saved') return undefined;
    const customer = await withRetry(() => client.customers.create(
      { ...(request.saveCard!.email ? { email: request.saveCard!.email } : {}), ...(request.saveCard!.name ? { name: request.saveCard!.name } : {}), metadata: request.metadata ?? {} },
      { idempotencyKey: `${stripeIdempotencyKey(key)}-customer` },
    ));
    return customer.id;
  };

  /** Creates and confirms the PaymentIntent under `key`; every Stripe answer is an outcome. */
  const create = async (request: ChargeRequest, key: string): Promise<ChargeResult> => {
    try {
      const customer = await customerFor(request, key);
      const intent = await withRetry(() => client.paymentIntents.create(intentParams(request, customer), { idempotencyKey: stripeIdempotencyKey(key) }));
      return intentResult(intent);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError) {
        const intentId = (error.payment_intent as { id?: string } | undefined)?.id ?? null;
        return result(declineOutcome(error.decline_code === 'incorrect_cvc' ? 'incorrect_cvc' : error.code), error.message, intentId);
      }
      if (timedOut(error)) return result('no_answer', 'Stripe did not answer in time.');
      if (retryable(error) || error instanceof Stripe.errors.StripeConnectionError) {
        // §4.7: failed unless the lookup finds it charged.
        const paymentId = request.metadata?.payment_id;
        const found = paymentId ? await searchIntent(paymentId).catch(() => undefined) : undefined;
        return found ? intentResult(found) : result('error', 'Stripe returned an error.');
      }
      if (error instanceof Stripe.errors.StripeError) {
        // A refused request (an unknown or used-up PaymentMethod, a revoked key): the card is not charged.
        return result(error instanceof Stripe.errors.StripeInvalidRequestError ? 'declined' : 'error', error.message);
      }
      throw error;
    }
  };

  /** What Stripe says of a charge now: by id, by repeating the create call, or by searching. */
  const lookup = async (key: string, known: ChargeLookup = {}): Promise<ChargeResult | undefined> => {
    if (known.transactionId) {
      try {
        return intentResult(await client.paymentIntents.retrieve(known.transactionId, { expand: ['latest_charge'] }));
      } catch (error) {
        if (timedOut(error) || retryable(error) || error instanceof Stripe.errors.StripeConnectionError) return result('no_answer', 'Stripe did not answer.');
        throw error;
      }
    }
    if (known.request && known.request.card.kind !== 'new') return create(known.request, key);
    const paymentId = key.slice(key.lastIndexOf('#') + 1);
    try {
      const found = await searchIntent(paymentId);
      return found ? intentResult(found) : undefined;
    } catch (error) {
      if (timedOut(error) || retryable(error) || error instanceof Stripe.errors.StripeConnectionError) return result('no_answer', 'Stripe did not answer.');
      throw error;
    }
  };

  return {
    async charge(request): Promise<ChargeResult> {
      if (!request.key) throw new Error('Stripe charges always carry the payment key.');
      return create(request, request.key);
    },
    lookup,
    /**
     * Stripe keeps no key to close: the charge is settled by asking again (§4.7), which for a
     * token or saved card repeats the create call (its first answer, or the charge made now).
     */
    voidKey: lookup,
    async refund(request: RefundRequest): Promise<RefundResult> {
      if (!request.chargeTransactionId) return { outcome: 'refused', refundId: null, message: 'The payment has no Stripe PaymentIntent to refund.' };
      const amount = stripeMinorAmount(request.amount, request.currency);
      if (amount === undefined) return { outcome: 'refused', refundId: null, message: `Stripe cannot represent ${request.amount} ${request.currency}.` };
      const refundId = request.key.slice(request.key.lastIndexOf('#') + 1);
      try {
        const refund = await withRetry(() => client.refunds.create(
          { payment_intent: request.chargeTransactionId!, amount, metadata: { refund_id: refundId } },
          { idempotencyKey: stripeIdempotencyKey(request.key) },
        ));
        const done = refund.status === 'succeeded' || refund.status === 'pending';
        return { outcome: done ? 'refunded' : 'refused', refundId: refund.id, message: done ? 'Refunded.' : `Stripe answered ${refund.status}.` };
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError || error instanceof Stripe.errors.StripeCardError) {
          return { outcome: 'refused', refundId: null, message: error.message };
        }
        throw error;
      }
    },
    async lookupRefund(): Promise<RefundResult | undefined> {
      // Stripe refunds are settled by repeating them under their key (refund recovery does).
      return undefined;
    },
    async cancel(transactionId: string): Promise<ChargeResult> {
      try {
        return intentResult(await client.paymentIntents.cancel(transactionId, { cancellation_reason: 'abandoned' }));
      } catch (error) {
        // Already succeeded (or otherwise final): what it is now decides.
        if (error instanceof Stripe.errors.StripeInvalidRequestError) return intentResult(await client.paymentIntents.retrieve(transactionId, { expand: ['latest_charge'] }));
        throw error;
      }
    },
    async saveCard(request: SaveCardRequest): Promise<SaveCardResult> {
      const key = stripeIdempotencyKey(request.key);
      let customer: string;
      try {
        customer = request.customer ?? (await withRetry(() => client.customers.create(
          { ...(request.details.email ? { email: request.details.email } : {}), ...(request.details.name ? { name: request.details.name } : {}), metadata: request.metadata },
          { idempotencyKey: `${key}-customer` },
        ))).id;
      } catch (error) {
        if (timedOut(error)) return { outcome: 'no_answer', message: 'Stripe did not answer in time.', customer: null };
        if (retryable(error) || error instanceof Stripe.errors.StripeConnectionError) return { outcome: 'error', message: 'Stripe returned an error.', customer: null };
        throw error;
      }
      const refused = (outcome: SaveCardResult['outcome'], message: string | null): SaveCardResult => ({ outcome, message, customer });
      try {
        const intent = await withRetry(() => client.setupIntents.create(setupParams(request, customer), { idempotencyKey: key }));
        const method = typeof intent.payment_method === 'object' ? intent.payment_method : null;
        if (intent.status !== 'succeeded' || !method) {
          if (intent.status === 'requires_action') return refused('action_required', 'The card needs authentication (3-D Secure), which saving it without the cardholder cannot give.');
          const error = intent.last_setup_error;
          return refused(declineOutcome(error?.decline_code === 'incorrect_cvc' ? 'incorrect_cvc' : error?.code), error?.message ?? `Stripe answered ${intent.status}.`);
        }
        const card = method.card;
        return {
          outcome: 'approved',
          message: 'Saved.',
          customer,
          saved: { customer, method: method.id },
          ...(card ? { card: { brand: card.brand ?? null, last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year } } : {}),
        };
      } catch (error) {
        if (error instanceof Stripe.errors.StripeCardError) return refused(declineOutcome(error.decline_code === 'incorrect_cvc' ? 'incorrect_cvc' : error.code), error.message);
        if (timedOut(error)) return refused('no_answer', 'Stripe did not answer in time.');
        if (retryable(error) || error instanceof Stripe.errors.StripeConnectionError) return refused('error', 'Stripe returned an error.');
        if (error instanceof Stripe.errors.StripeInvalidRequestError) return refused('declined', error.message);
        throw error;
      }
    },
    async checkKey(): Promise<boolean> {
      try {
        await client.balance.retrieve();
        return true;
      } catch (error) {
        if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) return false;
        throw error;
      }
    },
  };
}
