/**
 * The platform's ports: everything that differs between the cloud, the local runtime and a
 * test, on one `Platform` object built once per process. Cloud handlers build it at module
 * load (shared/app/platforms.ts); the local runtime builds it with the local adapters
 * (infra/local/platform.ts), so local-only code never enters a Lambda bundle; tests build it
 * with fakes (test/support/platform.ts). Operations receive it as an argument; nothing reaches
 * a port through a global or an environment switch.
 *
 * Compare Medusa's paired providers (`notification-local` / `notification-sendgrid`,
 * `file-local` / `file-s3`): one interface, an adapter per place.
 */
import type { Site } from '../core/config';
import type { Address } from '../core/address';

/**
 * Time, as every rule of the platform reads it: the system clock in the cloud, and locally the
 * system clock or the manual one (infra/local/manual-clock.ts).
 */
export interface Clock {
  /** The current instant in epoch milliseconds. */
  nowMs(): number;
  /**
   * Registers a callback run whenever the clock jumps forward (a manual clock moved), so what
   * became due or timed out meanwhile is acted on at once; answers the function that removes it.
   * Absent on a clock that only runs (the system clock).
   */
  onMoved?(listener: (nowMs: number) => void): () => void;
}

/** An email to send. */
export interface EmailMessage {
  to: string;
  from?: string;
  subject: string;
  /** The HTML part; absent for a plain-text message (a JSON or XML notification, events.md §8). */
  html?: string;
  text: string;
  /** Extra headers (`X-Event-Id`, `X-Event-Type` on notifications). */
  headers?: Record<string, string>;
  /** What the message is, e.g. `order_confirmation`. */
  kind: string;
  orderId?: string;
  /**
   * Sending twice with the same key sends once where the adapter can tell (the local outbox
   * keeps the key and answers the first message's id); SES cannot, so a sender claims the
   * work before sending (shared/work) and the key narrows the window to what SES offers.
   */
  dedupKey?: string;
}

/** Sends email: SES in the cloud, the outbox directory locally. */
export interface EmailPort {
  /** Sends a message and answers its message id. */
  send(message: EmailMessage): Promise<string>;
}

/** Seals secrets at rest: KMS in the cloud, a local key file locally. */
export interface SecretsPort {
  /** Encrypts `plaintext`; `purpose` binds the ciphertext to its use. */
  seal(plaintext: string, purpose: string): Promise<string>;
  /** Decrypts what `seal` made with the same `purpose`. */
  open(sealed: string, purpose: string): Promise<string>;
}

/** An outbound HTTP request (event notifications, license requests). */
export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Default 30 000 (the contract's delivery timeout). */
  timeoutMs?: number;
}

/** What came back, or why nothing did. */
export type OutboundResponse =
  | { ok: true; status: number; headers: Record<string, string>; body: string }
  | { ok: false; reason: 'timeout' | 'refused_address' | 'network'; message: string };

/** Outbound HTTP with a timeout and the address guard (events.md §3). */
export interface OutboundHttp {
  send(request: OutboundRequest): Promise<OutboundResponse>;
  /**
   * Whether a destination URL passes the address guard by its host (the save-time check of an
   * event subscription): literal or resolved addresses, under this process's policy.
   */
  allowsDestination(url: string): Promise<boolean>;
}

/** Work queues by logical name (shared/app/queues.ts). */
export interface QueuePort {
  /** Sends one message; `delaySeconds` at most 900. */
  send(queue: string, body: string, options?: { delaySeconds?: number }): Promise<void>;
  /**
   * Sends several messages to one queue in as few calls as possible (SQS: ten per
   * SendMessageBatch); answers the bodies that could not be sent (none: all are on the queue).
   */
  sendBatch(queue: string, bodies: readonly string[]): Promise<string[]>;
}

/** Object storage for uploads (function code, app versions, images). */
export interface ObjectStorage {
  put(bucket: 'functions' | 'apps', key: string, body: Buffer, contentType?: string): Promise<void>;
  get(bucket: 'functions' | 'apps', key: string): Promise<Buffer | undefined>;
  delete(bucket: 'functions' | 'apps', key: string): Promise<void>;
}

// Hosted functions (functions.md): merchant code run by the platform. The functions module
// stores the records and decides; a runner deploys the code and runs it: Lambda in the cloud
// (adapters/lambda-functions.ts), warm confined child processes locally (infra/local/functions/).

/** Which hosted function, in which account and mode. */
export interface FunctionRef {
  accountId: string;
  mode: 'test' | 'live';
  functionId: string;
}

/** The runtimes of functions.md §2, by their full names. */
export type FunctionRuntime = 'nodejs22.x' | 'python3.13' | 'java21' | 'dotnet8';

/** What a function runs with: its code, entry point and limits. */
export interface FunctionSettings extends FunctionRef {
  runtime: FunctionRuntime;
  /** The merchant's handler name as the contract writes it (`index.handler`, `app/routes.quote`). */
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  /**
   * The uploaded zip in the `functions` bucket, under a key that is never overwritten: the code
   * this deployment serves (a settings-only change keeps the previous one).
   */
  codeKey: string;
  /**
   * Names one deployment (code and settings) for good: a new one for every change. Locally,
   * children of another deployment are retired; in the cloud it names the staged package.
   */
  deploymentId: string;
}

/** One deployment to make live: the settings and the decrypted variables. */
export interface FunctionDeployment extends FunctionSettings {
  environment: Record<string, string>;
  /** Only settings changed: the code already serving stays (cloud: no new package, UpdateFunctionConfiguration only). */
  settingsOnly: boolean;
}

/** A deployment's result: live, or why not (the record's `status_message`). */
export type DeployOutcome = { ok: true } | { ok: false; message: string };

/** The function to call: the deployment serving now, with its variables opened only when a runner needs them (a local child starting). */
export interface InvokeTarget extends FunctionSettings {
  environment(): Promise<Record<string, string>>;
}

/**
 * How a call ended (functions.md §7.3-§7.6). `returned` carries the handler's `success` value
 * as it settled (undefined when a promise resolved to nothing); mapping it to the HTTP answer is
 * the functions module's. The rest are the failures the caller gets as 502, 504 or 429.
 */
export type InvokeOutcome =
  | { kind: 'returned'; value: unknown }
  | { kind: 'error'; errorType: string; errorMessage: string }
  | { kind: 'timeout' }
  | { kind: 'crashed'; message?: string }
  | { kind: 'out_of_memory' }
  | { kind: 'runtime_unavailable'; message: string }
  /** The runner refused for load (Lambda TooManyRequestsException): 429, never 500. */
  | { kind: 'throttled' }
  /** No deployed function answers (removed, or not deployed yet in the cloud). */
  | { kind: 'not_found' };

/** Deploys and runs hosted functions: Lambda in the cloud, warm child processes locally. */
export interface FunctionRunner {
  /**
   * Makes `deployment` the serving one and resolves once it serves (or failed). Safe to repeat
   * with the same `deploymentId` (a crashed deployment is run again by due work).
   */
  deploy(deployment: FunctionDeployment): Promise<DeployOutcome>;
  /** Removes the function and everything deployed of it; nothing to remove is fine. */
  remove(ref: FunctionRef): Promise<void>;
  /** Calls the function once with `event` (functions.md §7.2) and answers how it ended; rejects only on a bug. */
  invoke(target: InvokeTarget, event: unknown): Promise<InvokeOutcome>;
}

/** Every port, built once per process. */
export interface Platform {
  clock: Clock;
  email: EmailPort;
  secrets: SecretsPort;
  gateway: PaymentGateway;
  http: OutboundHttp;
  queues: QueuePort;
  objects: ObjectStorage;
  /** Hosted functions: Lambda in the cloud, the local runner locally, a fake in tests. (Optional until issue 23's adapters are wired.) */
  functions?: FunctionRunner;
  /**
   * Accounts' own Stripe connections (commerce.md §4.7): the adapter of one connection, made from
   * its secret key. The API's address is the composition's (`api.stripe.com` in the cloud,
   * `CARTWHEEL_STRIPE_API_BASE` locally); which account uses Stripe is its settings'.
   */
  stripe: StripeGateways;
  /** The public addresses (not a port: configuration the composition hands down with the ports). */
  site: Site;
  /**
   * The CDN's copy of the alias pointers (a CloudFront KeyValueStore, hosting.md §10); absent
   * locally and in functions not granted it, where nothing but the table is read.
   */
  edgePointers?: EdgePointers;
}

// The payment gateway port (commerce.md §4.3, §4.4). The payments capability charges through
// this interface only, so the built-in test gateway and a live gateway are interchangeable.
// Card validation happens before a charge (modules/payments/cards.ts); a gateway judges the card
// the way a processor would.

/** A validated new card from `payment_method.data`. Never stored, never logged. */
export interface NewCard {
  kind: 'new';
  /** 12 to 19 digits, spaces and dashes removed, Luhn-valid. */
  number: string;
  expMonth: number;
  /** Four digits (a two-digit year means 20xx). */
  expYear: number;
  /** 3 or 4 digits, as entered. */
  cvv: string;
  cardholderName: string | null;
  billingAddress: Address | null;
}

/**
 * How the built-in test gateway treats a card number (§4.4). A saved card keeps the class of
 * its number because the number itself is never stored (§4.2).
 */
export type TestBehaviour = 'approve' | 'decline' | 'error' | 'timeout';

/** What a saved payment method keeps of a card: never the full number or the CVV. */
export interface SavedCardRef {
  kind: 'saved';
  /** Brand display name from `CARD_BRANDS`, or null when the leading digits match none. */
  brand: string | null;
  last4: string;
  /** Digits in the full number, so the mask has the original length. */
  numberLength: number;
  expMonth: number;
  /** Four digits. */
  expYear: number;
  cardholderName: string | null;
  billingAddress: Address | null;
  testBehaviour: TestBehaviour;
  /** The gateway's own references when the card was saved through a live gateway (Stripe customer and PaymentMethod ids). */
  gateway?: { customer: string; method: string };
}

/**
 * A card a gateway's script made into a token in the shopper's browser (Stripe.js `pm_…`,
 * commerce.md §4.7): the platform never sees its number. `display` is what the gateway said of
 * it once charged (brand, last four, expiry), for the payment's masked `data`.
 */
export interface TokenCard {
  kind: 'token';
  token: string;
}

/** A charge to run: the amount in `currency` and the card it is taken from. */
export interface ChargeRequest {
  amount: number;
  currency: string;
  card: NewCard | SavedCardRef | TokenCard;
  /** The card's billing postal code, else the sale customer's (§4.4); null when neither is known. */
  billingPostalCode: string | null;
  /** `/settings/payment.ignore_bad_cvv`: approve despite a rejected security code. */
  ignoreBadCvv: boolean;
  /** `/settings/payment.ignore_bad_avs`: approve despite a failed address check. */
  ignoreBadAvs: boolean;
  /** What a live gateway keeps with the charge (Stripe `metadata`: account, payment, cart or invoice ids). */
  metadata?: Record<string, string>;
  /** Keep the card for later charges (Stripe `setup_future_usage: off_session`); a live gateway answers its references. */
  saveCard?: { email: string | null; name: string | null };
  /** A charge without the cardholder present (renewals: Stripe `off_session: true`). */
  offSession?: boolean;
}

/**
 * A gateway's verdict. `approved` completes the payment; `action_required` (3-D Secure) and
 * `processing` leave it `initiated` for the commit, the webhook or recovery to settle, as does
 * `no_answer` (the gateway did not answer in time: 504, resolved by the lookup, commerce.md
 * §4.7); everything else is a failed payment (§4.4).
 */
export type ChargeOutcome = 'approved' | 'declined' | 'invalid_cvv' | 'invalid_avs' | 'error' | 'timeout' | 'action_required' | 'processing' | 'no_answer';

/** The outcomes that leave a payment `initiated`, waiting on the gateway. */
export type WaitingChargeOutcome = 'action_required' | 'processing' | 'no_answer';

/** A failed outcome, which `gatewayError` turns into the API error. */
export type FailedChargeOutcome = Exclude<ChargeOutcome, 'approved' | WaitingChargeOutcome>;

/** Whether an outcome leaves the payment `initiated` (`isWaiting(result.outcome)`). */
export function isWaiting(outcome: ChargeOutcome): outcome is WaitingChargeOutcome {
  return outcome === 'action_required' || outcome === 'processing' || outcome === 'no_answer';
}

/** The payment's `response_data` (§4.1); each value may be null when the gateway said nothing. */
export interface ChargeResponseData {
  authorization_code: string | null;
  avs_match: boolean | null;
  cvv_match: boolean | null;
  message: string | null;
  /** Stripe.js's handle of a PaymentIntent that needs 3-D Secure (commerce.md §4.7). */
  client_secret?: string;
  /** Where the shopper authenticates, when the gateway gives a redirect. */
  redirect_url?: string;
}

/** The result of `PaymentGateway.charge`. */
export interface ChargeResult {
  outcome: ChargeOutcome;
  /** The gateway's transaction id (`gateway_transaction_id`); null when none was assigned. */
  transactionId: string | null;
  responseData: ChargeResponseData;
  /** What a live gateway said of the card (brand, last four, expiry) when the platform never saw its number. */
  card?: { brand: string | null; last4: string; expMonth: number; expYear: number };
  /** A card kept at the gateway (`saveCard`): its customer and method references. */
  saved?: { customer: string; method: string };
}

/**
 * What a recovery knows of a charge when it asks the gateway again: the request as it was made
 * (a live gateway repeats it under the same idempotency key, which answers the first result),
 * and the transaction id when one was answered.
 */
export interface ChargeLookup {
  request?: ChargeRequest;
  transactionId?: string | null;
}

/**
 * A payment gateway: takes money from a card, or says why it did not. Charges carry an
 * idempotency key (the platform uses `<account>#<mode>#<payment_id>`), as real gateways offer:
 * a repeated charge with the same key answers the first result and takes nothing more, and
 * the result can be looked up later. That is what lets a crashed checkout be finished (the
 * charge happened: complete it) or failed safely (it did not: void the key so it never will).
 */
export interface PaymentGateway {
  /**
   * Charges the card once per `key`. Resolves with every outcome, failed ones included;
   * rejects only on a bug or when the gateway cannot be reached at all. Without a key (card
   * verification before saving a method) nothing is recorded.
   */
  charge(request: ChargeRequest & { key?: string }): Promise<ChargeResult>;
  /**
   * The recorded result of the charge with `key`, or undefined when none was made. A live
   * gateway may use `known` (the request, the transaction id) to ask again.
   */
  lookup(key: string, known?: ChargeLookup): Promise<ChargeResult | undefined>;
  /**
   * Makes sure no charge (or refund) with `key` happens from now on, and answers the charge if
   * one already happened (then nothing is voided: the caller must honour it; a refund that
   * happened is answered by `lookupRefund`).
   */
  voidKey(key: string, known?: ChargeLookup): Promise<ChargeResult | undefined>;
  /**
   * Refunds part or all of the charge made with `request.chargeKey`, once per `request.key`: a
   * repeated refund with the same key answers the first result and moves no more money.
   * Resolves with every outcome; rejects only on a bug or when the gateway cannot be reached.
   */
  refund(request: RefundRequest): Promise<RefundResult>;
  /** The recorded result of the refund with `key`, or undefined when none was made. */
  lookupRefund(key: string): Promise<RefundResult | undefined>;
}

/** A refund to make: `amount` in `currency`, of the charge made with `chargeKey`, keyed by `key`. */
export interface RefundRequest {
  /** The refund's idempotency key (the platform uses `<account>#<mode>#<refund_id>`). */
  key: string;
  chargeKey: string;
  /** The charge's transaction id (`gateway_transaction_id`), which a live gateway refunds. */
  chargeTransactionId?: string | null;
  amount: number;
  currency: string;
}

/** One Stripe connection's adapter: the gateway port plus what only a connection does. */
export interface StripeConnection extends PaymentGateway {
  /** Checks the secret key once (`GET /v1/balance`): true when Stripe accepts it; rejects when Stripe cannot be reached. */
  checkKey(): Promise<boolean>;
  /** Cancels a PaymentIntent still waiting (3-D Secure never finished, §4.7) and answers it as it now stands (a charge that succeeded meanwhile stays approved). */
  cancel(transactionId: string): Promise<ChargeResult>;
  /**
   * Keeps a card at Stripe for later charges without the cardholder (commerce.md §6.1, §4.7):
   * a SetupIntent confirmed with `usage: off_session` for the Stripe customer `request.customer`
   * (created first when null), once per `request.key`. Resolves with every outcome (a decline
   * is `declined`, `invalid_cvv` or `invalid_avs`; a card that needs 3-D Secure cannot be saved
   * without the shopper and is `action_required`; Stripe unreachable is `error` or `no_answer`).
   */
  saveCard(request: SaveCardRequest): Promise<SaveCardResult>;
}

/** A card to keep at Stripe (`StripeConnection.saveCard`). */
export interface SaveCardRequest {
  /** The idempotency key (`<account>#<mode>#<payment_method_id>`, sent as `cartwheel-<id>`). */
  key: string;
  /** A `pm_…` token, or a raw card (only for accounts Stripe allows: `allow_raw_card_data`). */
  card: TokenCard | NewCard;
  /** The Stripe customer already kept for the platform customer, or null to create one. */
  customer: string | null;
  /** What a new Stripe customer is made with. */
  details: { email: string | null; name: string | null };
  metadata: Record<string, string>;
  /** The card's billing postal code, sent with a raw card. */
  billingPostalCode: string | null;
}

/** What `saveCard` answers. */
export interface SaveCardResult {
  outcome: ChargeOutcome;
  message: string | null;
  /** The Stripe customer used (also after a decline, so the platform keeps and reuses it); null when none was made. */
  customer: string | null;
  /** On approval: the Stripe customer and PaymentMethod a later charge takes. */
  saved?: { customer: string; method: string };
  /** On approval: what Stripe says of the card. */
  card?: { brand: string | null; last4: string; expMonth: number; expYear: number };
}

/** A verified Stripe webhook event, reduced to what the platform acts on. */
export interface StripeWebhookEvent {
  id: string;
  type: string;
  /** The PaymentIntent's id and metadata, for `payment_intent.*`, `charge.refunded` and `refund.updated`. */
  paymentIntentId: string | null;
  metadata: Record<string, string>;
}

/** The Stripe connections of the platform, at one API address. */
export interface StripeGateways {
  /** The adapter of the connection with `secretKey`. */
  connect(secretKey: string): StripeConnection;
  /**
   * Verifies a webhook's `Stripe-Signature` over the body's bytes with `webhookSecret` (300 s
   * tolerance; the SDK's own `stripe.webhooks.constructEvent`) and answers the event; throws on
   * a bad or missing signature or an old timestamp.
   */
  verifyEvent(payload: Buffer, signature: string | undefined, webhookSecret: string): StripeWebhookEvent;
}

/** The result of `PaymentGateway.refund` (commerce.md §7: a refusal is 402 `transaction_failure`). */
export interface RefundResult {
  outcome: 'refunded' | 'refused';
  /** The gateway's id of the refund; null when refused. */
  refundId: string | null;
  message: string | null;
}

// The CDN's copy of the alias pointers (hosting.md §10; modules/hosting/serving/edge-pointers.ts
// names its keys and values).

/**
 * What the apps module calls after each pointer write (the port a `Platform` would carry as
 * `edgePointers?`: a KeyValueStore adapter in the cloud, absent locally where the gateway reads
 * the table directly). Writes are idempotent; a failed copy is retried from the table.
 */
export interface EdgePointers {
  /** The alias now serves `versionId` of `appId`. */
  put(accountId: string, alias: string, target: { appId: string; versionId: string }): Promise<void>;
  /** The alias serves nothing. */
  delete(accountId: string, alias: string): Promise<void>;
}
