/**
 * The DynamoDB calls authentication makes are the behaviour here (cost per request, how a
 * revoked or exhausted token is noticed), so these tests count them with aws-sdk-client-mock.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authenticate, cachedTokenCount, forgetToken } from '../../../shared/modules/identity/authenticate';
import { bindingWritten } from '../../../shared/modules/identity/bindings';
import type { TokenRecord } from '../../../shared/core/access/token-records';
import { hashToken, newToken } from '../../../shared/core/access/tokens';
import { config, resetConfig } from '../../../shared/core/config';
import { ManualClock } from '../../../infra/local/manual-clock';
import { configureStore } from '../../../shared/store/client';

configureStore({ tableName: 'cartwheel', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:1' } });

const ddb = mockClient(DynamoDBDocumentClient);
const T0 = Date.parse('2026-11-21T12:00:00Z');

/** A token's item as stored: its record's attributes with its key and index keys. */
function record(token: string, extra: Partial<TokenRecord> = {}): Omit<TokenRecord, 'token_hash'> & Record<string, unknown> {
  return {
    pk: `token#${hashToken(token)}`, sk: 'token', auth_id: 'AUTH1', account_id: 'ACCT1', mode: 'live', kind: 'secret', prefix: 'sk',
    last4: token.slice(-4), permissions: [], created_ms: T0, modified_ms: T0, gsi1pk: 'x', gsi1sk: 'y', gsi2pk: 'x', gsi2sk: 'y', ...extra,
  };
}

function calls() {
  return { gets: ddb.commandCalls(GetCommand).length, updates: ddb.commandCalls(UpdateCommand).length };
}

let clock: ManualClock;

beforeEach(() => {
  ddb.reset();
  clock = new ManualClock(T0);
  process.env.CARTWHEEL_RATE_PER_TOKEN = '100/200';
  resetConfig();
});

describe('authenticate', () => {
  it('refuses malformed and refresh tokens without touching the table', async () => {
    await expect(authenticate(undefined, clock, config().rateLimits.perToken)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(authenticate('nope', clock, config().rateLimits.perToken)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(authenticate(newToken('rt', 'live'), clock, config().rateLimits.perToken)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(calls()).toEqual({ gets: 0, updates: 0 });
  });

  it('refuses an unknown token: its use write is refused and one consistent read confirms it is gone', async () => {
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'refused', $metadata: {} }));
    ddb.on(GetCommand).resolves({});
    await expect(authenticate(newToken('sk', 'live'), clock, config().rateLimits.perToken)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(calls()).toEqual({ gets: 1, updates: 1 });
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead).toBe(true);
  });

  it('authenticates a token it has never seen with one call: the use write answers the record', async () => {
    const token = newToken('lt', 'test');
    const stored = record(token, { kind: 'limited', prefix: 'lt', mode: 'test', expires_at_ms: T0 + 1000 });
    ddb.on(UpdateCommand).callsFake((input) => ({ Attributes: { ...stored, rl_tat: input.ExpressionAttributeValues[':rl_next'], last_used_ms: T0 } }));
    const principal = await authenticate(token, clock, config().rateLimits.perToken);
    expect(principal).toMatchObject({ accountId: 'ACCT1', mode: 'test', kind: 'limited' });
    expect(calls()).toEqual({ gets: 0, updates: 1 });
    // The guess for an unknown bucket is a full one, and the write holds only for a live token.
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toContain('attribute_not_exists(rl_tat) OR rl_tat <= :rl_now');
    expect(input.ConditionExpression).toContain('expires_at_ms > :now');
    expect(input.ReturnValues).toBe('ALL_NEW');
    forgetToken(hashToken(token));
  });

  it('a wrong guess about a busy bucket costs one more write, decided from the stored TAT it answers', async () => {
    const token = newToken('sk', 'live');
    const busy = record(token, { rl_tat: T0 + 50 });
    let attempt = 0;
    ddb.on(UpdateCommand).callsFake((input) => {
      if (attempt++ === 0) throw new ConditionalCheckFailedException({ message: 'refused', $metadata: {}, Item: marshall(busy) });
      return { Attributes: { ...busy, rl_tat: T0 + 50 + input.ExpressionAttributeValues[':rl_add'], last_used_ms: T0 } };
    });
    await authenticate(token, clock, config().rateLimits.perToken);
    expect(calls()).toEqual({ gets: 0, updates: 2 });
    expect(ddb.commandCalls(UpdateCommand)[1]!.args[0].input.UpdateExpression).toContain('rl_tat = rl_tat + :rl_add');
    forgetToken(hashToken(token));
  });

  it('keeps a binding this process wrote in the cached record, so a request within the lease needs no call', async () => {
    const token = newToken('lt', 'test');
    const stored = record(token, { kind: 'limited', prefix: 'lt', mode: 'test', expires_at_ms: T0 + 1000 });
    ddb.on(UpdateCommand).callsFake((input) => ({ Attributes: { ...stored, rl_tat: input.ExpressionAttributeValues[':rl_next'] ?? 0, last_used_ms: T0 } }));
    await authenticate(token, clock, config().rateLimits.perToken); // a lease of 4 slots: 3 left
    const first = await authenticate(token, clock, config().rateLimits.perToken); // 2 left
    bindingWritten(first, 'carts/CART1');
    bindingWritten(first, 'carts/CART1');
    const writes = calls().updates;
    const second = await authenticate(token, clock, config().rateLimits.perToken);
    expect(second.record.bindings).toEqual(['carts/CART1']);
    expect(calls()).toEqual({ gets: 0, updates: writes });
    // Another change to the record (no path): forgotten, so the next use writes and takes the stored record.
    bindingWritten(second);
    const third = await authenticate(token, clock, config().rateLimits.perToken);
    expect(third.record.bindings).toBeUndefined();
    expect(calls().updates).toBe(writes + 1);
    forgetToken(hashToken(token));
  });

  it('drops tokens idle for ten seconds when it caches another, so the cache holds seconds of shoppers, not all of them', async () => {
    let now = 1_000_000;
    const performanceNow = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      ddb.on(UpdateCommand).callsFake((input) => ({ Attributes: { ...record('x'), pk: input.Key.pk, rl_tat: input.ExpressionAttributeValues[':rl_next'] ?? 0, last_used_ms: T0 } }));
      const before = cachedTokenCount();
      const early = [newToken('lt', 'live'), newToken('lt', 'live'), newToken('lt', 'live')];
      for (const token of early) await authenticate(token, clock, config().rateLimits.perToken);
      expect(cachedTokenCount()).toBe(before + 3);
      now += 9_000;
      const late = newToken('lt', 'live');
      await authenticate(late, clock, config().rateLimits.perToken);
      expect(cachedTokenCount()).toBe(before + 4);
      now += 2_000; // the first three are now 11 s idle, the fourth 2 s
      const latest = newToken('lt', 'live');
      await authenticate(latest, clock, config().rateLimits.perToken);
      expect(cachedTokenCount()).toBe(2);
      for (const token of [late, latest]) forgetToken(hashToken(token));
    } finally {
      performanceNow.mockRestore();
    }
  });

  it('costs no read and a few lease writes for many requests of a busy token', async () => {
    const token = newToken('sk', 'live');
    const stored = record(token);
    ddb.on(UpdateCommand).callsFake((input) => ({ Attributes: { ...stored, rl_tat: input.ExpressionAttributeValues[':rl_next'] ?? 0, last_used_ms: T0 } }));
    for (let i = 0; i < 40; i++) await authenticate(token, clock, config().rateLimits.perToken);
    const { gets, updates } = calls();
    expect(gets).toBe(0);
    // Leases of 4, 8, 16, 32 slots cover 40 requests.
    expect(updates).toBe(4);
    forgetToken(hashToken(token));
  });

  it('reports an expired token, by the platform clock', async () => {
    const token = newToken('sk', 'live');
    ddb.on(GetCommand).resolves({ Item: record(token, { expires_at_ms: T0 + 1000 }) });
    ddb.on(UpdateCommand).resolves({ Attributes: record(token, { expires_at_ms: T0 + 1000, last_used_ms: T0 }) });
    const principal = await authenticate(token, clock, config().rateLimits.perToken);
    expect(principal.expiresAtMs).toBe(T0 + 1000);
    clock.set(T0 + 1000);
    await expect(authenticate(token, clock, config().rateLimits.perToken)).rejects.toMatchObject({ code: 'invalid_token', message: 'The token has expired.' });
    forgetToken(hashToken(token));
  });

  it('slides limited tokens: the window restarts with each use', async () => {
    const token = newToken('lt', 'test');
    const stored = record(token, { kind: 'limited', prefix: 'lt', mode: 'test', expires_at_ms: T0 + 1000 });
    ddb.on(GetCommand).resolves({ Item: stored });
    ddb.on(UpdateCommand).callsFake((input) => ({ Attributes: { ...stored, expires_at_ms: input.ExpressionAttributeValues[':slide'], last_used_ms: T0 } }));
    const principal = await authenticate(token, clock, config().rateLimits.perToken);
    expect(principal.expiresAtMs).toBe(T0 + 14 * 24 * 3600 * 1000);
    const update = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.UpdateExpression).toContain('expires_at_ms = :slide');
    expect(update.ConditionExpression).toContain('expires_at_ms > :now');
    forgetToken(hashToken(token));
  });

  it('notices a revocation made elsewhere at the next lease write, and forgets the token', async () => {
    const token = newToken('sk', 'live');
    ddb.on(GetCommand).resolvesOnce({ Item: record(token) }).resolves({});
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));
    await expect(authenticate(token, clock, config().rateLimits.perToken)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(authenticate(token, clock, config().rateLimits.perToken)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(calls().gets).toBe(3);
  });

  it('answers 429 with the wait until a slot frees when the shared bucket is empty', async () => {
    const token = newToken('sk', 'live');
    // The bucket is 1.5 s past its tolerance (burst 200 at 100/s = 1.99 s ahead of now).
    const full = record(token, { rl_tat: T0 + 1990 + 1500 });
    ddb.on(GetCommand).resolves({ Item: full });
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {}, Item: marshall(full) }));
    await expect(authenticate(token, clock, config().rateLimits.perToken)).rejects.toMatchObject({ code: 'request_limit_exceeded', headers: { 'Retry-After': '2' } });
    forgetToken(hashToken(token));
  });
});

describe('per-IP buckets of public endpoints', () => {
  it('creates the bucket on first use, increments it under load and refuses when empty', async () => {
    const { takeFromBucket } = await import('../../../shared/modules/identity/rate-limit');
    const limit = { rate: 10, burst: 20 };
    const key = { pk: 'ratelimit#ip#10.0.0.1', sk: 'bucket' };
    ddb.on(UpdateCommand).resolves({});
    await takeFromBucket(key, limit, clock);
    const first = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(first.ConditionExpression).toBe('(attribute_not_exists(rl_tat) OR rl_tat <= :rl_now)');
    expect(first.ExpressionAttributeValues![':rl_next']).toBe(T0 + 100);

    // Another request raced ahead: the stored TAT is in the future but within the tolerance.
    ddb.reset();
    ddb.on(UpdateCommand)
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'failed', $metadata: {}, Item: marshall({ rl_tat: T0 + 500 }) }))
      .resolves({});
    await takeFromBucket(key, limit, clock);
    const second = ddb.commandCalls(UpdateCommand)[1]!.args[0].input;
    expect(second.UpdateExpression).toContain('rl_tat = rl_tat + :rl_add');

    ddb.reset();
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {}, Item: marshall({ rl_tat: T0 + 1900 + 3000 }) }));
    await expect(takeFromBucket(key, limit, clock)).rejects.toMatchObject({ status: 429, headers: { 'Retry-After': '3' } });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });
});
