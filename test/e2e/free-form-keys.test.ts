/**
 * Hostile keys in free-form objects (conventions.md "Free-form objects", issue 22 item 5), over
 * HTTP against a real local runtime: `__proto__`, `constructor`, `prototype` and `toString` as
 * keys of `meta` (at the top and nested), app `settings` and `style`, event subscription
 * environment variables (object and array form) and a sample delivery's `data` are stored,
 * returned, copied and delivered exactly like any other key; none gives a 5xx or vanishes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let secret: string;
let receiver: Receiver;

const HOSTILE = ['__proto__', 'constructor', 'prototype', 'toString'] as const;

/** A free-form object with every hostile key, some nested, as JSON text (an object literal would set the prototype instead of a `__proto__` key). */
function hostileJson(tag: string): string {
  return `{"__proto__":"p-${tag}","constructor":"c-${tag}","prototype":{"__proto__":{"constructor":"deep-${tag}"},"toString":"nested-${tag}"},"toString":"t-${tag}","plain":"${tag}"}`;
}

/** The keys an answer's object really holds, in order (own properties, `__proto__` included). */
const keysOf = (value: unknown): string[] => Object.keys(value as object);

/** Checks an answer's free-form object against `hostileJson(tag)` by its exact JSON text. */
function expectHostile(value: unknown, tag: string): void {
  expect(JSON.stringify(value)).toBe(hostileJson(tag));
  expect(keysOf(value)).toEqual([...HOSTILE, 'plain']);
}

/** Sends a JSON text body as it is. */
async function send(method: string, path: string, json: string) {
  return api(`${base}${path}`, { method, token: secret, rawBody: json, headers: { 'Content-Type': 'application/json' } });
}

beforeAll(async () => {
  receiver = await startReceiver();
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  secret = runtime.bootstrap.tokens.test_secret;
}, 60_000);

afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
  await receiver.close();
});

describe('meta with __proto__, constructor, prototype and toString keys', () => {
  const resources: Array<[string, string, (meta: string) => string]> = [
    ['products', 'product_id', (meta) => `{"name":"Book","type":"digital","prices":[{"currency":"USD","price":5}],"meta":${meta}}`],
    ['customers', 'customer_id', (meta) => `{"name":"Ada","meta":${meta}}`],
    ['promotions', 'promotion_id', (meta) => `{"name":"P","code":"CODE${Math.random().toString(36).slice(2, 8).toUpperCase()}","discount_type":"percent","discount_percent":0.1,"meta":${meta}}`],
    ['shipping_methods', 'shipping_method_id', (meta) => `{"name":"Post","prices":[{"currency":"USD","price":4}],"meta":${meta}}`],
    ['carts', 'cart_id', (meta) => `{"meta":${meta}}`],
  ];

  for (const [collection, idField, bodyWith] of resources) {
    it(`${collection}: stored and returned on create, read and update`, async () => {
      const created = await send('POST', collection, bodyWith(hostileJson('create')));
      expect(created.status, created.text).toBe(201);
      expectHostile(created.body.meta, 'create');
      const id = created.body[idField];
      const read = await api(`${base}${collection}/${id}`, { token: secret });
      expect(read.status, read.text).toBe(200);
      expectHostile(read.body.meta, 'create');
      const updated = await send('POST', `${collection}/${id}`, `{"meta":${hostileJson('update')}}`);
      expect(updated.status, updated.text).toBe(200);
      expectHostile(updated.body.meta, 'update');
      expectHostile((await api(`${base}${collection}/${id}`, { token: secret })).body.meta, 'update');
    });
  }

  it('a key that looks like the stored form (~__proto__, ~constructor) comes back as sent', async () => {
    const meta = '{"~__proto__":1,"~~constructor":2,"~plain":3,"__proto__":4}';
    const created = await send('POST', 'customers', `{"name":"Tilde","meta":${meta}}`);
    expect(created.status, created.text).toBe(201);
    const read = await api(`${base}customers/${created.body.customer_id}`, { token: secret });
    expect(JSON.stringify(read.body.meta)).toBe(meta);
  });
});

describe('app settings and style', () => {
  it('keeps every key on create and update', async () => {
    const created = await send('POST', 'apps', `{"name":"Shop","alias":"hostile-keys","settings":${hostileJson('settings')},"style":${hostileJson('style')}}`);
    expect(created.status, created.text).toBe(201);
    expectHostile(created.body.settings, 'settings');
    expectHostile(created.body.style, 'style');
    const id = created.body.app_id;
    const updated = await send('POST', `apps/${id}`, `{"settings":${hostileJson('settings2')}}`);
    expect(updated.status, updated.text).toBe(200);
    expectHostile(updated.body.settings, 'settings2');
    const read = await api(`${base}apps/${id}`, { token: secret });
    expectHostile(read.body.settings, 'settings2');
    expectHostile(read.body.style, 'style');
  });
});

describe('event subscription environment variables', () => {
  const variables = '{"__proto__":"p","constructor":"c","prototype":"x","toString":"t"}';

  it('are stored and returned in the object and the array form, on create and update', async () => {
    const created = await send('POST', 'event_subscriptions', `{"event_type":"product:created","method":"http","destination":"${receiver.url}/created","environment_variables":${variables}}`);
    expect(created.status, created.text).toBe(201);
    expect(JSON.stringify(created.body.environment_variables)).toBe(variables);
    const id = created.body.event_subscription_id;
    const asArray = '[{"name":"constructor","value":"c2"},{"name":"__proto__","value":"p2"}]';
    const updated = await send('POST', `event_subscriptions/${id}`, `{"environment_variables":${asArray}}`);
    expect(updated.status, updated.text).toBe(200);
    expect(JSON.stringify(updated.body.environment_variables)).toBe('{"constructor":"c2","__proto__":"p2"}');
    const read = await api(`${base}event_subscriptions/${id}`, { token: secret });
    expect(JSON.stringify(read.body.environment_variables)).toBe('{"constructor":"c2","__proto__":"p2"}');
  });

  it('are delivered with the event, beside data whose meta holds the same keys', async () => {
    const created = await send('POST', 'event_subscriptions', `{"event_type":"product:created","method":"http","destination":"${receiver.url}/delivered","environment_variables":${variables}}`);
    expect(created.status, created.text).toBe(201);
    const product = await send('POST', 'products', `{"name":"Delivered","type":"digital","prices":[{"currency":"USD","price":5}],"meta":${hostileJson('event')}}`);
    expect(product.status, product.text).toBe(201);
    const deliveries = await receiver.receivedAt('/delivered', 1, 30_000);
    const body = JSON.parse(deliveries[0]!.body.toString('utf8'));
    expect(JSON.stringify(body.environment_variables)).toBe(variables);
    expectHostile(body.data.meta, 'event');
  });

  it('a sample delivery sends data with such keys as they are', async () => {
    const created = await send('POST', 'event_subscriptions', `{"event_type":"product:created","method":"http","destination":"${receiver.url}/sample","environment_variables":${variables}}`);
    const id = created.body.event_subscription_id;
    const tested = await send('POST', `event_subscriptions/${id}/test`, `{"data":${hostileJson('sample')}}`);
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body.success, tested.text).toBe(true);
    const [delivery] = await receiver.receivedAt('/sample', 1, 30_000);
    const body = JSON.parse(delivery!.body.toString('utf8'));
    expect(JSON.stringify(body.environment_variables)).toBe(variables);
    expectHostile(body.data, 'sample');
  });
});

describe('keys a field does not allow are refused, never dropped', () => {
  it('an exchange rate named __proto__ or constructor is 400 naming it', async () => {
    for (const key of ['__proto__', 'constructor']) {
      const answer = await send('POST', 'settings/payment', `{"exchange_rates":{"${key}":1.5}}`);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error.meta.property).toBe(`exchange_rates.${key}`);
    }
  });
});
