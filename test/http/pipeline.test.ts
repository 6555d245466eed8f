/** The API pipeline around actions, with the table mocked: faults, permissions, headers. */
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { routeKey, routesOf } from '../../shared/app/routes';
import { forgetToken } from '../../shared/modules/identity/authenticate';
import { hashToken, newToken } from '../../shared/core/access/tokens';
import { config, resetConfig } from '../../shared/core/config';
import { apiGate } from '../../shared/app/gate';
import { defineFamily, type FamilyActionTable } from '../../shared/app/families';
import { apiHandler } from '../../shared/http/pipeline';
import { testPlatform } from '../support/platform';
import { InvalidStateError } from '../../shared/http/errors';
import { systemClock } from '../../shared/platform/adapters/system-clock';
import { configureStore } from '../../shared/store/client';

configureStore({ tableName: 'cartwheel', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:1' } });
resetConfig();
const ddb = mockClient(DynamoDBDocumentClient);
const token = newToken('sk', 'live');

function allActions(action: () => Promise<never>): FamilyActionTable<'auths'> {
  return Object.fromEntries(routesOf('auths').map((route) => [routeKey(route), action])) as unknown as FamilyActionTable<'auths'>;
}

const event = (key: string, path: string): APIGatewayProxyEventV2 =>
  ({
    routeKey: key,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'localhost:4000', 'x-forwarded-proto': 'http', authorization: `Bearer ${token}` },
    requestContext: { domainName: 'localhost', http: { method: key.split(' ')[0], path, sourceIp: '127.0.0.1' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

beforeEach(() => {
  forgetToken(hashToken(token));
  ddb.reset();
  const record = { pk: `token#${hashToken(token)}`, sk: 'token', auth_id: 'A1', account_id: 'ACCT', mode: 'live', kind: 'secret', prefix: 'sk', last4: 'abcd', permissions: [{ resource: 'auths', methods: ['read'], allow: true }], created_ms: 0, modified_ms: 0 };
  ddb.on(GetCommand).resolves({ Item: record });
  ddb.on(UpdateCommand).resolves({ Attributes: record });
});

describe('apiHandler', () => {
  it('refuses to build a family whose actions and routes disagree', () => {
    // The compiler refuses both tables; the load-time check catches those it cannot see.
    // @ts-expect-error every route of the family needs an action
    expect(() => defineFamily('auths', {})).toThrow(/has no action/);
    // @ts-expect-error an action for a route outside the family
    expect(() => defineFamily('auths', { ...allActions(async () => { throw new Error(); }), 'GET /api/v1/nope': async () => ({ status: 200 }) })).toThrow(/not in the route table/);
  });

  it('turns an unexpected fault into a detail-free 500 unspecified_error', async () => {
    const handler = apiHandler(defineFamily('auths', allActions(async () => { throw new Error('database password is hunter2'); })), testPlatform(), apiGate(systemClock, config()));
    const result = await handler(event('GET /api/v1/auths', '/api/v1/auths'), {} as Context);
    expect(result.statusCode).toBe(500);
    expect(result.headers!['Content-Type']).toBe('application/json');
    const body = JSON.parse(result.body!);
    expect(body.error).toMatchObject({ type: 'internal_server_error', code: 'unspecified_error', status: 500, meta: null });
    expect(result.body).not.toContain('hunter2');
    expect(body.error.reference).toBe(result.headers!['X-Request-Id']);
  });

  it('passes domain errors through with their code and status', async () => {
    const handler = apiHandler(defineFamily('auths', allActions(async () => { throw new InvalidStateError('Nope.', { reason: 'test' }); })), testPlatform(), apiGate(systemClock, config()));
    const result = await handler(event('GET /api/v1/auths', '/api/v1/auths'), {} as Context);
    expect(result.statusCode).toBe(422);
    expect(JSON.parse(result.body!).error).toMatchObject({ type: 'unprocessable', code: 'invalid_state', meta: { reason: 'test' } });
  });

  it('checks the route permission before running the action', async () => {
    let ran = false;
    const handler = apiHandler(defineFamily('auths', allActions(async () => { ran = true; throw new Error(); })), testPlatform(), apiGate(systemClock, config()));
    const result = await handler(event('DELETE /api/v1/auths/{auth_id}', '/api/v1/auths/X'), {} as Context);
    expect(result.statusCode).toBe(403);
    expect(ran).toBe(false);
  });
});
