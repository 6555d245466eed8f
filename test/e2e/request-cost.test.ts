/**
 * End-to-end over HTTP against a real local runtime: every API answer carries
 * `x-cartwheel-dynamodb` with what its handler cost in DynamoDB (calls, sequential rounds and
 * the operations of each round); the runtime's own pages do not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COST_HEADER, parseCost } from '../../shared/store/request-cost';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let secret: string;

beforeAll(async () => {
  runtime = await startRuntime();
  base = runtime.bootstrap.api_url;
  secret = runtime.bootstrap.tokens.test_secret;
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

describe('x-cartwheel-dynamodb', () => {
  it('reports the calls and rounds of an authenticated product read', async () => {
    const created = await api(`${base}products`, { method: 'POST', token: secret, body: { name: 'Costed', type: 'digital', prices: [{ currency: 'USD', price: 5 }] } });
    expect(created.status).toBe(201);
    const write = parseCost(created.headers.get(COST_HEADER));
    expect(write!.calls).toBeGreaterThanOrEqual(2);

    const list = await api(`${base}products?limit=10`, { token: secret });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const cost = parseCost(list.headers.get(COST_HEADER));
    expect(cost).toBeDefined();
    expect(cost!.calls).toBeGreaterThanOrEqual(1);
    expect(cost!.rounds).toBeGreaterThanOrEqual(1);
    expect(cost!.rounds).toBeLessThanOrEqual(cost!.calls);
    // The operations listed round by round add up to the calls counted.
    expect(cost!.roundOperations).toHaveLength(cost!.rounds);
    expect(cost!.roundOperations.flat()).toHaveLength(cost!.calls);
    expect(Object.keys(cost!.byOperation).some((operation) => operation === 'Query' || operation === 'GetItem')).toBe(true);
  });

  it('is on refusals too: no token costs nothing, an unknown token its lookup', async () => {
    const anonymous = await api(`${base}products`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get(COST_HEADER)).toBe('calls=0; rounds=0');

    const unknown = await api(`${base}products`, { token: `sk.test.${'0'.repeat(40)}` });
    expect(unknown.status).toBe(401);
    expect(parseCost(unknown.headers.get(COST_HEADER))!.calls).toBeGreaterThanOrEqual(1);
  });

  it('is not on the runtime’s own pages', async () => {
    const health = await api(`${runtime.url}/_local/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get(COST_HEADER)).toBeNull();
  });

  it('reports the runtime’s memory on /_local/metrics, the live heap after a full collection with gc=1', async () => {
    // Some work first, so there is garbage to collect.
    for (let i = 0; i < 20; i++) expect((await api(`${base}products?limit=50`, { token: runtime.bootstrap.tokens.test_secret })).status).toBe(200);
    const plain = (await api(`${runtime.url}/_local/metrics`)).body.memory;
    const collected = (await api(`${runtime.url}/_local/metrics?gc=1`)).body.memory;
    for (const memory of [plain, collected]) expect(memory.heapUsed).toBeGreaterThan(0);
    expect(collected.heapUsed).toBeLessThanOrEqual(collected.heapTotal);
    expect(collected.rss).toBeGreaterThan(collected.heapUsed);
  });

  it('reports V8’s spaces and the local read cache on /_local/metrics, so a soak can tell a cache filling from a leak', async () => {
    const token = runtime.bootstrap.tokens.test_secret;
    const before = (await api(`${runtime.url}/_local/metrics`)).body;
    for (let i = 0; i < 3; i++) expect((await api(`${base}products?limit=5`, { token })).status).toBe(200);
    const after = (await api(`${runtime.url}/_local/metrics`)).body;
    // Each authenticated request reads its token's record: the cache answers, and counts it.
    expect(after.read_cache.hits).toBeGreaterThan(before.read_cache.hits);
    expect(after.read_cache.entries).toBeGreaterThan(0);
    expect(after.read_cache.chars).toBeGreaterThan(0);
    const oldSpace = after.heap_spaces.old_space as { size: number; used: number; physical: number };
    expect(oldSpace.used).toBeGreaterThan(0);
    expect(oldSpace.used).toBeLessThanOrEqual(oldSpace.size);
    expect(Object.keys(after.heap_spaces)).toContain('new_space');
    expect(typeof after.transaction_tokens).toBe('number');
    // The runtime runs with npm start's 1 GiB old-generation cap (V8 adds the young generation).
    expect(after.heap_size_limit).toBeGreaterThanOrEqual(1024 * 2 ** 20);
    expect(after.heap_size_limit).toBeLessThan(1280 * 2 ** 20);
  });
});
