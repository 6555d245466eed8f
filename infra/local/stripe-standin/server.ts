/**
 * A Stripe stand-in for tests and the local runtime (never in a Lambda bundle): a small HTTP
 * server that the `stripe` SDK reaches through its host, port and protocol options
 * (`CARTWHEEL_STRIPE_API_BASE`). It checks every request against Stripe's published OpenAPI
 * description (./openapi.ts; an invalid one is answered 400 and recorded in `invalid`, which
 * tests assert is empty), keeps one in-memory Stripe account per secret key, answers
 * PaymentIntents, customers, refunds, balance, webhook endpoints and search with Stripe's
 * documented test cards and failure modes, and sends signed webhooks.
 *
 * Test cards (tokens, or raw numbers sent as `payment_method_data[card]`):
 *   pm_card_visa / 4242424242424242, pm_card_mastercard / 5555555555554444 → succeeded
 *   pm_card_chargeDeclined / 4000000000000002 → card_declined (generic_decline)
 *   pm_card_chargeDeclinedInsufficientFunds / 4000000000009995 → card_declined (insufficient_funds)
 *   pm_card_chargeDeclinedIncorrectCvc / 4000000000000127 → incorrect_cvc
 *   pm_card_avsZipFail / 4000000000000036 → incorrect_zip (as when a Radar rule blocks a failed zip check)
 *   pm_card_chargeDeclinedProcessingError / 4000000000000119 → processing_error
 *   pm_card_authenticationRequired, pm_card_threeDSecure2Required / 4000002760003184 → requires_action
 * Off-session (`off_session: true`, renewals), as Stripe documents: a card that needs 3-D Secure
 * (pm_card_authenticationRequired, 4000002760003184, …) is not left `requires_action` but
 * declined with `authentication_required` (402, the PaymentIntent `requires_payment_method`);
 * every other card does what it does on-session.
 * Stand-in failure modes (not Stripe's): pm_card_standin_processing → processing;
 * pm_card_standin_api_error → 500 api_error (nothing created); pm_card_standin_rate_limit →
 * 429; pm_card_standin_hang → the PaymentIntent is made (and succeeds) but the answer never comes;
 * pm_card_standin_action_off_session → `requires_action` even off-session (what a client must
 * still handle should Stripe ever answer so).
 * A secret key containing `invalid` is refused (401), as a revoked key would be.
 *
 * Controls (not Stripe's API): `POST /_standin/payment_intents/{id}/authenticate`
 * `{"outcome": "succeeded"|"failed", "deliver": true|false}` does what the shopper's 3-D Secure
 * step does in Stripe.js and answers `{payment_intent, event, payload, signatures}` (with
 * `deliver: false` the webhook is not sent, so a test can send it itself); `GET /_standin/requests`
 * lists the requests seen (card numbers reduced to their last four); `GET /_standin/invalid`;
 * `POST /_standin/customers/{customer}/payment_methods/{pm}/behave` `{"as": "<test card token or
 * number>"}` makes later charges of that saved PaymentMethod for that customer do what the named
 * test card does (a saved card that starts needing authentication, or starts declining), and
 * `{"as": null}` undoes it; `POST /_standin/payment_intents/{id}/settle` `{"outcome":
 * "succeeded"|"failed"}` settles a `processing` PaymentIntent as the bank eventually does (a
 * replayed create still answers its first state, as Stripe's idempotency does).
 *
 * SetupIntents (`POST /v1/setup_intents`, confirmed at once) save the same test cards for later
 * charges: a raw card becomes a `pm_…` whose later PaymentIntents keep that number's fate.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { checkStripeRequest, parseStripeForm } from './openapi';

type Json = Record<string, unknown>;

/** A request as the stand-in saw it (card numbers already reduced). */
export interface SeenRequest {
  method: string;
  path: string;
  account: string;
  idempotencyKey: string | null;
  params: Json;
}

/** One Stripe account of the stand-in (per secret key). */
interface StandinAccount {
  intents: Map<string, Json>;
  charges: Map<string, Json>;
  customers: Map<string, Json>;
  refunds: Map<string, Json>;
  endpoints: Array<{ id: string; url: string; secret: string }>;
  idempotency: Map<string, { fingerprint: string; status: number; body: Json }>;
  /** PaymentMethods saved from raw cards by SetupIntents: id → the card number's fate key (its number). */
  savedMethods?: Map<string, string>;
}

/** The running stand-in. */
export interface StripeStandin {
  url: string;
  port: number;
  requests: SeenRequest[];
  invalid: string[];
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const nowS = () => Math.floor(Date.now() / 1000);

/** What a card does, by token or raw number. */
type CardFate = { kind: 'succeed' } | { kind: 'decline'; code: string; declineCode?: string; message: string } | { kind: '3ds'; evenOffSession?: boolean } | { kind: 'processing' } | { kind: 'api_error' } | { kind: 'rate_limit' } | { kind: 'hang' };

const DECLINED: CardFate = { kind: 'decline', code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' };
const FATES: Record<string, CardFate> = {
  pm_card_chargeDeclined: DECLINED,
  pm_card_visa_chargeDeclined: DECLINED,
  '4000000000000002': DECLINED,
  pm_card_chargeDeclinedInsufficientFunds: { kind: 'decline', code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  '4000000000009995': { kind: 'decline', code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  pm_card_chargeDeclinedIncorrectCvc: { kind: 'decline', code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  '4000000000000127': { kind: 'decline', code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  pm_card_avsZipFail: { kind: 'decline', code: 'incorrect_zip', message: "Your card's zip code failed validation." },
  '4000000000000036': { kind: 'decline', code: 'incorrect_zip', message: "Your card's zip code failed validation." },
  pm_card_chargeDeclinedProcessingError: { kind: 'decline', code: 'processing_error', message: 'An error occurred while processing your card.' },
  '4000000000000119': { kind: 'decline', code: 'processing_error', message: 'An error occurred while processing your card.' },
  pm_card_authenticationRequired: { kind: '3ds' },
  pm_card_threeDSecure2Required: { kind: '3ds' },
  '4000002760003184': { kind: '3ds' },
  '4000000000003220': { kind: '3ds' },
  pm_card_standin_processing: { kind: 'processing' },
  pm_card_standin_api_error: { kind: 'api_error' },
  pm_card_standin_rate_limit: { kind: 'rate_limit' },
  pm_card_standin_hang: { kind: 'hang' },
  pm_card_standin_action_off_session: { kind: '3ds', evenOffSession: true },
};

/** The brand of a token or number. */
function brandOf(card: string): string {
  if (/mastercard|^5[1-5]|^2[2-7]/.test(card)) return 'mastercard';
  if (/amex|^3[47]/.test(card)) return 'amex';
  return 'visa';
}

/** Starts the stand-in on `port` (0: any free port) of 127.0.0.1. */
export async function startStripeStandin(options: { port?: number; host?: string; log?: (line: string) => void } = {}): Promise<StripeStandin> {
  const accounts = new Map<string, StandinAccount>();
  const requests: SeenRequest[] = [];
  const invalid: string[] = [];
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();
  /** Saved PaymentMethods told to behave as another test card, by `<customer>|<pm>` (customer ids are unique). */
  const behaviours = new Map<string, string>();
  const accountOf = (key: string): StandinAccount => {
    let account = accounts.get(key);
    if (!account) {
      account = { intents: new Map(), charges: new Map(), customers: new Map(), refunds: new Map(), endpoints: [], idempotency: new Map() };
      accounts.set(key, account);
    }
    return account;
  };

  const send = (response: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': id('req'), ...headers });
    response.end(text);
  };
  const stripeError = (type: string, message: string, extra: Json = {}) => ({ error: { type, message, ...extra } });

  /** Signs and posts an event to every endpoint of the account (three attempts each). */
  const deliver = (account: StandinAccount, event: Json): void => {
    const payload = JSON.stringify(event);
    for (const endpoint of account.endpoints) {
      const attempt = (left: number) => {
        const url = new URL(endpoint.url);
        const post = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature(payload, endpoint.secret) } }, (answer) => {
          answer.resume();
          if ((answer.statusCode ?? 500) >= 500 && left > 1) setTimeout(() => attempt(left - 1), 200);
        });
        post.on('error', () => { if (left > 1) setTimeout(() => attempt(left - 1), 200); });
        post.end(payload);
      };
      attempt(3);
    }
  };

  const eventOf = (type: string, object: Json): Json => ({ id: id('evt'), object: 'event', api_version: '2023-08-16', created: nowS(), data: { object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type });

  /** The charge of a succeeded intent. */
  const chargeFor = (account: StandinAccount, intent: Json, card: string, postalCode: string | null, exp: { month: number; year: number }): Json => {
    const charge: Json = {
      id: id('ch'), object: 'charge', amount: intent.amount, amount_captured: intent.amount, amount_refunded: 0, captured: true, created: nowS(), currency: intent.currency,
      customer: intent.customer, livemode: false, metadata: intent.metadata, paid: true, payment_intent: intent.id, payment_method: intent.payment_method, refunded: false, status: 'succeeded',
      payment_method_details: {
        type: 'card',
        card: { brand: brandOf(card), last4: card.slice(-4).replace(/\D/g, '') || '4242', exp_month: exp.month, exp_year: exp.year, funding: 'credit', country: 'US', network: brandOf(card),
          checks: { cvc_check: 'pass', address_line1_check: null, address_postal_code_check: postalCode ? 'pass' : null }, authorization_code: String(100000 + Math.floor(Math.random() * 899999)) },
      },
    };
    account.charges.set(charge.id as string, charge);
    return charge;
  };

  const withCharge = (account: StandinAccount, intent: Json, expand: boolean): Json =>
    expand && typeof intent.latest_charge === 'string' ? { ...intent, latest_charge: account.charges.get(intent.latest_charge) ?? intent.latest_charge } : intent;

  /** `POST /v1/payment_intents`: answers [status, body], or 'hang'. */
  const createIntent = (account: StandinAccount, params: Json): [number, Json] | 'hang' => {
    const methodData = params.payment_method_data as Json | undefined;
    const raw = (methodData?.card as Json | undefined) ?? undefined;
    const token = (params.payment_method as string | undefined) ?? null;
    const card = raw ? String(raw.number) : (token && account.savedMethods?.get(token)) || (token ?? '');
    const behaviour = token && typeof params.customer === 'string' ? behaviours.get(`${params.customer}|${token}`) : undefined;
    const fate: CardFate = FATES[behaviour ?? card] ?? { kind: 'succeed' };
    const offSession = params.off_session === 'true' || params.off_session === 'one_off' || params.off_session === 'recurring';
    if (fate.kind === 'api_error') return [500, stripeError('api_error', 'An unknown error occurred (stand-in).')];
    if (fate.kind === 'rate_limit') return [429, stripeError('invalid_request_error', 'Too many requests (stand-in).', { code: 'rate_limit' })];
    const pmId = raw ? id('pm') : token;
    const intent: Json = {
      id: id('pi'), object: 'payment_intent', amount: Number(params.amount), amount_capturable: 0, amount_received: 0, capture_method: params.capture_method ?? 'automatic',
      client_secret: null, confirmation_method: 'automatic', created: nowS(), currency: params.currency, customer: params.customer ?? null, description: params.description ?? null,
      last_payment_error: null, latest_charge: null, livemode: false, metadata: params.metadata ?? {}, next_action: null, payment_method: pmId,
      payment_method_types: ['card'], setup_future_usage: params.setup_future_usage ?? null, status: 'requires_payment_method', automatic_payment_methods: params.automatic_payment_methods ? { enabled: true, allow_redirects: 'never' } : null,
    };
    intent.client_secret = `${intent.id}_secret_${randomBytes(8).toString('hex')}`;
    const exp = { month: Number(raw?.exp_month ?? 12), year: Number(raw?.exp_year ?? 2034) };
    const postal = ((methodData?.billing_details as Json | undefined)?.address as Json | undefined)?.postal_code as string | undefined;
    (intent as Json & { _card: unknown })._card = { card: raw ? card.slice(-4) : card, postal: postal ?? null, exp };
    account.intents.set(intent.id as string, intent);
    if (fate.kind === 'decline') {
      const error = { type: 'card_error', code: fate.code, ...(fate.declineCode ? { decline_code: fate.declineCode } : {}), message: fate.message, payment_method: { id: pmId, object: 'payment_method', type: 'card' } };
      intent.last_payment_error = error;
      deliver(account, eventOf('payment_intent.payment_failed', publicIntent(intent)));
      return [402, { error: { ...error, payment_intent: publicIntent(intent) } }];
    }
    if (fate.kind === '3ds' && offSession && !fate.evenOffSession) {
      // Stripe: off-session nobody can authenticate, so the confirmation fails at once.
      const error = { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.', payment_method: { id: pmId, object: 'payment_method', type: 'card' } };
      intent.last_payment_error = error;
      deliver(account, eventOf('payment_intent.payment_failed', publicIntent(intent)));
      return [402, { error: { ...error, payment_intent: publicIntent(intent) } }];
    }
    if (fate.kind === '3ds') {
      intent.status = 'requires_action';
      intent.next_action = { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } };
      return [200, publicIntent(intent)];
    }
    if (fate.kind === 'processing') {
      intent.status = 'processing';
      return [200, publicIntent(intent)];
    }
    succeed(account, intent);
    return fate.kind === 'hang' ? 'hang' : [200, publicIntent(intent)];
  };

  /**
   * `POST /v1/setup_intents` (confirmed at once): keeps a card for later charges with the test
   * cards' fates (a declining card is refused with a card_error naming the SetupIntent; a 3-D
   * Secure card needs action). A token keeps its id (so later charges keep its fate); a raw card
   * becomes a new `pm_…` that later charges treat as that number. `expand[]=payment_method`
   * answers the PaymentMethod with its card.
   */
  const createSetupIntent = (account: StandinAccount, params: Json): [number, Json] => {
    const methodData = params.payment_method_data as Json | undefined;
    const raw = methodData?.card as Json | undefined;
    const token = (params.payment_method as string | undefined) ?? null;
    const card = raw ? String(raw.number) : (token && account.savedMethods?.get(token)) || (token ?? '');
    const fate: CardFate = FATES[card] ?? { kind: 'succeed' };
    if (fate.kind === 'api_error') return [500, stripeError('api_error', 'An unknown error occurred (stand-in).')];
    if (fate.kind === 'rate_limit') return [429, stripeError('invalid_request_error', 'Too many requests (stand-in).', { code: 'rate_limit' })];
    const customer = params.customer as string | undefined;
    if (customer && !account.customers.has(customer)) return [400, stripeError('invalid_request_error', `No such customer: '${customer}'`, { code: 'resource_missing', param: 'customer' })];
    const pmId = raw ? id('pm') : token!;
    if (raw) (account.savedMethods ??= new Map()).set(pmId, card);
    const exp = { month: Number(raw?.exp_month ?? 12), year: Number(raw?.exp_year ?? 2034) };
    const paymentMethod: Json = {
      id: pmId, object: 'payment_method', type: 'card', created: nowS(), customer: customer ?? null, livemode: false, metadata: {},
      billing_details: { address: { postal_code: ((methodData?.billing_details as Json | undefined)?.address as Json | undefined)?.postal_code ?? null }, name: (methodData?.billing_details as Json | undefined)?.name ?? null },
      card: { brand: brandOf(card), last4: raw ? card.slice(-4) : '4242', exp_month: exp.month, exp_year: exp.year, funding: 'credit', country: 'US' },
    };
    const intent: Json = {
      id: id('seti'), object: 'setup_intent', client_secret: null, created: nowS(), customer: customer ?? null, description: null, last_setup_error: null, livemode: false,
      metadata: params.metadata ?? {}, next_action: null, payment_method: pmId, payment_method_types: ['card'], status: 'succeeded', usage: params.usage ?? 'off_session',
    };
    intent.client_secret = `${intent.id}_secret_${randomBytes(8).toString('hex')}`;
    if (fate.kind === 'decline') {
      const error = { type: 'card_error', code: fate.code, ...(fate.declineCode ? { decline_code: fate.declineCode } : {}), message: fate.message };
      Object.assign(intent, { status: 'requires_payment_method', last_setup_error: error });
      return [402, { error: { ...error, setup_intent: intent } }];
    }
    if (fate.kind === '3ds') Object.assign(intent, { status: 'requires_action', next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} } });
    if (fate.kind === 'processing') intent.status = 'processing';
    const expand = JSON.stringify(params.expand ?? []).includes('payment_method');
    return [200, expand ? { ...intent, payment_method: paymentMethod } : intent];
  };

  const succeed = (account: StandinAccount, intent: Json) => {
    const card = (intent as Json & { _card: { card: string; postal: string | null; exp: { month: number; year: number } } })._card;
    const charge = chargeFor(account, intent, card.card, card.postal, card.exp);
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: charge.id, next_action: null, last_payment_error: null });
    deliver(account, eventOf('payment_intent.succeeded', publicIntent(intent)));
  };

  const publicIntent = (intent: Json): Json => {
    const { _card, ...rest } = intent as Json & { _card?: unknown };
    return rest;
  };

  const handleApi = (request: IncomingMessage, response: ServerResponse, url: URL, body: string): void => {
    const auth = request.headers.authorization ?? '';
    // Bearer (the SDK) or Basic with the key as user name (curl -u sk_…:), as Stripe takes both.
    const key = auth.startsWith('Bearer ') ? auth.slice(7) : auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0]! : '';
    const problems = checkStripeRequest(request.method ?? 'GET', url.pathname, url.search.slice(1), body);
    const params = request.method === 'POST' ? parseStripeForm(body) : parseStripeForm(url.search.slice(1));
    requests.push({ method: request.method ?? 'GET', path: url.pathname, account: key.slice(-6), idempotencyKey: (request.headers['idempotency-key'] as string | undefined) ?? null, params: reduced(params) });
    if (problems.length) {
      invalid.push(...problems);
      options.log?.(`stripe stand-in: invalid request: ${problems.join('; ')}`);
      return send(response, 400, stripeError('invalid_request_error', `Stand-in: the request does not match Stripe's OpenAPI description: ${problems.join('; ')}`));
    }
    if (!/^(sk|rk)_(live|test)_/.test(key) || key.includes('invalid')) return send(response, 401, stripeError('invalid_request_error', 'Invalid API Key provided.'));
    const account = accountOf(key);
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    const fingerprint = `${request.method} ${url.pathname} ${body}`;
    if (request.method === 'POST' && idempotencyKey) {
      const earlier = account.idempotency.get(idempotencyKey);
      if (earlier) {
        if (earlier.fingerprint !== fingerprint) return send(response, 400, stripeError('idempotency_error', 'Keys for idempotent requests can only be used with the same parameters they were first used with.'));
        return send(response, earlier.status, earlier.body, { 'Idempotent-Replayed': 'true' });
      }
    }
    const answer = route(account, request.method ?? 'GET', url, params);
    if (answer === 'hang') {
      // The work is done (and remembered under the key); the answer never comes.
      const intent = [...account.intents.values()].at(-1)!;
      if (idempotencyKey) account.idempotency.set(idempotencyKey, { fingerprint, status: 200, body: withCharge(account, publicIntent(intent), true) });
      held.add(response);
      return;
    }
    const [status, result] = answer;
    // Stripe remembers every answer of an executed request but a 500 or 429.
    if (request.method === 'POST' && idempotencyKey && status !== 500 && status !== 429) account.idempotency.set(idempotencyKey, { fingerprint, status, body: result });
    send(response, status, result, status === 500 ? { 'Stripe-Should-Retry': 'true' } : {});
  };

  const route = (account: StandinAccount, method: string, url: URL, params: Json): [number, Json] | 'hang' => {
    const path = url.pathname;
    const expand = JSON.stringify(params.expand ?? []).includes('latest_charge');
    if (method === 'GET' && path === '/v1/balance') return [200, { object: 'balance', available: [{ amount: 0, currency: 'usd', source_types: { card: 0 } }], pending: [{ amount: 0, currency: 'usd', source_types: { card: 0 } }], livemode: false }];
    if (method === 'POST' && path === '/v1/payment_intents') {
      const created = createIntent(account, params);
      if (created === 'hang') return created;
      const [status, body] = created;
      return [status, status === 200 ? withCharge(account, body, expand) : body];
    }
    if (method === 'GET' && path === '/v1/payment_intents/search') {
      const match = /metadata\['([^']+)'\]:'([^']*)'/.exec(String(params.query ?? ''));
      const data = match ? [...account.intents.values()].filter((intent) => (intent.metadata as Json)[match[1]!] === match[2]).map(publicIntent) : [];
      return [200, { object: 'search_result', data, has_more: false, next_page: null, url: '/v1/payment_intents/search' }];
    }
    const intentPath = /^\/v1\/payment_intents\/([^/]+)(\/cancel)?$/.exec(path);
    if (intentPath) {
      const intent = account.intents.get(intentPath[1]!);
      if (!intent) return [404, stripeError('invalid_request_error', `No such payment_intent: '${intentPath[1]}'`, { code: 'resource_missing' })];
      if (method === 'POST' && intentPath[2]) {
        if (intent.status === 'succeeded') return [400, stripeError('invalid_request_error', 'You cannot cancel this PaymentIntent because it has a status of succeeded.', { code: 'payment_intent_unexpected_state' })];
        Object.assign(intent, { status: 'canceled', cancellation_reason: params.cancellation_reason ?? 'requested_by_customer', canceled_at: nowS() });
        deliver(account, eventOf('payment_intent.canceled', publicIntent(intent)));
      }
      return [200, withCharge(account, publicIntent(intent), expand)];
    }
    if (method === 'POST' && path === '/v1/setup_intents') return createSetupIntent(account, params);
    if (method === 'POST' && path === '/v1/customers') {
      const customer: Json = { id: id('cus'), object: 'customer', created: nowS(), email: params.email ?? null, name: params.name ?? null, metadata: params.metadata ?? {}, livemode: false };
      account.customers.set(customer.id as string, customer);
      return [200, customer];
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intent = account.intents.get(String(params.payment_intent));
      if (!intent || intent.status !== 'succeeded') return [400, stripeError('invalid_request_error', 'This PaymentIntent has no successful charge to refund.', { code: 'charge_not_refundable' })];
      const charge = account.charges.get(intent.latest_charge as string)!;
      const amount = params.amount === undefined ? Number(charge.amount) - Number(charge.amount_refunded) : Number(params.amount);
      if (amount > Number(charge.amount) - Number(charge.amount_refunded)) return [400, stripeError('invalid_request_error', `Refund amount (${amount}) is greater than unrefunded amount on charge.`, { code: 'amount_too_large' })];
      charge.amount_refunded = Number(charge.amount_refunded) + amount;
      charge.refunded = charge.amount_refunded === charge.amount;
      const refund: Json = { id: id('re'), object: 'refund', amount, charge: charge.id, created: nowS(), currency: intent.currency, metadata: params.metadata ?? {}, payment_intent: intent.id, reason: params.reason ?? null, status: 'succeeded' };
      account.refunds.set(refund.id as string, refund);
      deliver(account, eventOf('charge.refunded', charge));
      return [200, refund];
    }
    if (method === 'POST' && path === '/v1/webhook_endpoints') {
      const endpoint = { id: id('we'), url: String(params.url), secret: `whsec_${randomBytes(24).toString('hex')}` };
      account.endpoints.push(endpoint);
      return [200, { id: endpoint.id, object: 'webhook_endpoint', url: endpoint.url, secret: endpoint.secret, enabled_events: params.enabled_events ?? ['*'], status: 'enabled', livemode: false, created: nowS(), metadata: {} }];
    }
    return [404, stripeError('invalid_request_error', `Unrecognized request URL (${method}: ${path}) in the stand-in.`)];
  };

  /** `POST /_standin/payment_intents/{id}/authenticate`: the shopper's 3-D Secure step. */
  const authenticate = (response: ServerResponse, intentId: string, body: Json) => {
    for (const account of accounts.values()) {
      const intent = account.intents.get(intentId);
      if (!intent) continue;
      if (intent.status !== 'requires_action') return send(response, 409, { error: `The PaymentIntent is ${intent.status}` });
      const deliverIt = body.deliver !== false;
      let event: Json;
      if (body.outcome === 'failed') {
        Object.assign(intent, { status: 'requires_payment_method', next_action: null, last_payment_error: { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'The provided PaymentMethod has failed authentication.' } });
        event = eventOf('payment_intent.payment_failed', publicIntent(intent));
      } else {
        const card = (intent as Json & { _card: { card: string; postal: string | null; exp: { month: number; year: number } } })._card;
        const charge = chargeFor(account, intent, card.card, card.postal, card.exp);
        Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: charge.id, next_action: null });
        event = eventOf('payment_intent.succeeded', publicIntent(intent));
      }
      if (deliverIt) deliver(account, event);
      const payload = JSON.stringify(event);
      return send(response, 200, { payment_intent: publicIntent(intent), event, payload, signatures: account.endpoints.map((endpoint) => ({ url: endpoint.url, header: signature(payload, endpoint.secret) })) });
    }
    send(response, 404, { error: 'No such PaymentIntent' });
  };

  /** `POST /_standin/customers/{customer}/payment_methods/{pm}/behave`: a saved card that behaves as another test card from now on. */
  const behave = (response: ServerResponse, customer: string, paymentMethod: string, body: Json) => {
    const as = body.as;
    if (as !== null && (typeof as !== 'string' || !(as in FATES || /^pm_card_|^\d{12,19}$/.test(as)))) return send(response, 400, { error: '"as" must be a test card token or number, or null' });
    if (as === null) behaviours.delete(`${customer}|${paymentMethod}`);
    else behaviours.set(`${customer}|${paymentMethod}`, as);
    send(response, 200, { customer, payment_method: paymentMethod, as });
  };

  /** `POST /_standin/payment_intents/{id}/settle`: a `processing` PaymentIntent succeeds or fails, as its bank decides later. */
  const settle = (response: ServerResponse, intentId: string, body: Json) => {
    for (const account of accounts.values()) {
      const intent = account.intents.get(intentId);
      if (!intent) continue;
      if (intent.status !== 'processing') return send(response, 409, { error: `The PaymentIntent is ${intent.status}` });
      if (body.outcome === 'failed') {
        Object.assign(intent, { status: 'requires_payment_method', last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } });
        deliver(account, eventOf('payment_intent.payment_failed', publicIntent(intent)));
      } else {
        succeed(account, intent);
      }
      return send(response, 200, { payment_intent: publicIntent(intent) });
    }
    send(response, 404, { error: 'No such PaymentIntent' });
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://standin');
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        if (url.pathname === '/_standin/requests') return send(response, 200, { requests });
        if (url.pathname === '/_standin/invalid') return send(response, 200, { invalid });
        const control = /^\/_standin\/payment_intents\/([^/]+)\/authenticate$/.exec(url.pathname);
        if (control && request.method === 'POST') return authenticate(response, control[1]!, body ? JSON.parse(body) : {});
        const behaving = /^\/_standin\/customers\/([^/]+)\/payment_methods\/([^/]+)\/behave$/.exec(url.pathname);
        if (behaving && request.method === 'POST') return behave(response, behaving[1]!, behaving[2]!, body ? JSON.parse(body) : {});
        const settling = /^\/_standin\/payment_intents\/([^/]+)\/settle$/.exec(url.pathname);
        if (settling && request.method === 'POST') return settle(response, settling[1]!, body ? JSON.parse(body) : {});
        if (url.pathname.startsWith('/v1/')) return handleApi(request, response, url, body);
        send(response, 404, { error: { type: 'invalid_request_error', message: 'Not found' } });
      } catch (error) {
        send(response, 500, stripeError('api_error', (error as Error).message));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    invalid,
    close: () => new Promise<void>((resolve) => {
      for (const response of held) response.destroy();
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Stripe's signature header for `payload` with `secret` now: `t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`. */
export function signature(payload: string, secret: string, timestamp = nowS()): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')}`;
}

/** Request parameters as kept in the log: a card number reduced to its last four, the CVC dropped. */
function reduced(params: Json): Json {
  return JSON.parse(JSON.stringify(params, (key, value) => (key === 'number' && typeof value === 'string' ? `…${value.slice(-4)}` : key === 'cvc' ? '…' : value)));
}
