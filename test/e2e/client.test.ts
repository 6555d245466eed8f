/**
 * The typed client (packages/client) against the local runtime, the way an integration uses it:
 * typed reads and creates, a cursor list and an offset list walked page by page, a payment made
 * idempotent by its key (the retry is the stored answer, nothing charged twice), and a signed
 * sample notification checked with the client's webhook verification.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cartwheelClient, eachItem, idempotent, verifyWebhook, type CartwheelClient } from '../../packages/client/src/index';
import { startReceiver, type Receiver } from '../support/receiver';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process';
import { checkResponse } from '../support/openapi-responses';

const KEY = 'client-signing-key-0123';

let runtime: RuntimeProcess;
let receiver: Receiver;
let cartwheel: CartwheelClient;

beforeAll(async () => {
  receiver = await startReceiver();
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  cartwheel = cartwheelClient({
    baseUrl: runtime.bootstrap.api_url,
    token: runtime.bootstrap.tokens.test_secret,
    // The client's answers are checked against the description as api()'s are.
    fetch: async (request: Request) => {
      const response = await fetch(request);
      await checkResponse(request.method, request.url, response.status, response.headers.get('content-type'), await response.clone().text());
      return response;
    },
  });
}, 60_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
  await receiver.close();
});

describe('the typed client', () => {
  it('creates and reads products with typed answers, and walks the offset list page by page', async () => {
    for (const index of [1, 2, 3, 4, 5]) {
      const { data, error, response } = await cartwheel.POST('/products', { body: { product_id: `client-${index}`, name: `Client ${index}`, type: 'digital', prices: [{ currency: 'USD', price: 10 + index }] } });
      expect(response.status, JSON.stringify(error)).toBe(201);
      expect(data!.product_id).toBe(`client-${index}`);
      expect(data!.prices[0]!.price).toBe(10 + index);
    }
    const { data: product } = await cartwheel.GET('/products/{product_id}', { params: { path: { product_id: 'client-3' } } });
    expect(product).toMatchObject({ object: 'product', name: 'Client 3', type: 'digital', active: true });
    const pages: number[] = [];
    const names: string[] = [];
    for await (const item of eachItem(async (query) => {
      const page = await cartwheel.GET('/products', { params: { query: { ...query, limit: 2 } } });
      pages.push(page.data?.current_page ?? -1);
      return page;
    })) {
      names.push(item.name);
    }
    expect(names.filter((name) => name.startsWith('Client '))).toEqual(['Client 1', 'Client 2', 'Client 3', 'Client 4', 'Client 5']);
    expect(pages.length).toBe(Math.ceil(names.length / 2));
    expect(pages.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('walks a cursor list, and makes a payment idempotent by its key', async () => {
    const carts: string[] = [];
    for (let index = 0; index < 3; index++) {
      const { data, response } = await cartwheel.POST('/carts', {
        body: { items: [{ product_id: 'client-1', quantity: 1 }], customer: { name: 'Ada Lee', email: 'ada@example.test', billing_address: { street: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US', state_prov: 'IL' } } },
      });
      expect(response.status).toBe(201);
      carts.push(data!.cart_id);
    }
    const walked: string[] = [];
    for await (const cart of eachItem((query) => cartwheel.GET('/carts', { params: { query: { ...query, limit: 1 } } }))) walked.push(cart.cart_id);
    expect(walked).toEqual(expect.arrayContaining(carts));

    const headers = idempotent();
    const pay = () =>
      cartwheel.POST('/carts/{cart_id}/payments', {
        params: { path: { cart_id: carts[0]! } },
        body: { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvv: '123', cardholder_name: 'Ada Lee' } } },
        headers,
      });
    const first = await pay();
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    const again = await pay();
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.payment_id).toBe(first.data!.payment_id);
    expect(() => idempotent('not a key')).toThrow(/Idempotency-Key/);
  });

  it('verifies a signed notification, and refuses it with a changed body or an old timestamp', async () => {
    const { data: subscription } = await cartwheel.POST('/event_subscriptions', { body: { event_type: 'order:created', method: 'http', destination: `${receiver.url}/hook`, signature_key: KEY } });
    const { data: result } = await cartwheel.POST('/event_subscriptions/{event_subscription_id}/test', { params: { path: { event_subscription_id: subscription!.event_subscription_id } }, body: {} });
    expect(result).toMatchObject({ object: 'event_test_result', success: true });
    const [delivery] = await receiver.receivedAt('/hook', 1);
    const headers = Object.fromEntries(Object.entries(delivery!.headers).map(([name, value]) => [name, String(value)]));
    const sent = Number(headers['webhook-timestamp']);
    expect(verifyWebhook(delivery!.body, headers, KEY, sent)).toBe(true);
    expect(verifyWebhook(delivery!.body.toString('utf8'), new Headers(headers), KEY, sent + 299)).toBe(true);
    expect(verifyWebhook(Buffer.concat([delivery!.body, Buffer.from(' ')]), headers, KEY, sent)).toBe(false);
    expect(verifyWebhook(delivery!.body, headers, KEY, sent + 301)).toBe(false);
    expect(verifyWebhook(delivery!.body, headers, 'another-key-0123456', sent)).toBe(false);
  });
});
