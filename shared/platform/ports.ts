/**
 * The platform's ports: everything that differs between the cloud, the local runtime and a
 * test, on one `Platform` object built once per process. Cloud handlers build it at module
 * load (shared/platform/adapters/cloud.ts); the local runtime builds it with the local adapters
 * (infra/local/platform.ts), so local-only code never enters a Lambda bundle; tests build it
 * with fakes (test/support/platform.ts). Operations receive it as an argument; nothing reaches
 * a port through a global or an environment switch.
 *
 * Compare Medusa's paired providers (`notification-local` / `notification-sendgrid`,
 * `file-local` / `file-s3`): one interface, an adapter per place.
 */
import type { PaymentGateway } from '../modules/payments';
import type { EdgePointers } from '../modules/hosting';

/** Time, as every rule of the platform reads it. */
export interface Clock {
  /** The current instant in epoch milliseconds. */
  nowMs(): number;
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

/** Runs customer code (hosted functions): Lambda in the cloud, a child-process runner locally. */
export interface FunctionRunner {
  invoke(functionId: string, event: unknown, options: { timeoutMs: number }): Promise<unknown>;
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
  /** Hosted functions; absent until that capability exists. */
  functions?: FunctionRunner;
  /**
   * The CDN's copy of the alias pointers (a CloudFront KeyValueStore, hosting.md §10); absent
   * locally and in functions not granted it, where nothing but the table is read.
   */
  edgePointers?: EdgePointers;
}
