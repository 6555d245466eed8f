/** Idempotency-Key while the first request is still running (conventions.md 19, concurrency). */
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException, DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { testPlatform } from '../support/platform';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { canonicalJson, runIdempotent } from '../../shared/http/idempotency';
import { configureStore } from '../../shared/store/client';

configureStore({ tableName: 'cartwheel', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:1' } });
const ddb = mockClient(DynamoDBClient);

describe('runIdempotent', () => {
  it('answers 409 in_use (in_progress) while the first request with the key runs, without executing', async () => {
    const body = { comments: 'x' };
    const fingerprint = createHash('sha256').update(`POST /api/v1/auths/secret\n${canonicalJson(body)}`).digest('hex');
    const validation = createHash('md5').update(JSON.stringify(fingerprint)).digest('base64');
    ddb.on(PutItemCommand).rejects(
      new ConditionalCheckFailedException({
        message: 'exists',
        $metadata: {},
        Item: marshall({
          pk: 'idempotency#hash',
          sk: 'api#x',
          status: 'INPROGRESS',
          ttl: Math.floor(Date.now() / 1000) + 3600,
          in_progress_expiration: Date.now() + 20_000,
          validation,
        }),
      }),
    );
    let executed = false;
    const attempt = runIdempotent({
      tokenHash: 'hash',
      key: 'k1',
      method: 'POST',
      path: '/api/v1/auths/secret',
      body,
      requestId: 'R1',
      secrets: testPlatform().secrets,
      lambdaContext: { getRemainingTimeInMillis: () => 20_000, functionName: 'auths', awsRequestId: 'R1' } as never,
      execute: async () => {
        executed = true;
        return { status: 201 };
      },
      errorResult: () => ({ status: 500 }),
    });
    await expect(attempt).rejects.toMatchObject({ status: 409, code: 'in_use', meta: { parameter: 'Idempotency-Key', reason: 'in_progress' } });
    expect(executed).toBe(false);
    const put = ddb.commandCalls(PutItemCommand)[0]!.args[0].input;
    expect(put.Item!.pk!.S).toBe('idempotency#hash');
  });
});

describe('stored answers that hold secrets', () => {
  it('keeps the replay copy of a sensitive answer sealed, and sends the fresh answer in clear', async () => {
    ddb.reset();
    ddb.on(PutItemCommand).resolves({});
    ddb.on(UpdateItemCommand).resolves({});
    const token = 'sk.live.ThisIsTheNewSecretTokenValue0123456789ab';
    const answer = await runIdempotent({
      tokenHash: 'hash2',
      key: 'k2',
      method: 'POST',
      path: '/api/v1/auths/secret',
      body: {},
      requestId: 'R2',
      secrets: testPlatform().secrets,
      lambdaContext: { getRemainingTimeInMillis: () => 20_000, functionName: 'auths', awsRequestId: 'R2' } as never,
      execute: async () => ({ status: 201, body: { token }, sensitive: true }),
      errorResult: () => ({ status: 500 }),
    });
    expect(answer.body).toEqual({ token });
    const stored = JSON.stringify(ddb.commandCalls(UpdateItemCommand).map((call) => call.args[0].input));
    expect(stored).toContain('local:');
    expect(stored).not.toContain(token);
  });
});
