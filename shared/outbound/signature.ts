/**
 * Delivery signatures (events.md §5, §5.1; licenses.md reuses them): `X-Service-Signature` over
 * the body bytes, and the Standard Webhooks headers over `<id>.<timestamp>.<body>`. Both are
 * base64 HMAC-SHA256 keyed with the UTF-8 bytes of the signature key. Computed at each attempt,
 * with the key current at that moment; the body is the one rendered when the event was created.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A body as sent: the rendered string (encoded as UTF-8) or its bytes. */
export type SignedBody = string | Uint8Array;

/** The four signature headers of one attempt, named as sent. */
export interface SignatureHeaders {
  'X-Service-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** How far `webhook-timestamp` may be from the receiver's clock (§5.1 step 3). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * The key that signs a subscription's deliveries: its own `signature_key` when set, else the
 * account's (§5; null means the account key). License services pass no override.
 */
export function signingKey(accountKey: string, subscriptionKey?: string | null): string {
  return subscriptionKey ?? accountKey;
}

function bytes(body: SignedBody): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function mac(key: string, ...parts: Buffer[]): string {
  const hmac = createHmac('sha256', Buffer.from(key, 'utf8'));
  for (const part of parts) hmac.update(part);
  return hmac.digest('base64');
}

/** `X-Service-Signature`: base64 of HMAC-SHA256 over the exact body bytes. */
export function serviceSignature(body: SignedBody, key: string): string {
  return mac(key, bytes(body));
}

/** `webhook-signature`: `v1,` + base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`. */
export function webhookSignature(webhookId: string, timestamp: number, body: SignedBody, key: string): string {
  return `v1,${mac(key, Buffer.from(`${webhookId}.${timestampText(timestamp)}.`, 'utf8'), bytes(body))}`;
}

/** Above this a "seconds" value is really milliseconds (year 5138): receivers would refuse every attempt. */
const MAX_UNIX_SECONDS = 1e11;

function timestampText(timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0 || timestamp >= MAX_UNIX_SECONDS) throw new RangeError(`webhook-timestamp must be whole Unix seconds, not ${timestamp}`);
  return String(timestamp);
}

/** Whole Unix seconds of an instant, for `webhook-timestamp` (pass the platform clock's `now()`). */
export function unixSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}

/**
 * The signature headers of one attempt. `webhookId` is the `event_id` (a license request's id
 * for license deliveries); `timestamp` is when this attempt is signed, in whole Unix seconds.
 *
 * @example signatureHeaders({ body, webhookId: event.event_id, timestamp: unixSeconds(now()), key: signingKey(accountKey, subscription.signature_key) })
 */
export function signatureHeaders(attempt: { body: SignedBody; webhookId: string; timestamp: number; key: string }): SignatureHeaders {
  return {
    'X-Service-Signature': serviceSignature(attempt.body, attempt.key),
    'webhook-id': attempt.webhookId,
    'webhook-timestamp': timestampText(attempt.timestamp),
    'webhook-signature': webhookSignature(attempt.webhookId, attempt.timestamp, attempt.body, attempt.key),
  };
}

/** The key in the form Standard Webhooks libraries expect: `whsec_` + base64 of its UTF-8 bytes (§5). */
export function standardWebhooksSecret(key: string): string {
  return `whsec_${Buffer.from(key, 'utf8').toString('base64')}`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Request headers as a receiver sees them; names are matched case-insensitively. */
export type ReceivedHeaders = Record<string, string | string[] | undefined>;

function header(headers: ReceivedHeaders, name: string): string {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return (Array.isArray(value) ? value[0] : value) ?? '';
  }
  return '';
}

/**
 * The receiver's check of §5.1, for tests and merchants' docs: the body signature in constant
 * time, a timestamp within 300 seconds of `nowSeconds`, and a `v1,` entry of `webhook-signature`
 * matching. `rawBody` is the body before any parsing; `nowSeconds` is the receiver's clock in whole seconds.
 */
export function verifyDelivery(rawBody: SignedBody, headers: ReceivedHeaders, key: string, nowSeconds: number): boolean {
  const body = bytes(rawBody);
  if (!same(mac(key, body), header(headers, 'x-service-signature'))) return false;
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  // Stricter than the §5.1 snippet, where a missing timestamp (NaN) slips past the window check.
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS) return false;
  const expected = mac(key, Buffer.from(`${id}.${timestamp}.`, 'utf8'), body);
  return header(headers, 'webhook-signature')
    .split(' ')
    .some((entry) => entry.startsWith('v1,') && same(entry.slice(3), expected));
}
