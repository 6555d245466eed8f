/**
 * A typed client for the Cartwheel API: openapi-fetch over the types generated from the API's own
 * description (./schema.ts), with helpers for what every integration needs: walking a list page
 * by page, idempotency keys on POSTs, and checking the signature of an event notification.
 *
 * @example
 * const cartwheel = cartwheelClient({ baseUrl: 'http://localhost:4000/api/v1', token: process.env.TOKEN! });
 * const { data } = await cartwheel.GET('/products/{product_id}', { params: { path: { product_id: 'p1' } } });
 * for await (const order of eachItem((query) => cartwheel.GET('/orders', { params: { query } }))) console.log(order.order_id);
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { components, paths, webhooks } from './schema';

export type { components, paths, webhooks } from './schema';

/** A resource or list schema of the API by its component name, e.g. `Schema<'Order'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The client: `GET`, `POST` and `DELETE` typed by path, parameters, body and answer. */
export type CartwheelClient = Client<paths>;

/** Options of `cartwheelClient`: the API root, the bearer token, and openapi-fetch's own options. */
export interface CartwheelClientOptions extends ClientOptions {
  /** The API root, e.g. `http://localhost:4000/api/v1` (no trailing slash needed). */
  baseUrl: string;
  /** A secret (`sk.`), trusted (`tt.`) or limited (`lt.`) token. */
  token?: string;
}

/** A client for one API root and token. */
export function cartwheelClient(options: CartwheelClientOptions): CartwheelClient {
  const { token, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(headers as Record<string, string> | undefined) },
  });
}

/**
 * Headers that make a POST idempotent: a retry with the same key (and the same body) answers the
 * stored response, with `Idempotent-Replayed: true`, instead of running again (no second charge).
 * Keep the key with the operation and reuse it on every retry of that operation.
 *
 * @example cartwheel.POST('/carts/{cart_id}/payments', { params, body, headers: idempotent() })
 */
export function idempotent(key: string = randomUUID()): { 'Idempotency-Key': string } {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new Error('An Idempotency-Key is 1-255 printable ASCII characters');
  return { 'Idempotency-Key': key };
}

/** The paging fields of both list styles, as a page answers them. */
interface Page<Item> {
  data: Item[];
  next_page_after_item?: string | null;
  next_page_offset?: number | null;
}

/** The query a page request takes: the position to start from and the page size. */
export interface PageQuery {
  limit?: number;
  after_item?: string;
  offset?: number;
}

/**
 * Every item of a list, page after page: `fetchPage` asks for one page with the given position
 * (cursor lists answer `next_page_after_item`, offset lists `next_page_offset`); the walk ends when
 * neither is set. An error answer throws, with the API's error envelope as `cause`.
 *
 * @example for await (const order of eachItem((query) => cartwheel.GET('/orders', { params: { query: { ...query, desc: 'true' } } }))) ...
 */
export async function* eachItem<Item>(
  fetchPage: (query: PageQuery) => Promise<{ data?: Page<Item>; error?: unknown; response: Response }>,
  first: PageQuery = {},
): AsyncGenerator<Item, void, undefined> {
  let query: PageQuery = { ...first };
  for (;;) {
    const { data, error, response } = await fetchPage(query);
    if (!data) throw new Error(`The list answered ${response.status}`, { cause: error });
    yield* data.data;
    if (data.next_page_after_item) query = { ...query, after_item: data.next_page_after_item };
    else if (typeof data.next_page_offset === 'number') query = { ...query, offset: data.next_page_offset };
    else return;
  }
}

/** How far a `webhook-timestamp` may be from the receiver's clock. */
const TOLERANCE_SECONDS = 300;

function mac(key: string, ...parts: Buffer[]): string {
  const hmac = createHmac('sha256', Buffer.from(key, 'utf8'));
  for (const part of parts) hmac.update(part);
  return hmac.digest('base64');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whether an event notification is genuine and fresh (the Standard Webhooks scheme the platform
 * signs with): `X-Service-Signature` is the HMAC-SHA256 of the exact body bytes, the
 * `webhook-timestamp` is within 5 minutes of `nowSeconds`, and one `v1,` entry of
 * `webhook-signature` is the HMAC of `<webhook-id>.<webhook-timestamp>.<body>`. `key` is the
 * subscription's `signature_key`, or the account's. Pass the body as received, before parsing.
 * (Standard Webhooks libraries take the same key as `"whsec_" + base64(utf8(key))`.)
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: Headers | Record<string, string | string[] | undefined>, key: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const header = (name: string): string => {
    if (headers instanceof Headers) return headers.get(name) ?? '';
    for (const [candidate, value] of Object.entries(headers)) if (candidate.toLowerCase() === name) return (Array.isArray(value) ? value[0] : value) ?? '';
    return '';
  };
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  if (!same(mac(key, body), header('x-service-signature'))) return false;
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = mac(key, Buffer.from(`${id}.${timestamp}.`, 'utf8'), body);
  return header('webhook-signature')
    .split(' ')
    .some((entry) => entry.startsWith('v1,') && same(entry.slice(3), expected));
}

/** The body of a notification of event type `Type`, as the description's `webhooks` section types it. */
export type Notification<Type extends keyof webhooks> = NonNullable<webhooks[Type]['post']>['requestBody'] extends infer Body
  ? Body extends { content: { 'application/json': infer Json } }
    ? Json
    : never
  : never;
