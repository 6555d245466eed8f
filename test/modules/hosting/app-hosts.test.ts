/**
 * App hosts (hosting.md §1) and the tenant rule of the API proxied on them (§9): a token is
 * answered on an app host only when it belongs to that host's account; a forwarded host only
 * counts when the platform's own edge vouched for it.
 */
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { routeKey, routesOf } from '../../../shared/app/routes';
import { forgetToken } from '../../../shared/modules/identity/authenticate';
import { hashToken, newToken } from '../../../shared/core/access/tokens';
import { config, resetConfig } from '../../../shared/core/config';
import { appHostAccount, tokenFitsHost } from '../../../shared/http/app-hosts';
import { apiGate } from '../../../shared/app/gate';
import { defineFamily, type FamilyActionTable } from '../../../shared/app/families';
import { apiHandler } from '../../../shared/http/pipeline';
import { testPlatform } from '../../support/platform';
import { systemClock } from '../../../shared/platform/adapters/system-clock';
import { configureStore } from '../../../shared/store/client';

describe('appHostAccount', () => {
  it('reads the account from <account_id>.<apps domain>, case-insensitively and with or without ports', () => {
    expect(appHostAccount('xg5908xmx3mh.apps.localhost:4000', 'apps.localhost:4000')).toBe('XG5908XMX3MH');
    expect(appHostAccount('XG5908XMX3MH.APPS.LOCALHOST:4000', 'apps.localhost:4000')).toBe('XG5908XMX3MH');
    expect(appHostAccount('xg5908xmx3mh.apps.localhost', 'apps.localhost:4000')).toBe('XG5908XMX3MH');
    expect(appHostAccount('xg5908xmx3mh.apps.example.test', 'apps.example.test')).toBe('XG5908XMX3MH');
  });

  it('is undefined for other hosts, nested labels, odd characters or no apps domain', () => {
    for (const host of ['localhost:4000', 'apps.localhost:4000', 'a.b.apps.localhost:4000', 'x_y.apps.localhost', '.apps.localhost', 'xapps.localhost', 'evil.test', undefined]) {
      expect(appHostAccount(host, 'apps.localhost:4000'), String(host)).toBeUndefined();
    }
    expect(appHostAccount('abc.apps.example.test', '')).toBeUndefined();
  });

  it('lets a token through on its own app host and on every other host', () => {
    expect(tokenFitsHost('ACCT1', 'acct1.apps.example.test', 'apps.example.test')).toBe(true);
    expect(tokenFitsHost('ACCT1', 'api.example.test', 'apps.example.test')).toBe(true);
    expect(tokenFitsHost('ACCT1', 'acct2.apps.example.test', 'apps.example.test')).toBe(false);
  });
});

describe('the API on an app host', () => {
  configureStore({ tableName: 'cartwheel', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:1' } });
  process.env.CARTWHEEL_APPS_DOMAIN = 'apps.example.test';
  process.env.CARTWHEEL_EDGE_SECRET = 'edge-secret';
  resetConfig();
  const ddb = mockClient(DynamoDBDocumentClient);
  const token = newToken('sk', 'live');
  const ran: string[] = [];
  const actions = Object.fromEntries(
    routesOf('auths').map((route) => [routeKey(route), async (context: { baseUrl: string }) => (ran.push(context.baseUrl), { status: 200, body: { url: `${context.baseUrl}auths/me` } })]),
  ) as unknown as FamilyActionTable<'auths'>;
  const handler = apiHandler(defineFamily('auths', actions), testPlatform(), apiGate(systemClock, config()));

  beforeEach(() => {
    forgetToken(hashToken(token));
    ddb.reset();
    ran.length = 0;
    const record = { pk: `token#${hashToken(token)}`, sk: 'token', auth_id: 'A1', account_id: 'ACCT1', mode: 'live', kind: 'secret', prefix: 'sk', last4: 'abcd', permissions: [], created_ms: 0, modified_ms: 0 };
    ddb.on(GetCommand).resolves({ Item: record });
    ddb.on(UpdateCommand).resolves({ Attributes: record });
  });

  const call = (headers: Record<string, string>) =>
    handler(
      {
        routeKey: 'GET /api/v1/auths/me',
        rawPath: '/api/v1/auths/me',
        rawQueryString: '',
        headers: { host: 'api.example.test', 'x-forwarded-proto': 'https', authorization: `Bearer ${token}`, ...headers },
        requestContext: { domainName: 'api.example.test', http: { method: 'GET', path: '/api/v1/auths/me', sourceIp: '203.0.113.9' } },
        isBase64Encoded: false,
      } as unknown as APIGatewayProxyEventV2,
      {} as Context,
    );

  it('answers the host’s own account, with links on the app host', async () => {
    const result = await call({ 'x-forwarded-host': 'acct1.apps.example.test', 'x-cartwheel-edge': 'edge-secret' });
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body!).url).toBe('https://acct1.apps.example.test/api/v1/auths/me');
  });

  it('refuses another account’s token with 401 invalid_token before the action runs', async () => {
    const result = await call({ 'x-forwarded-host': 'ACCT2.apps.example.test', 'x-cartwheel-edge': 'edge-secret' });
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body!).error).toMatchObject({ code: 'invalid_token', status: 401 });
    expect(ran).toEqual([]);
  });

  it('ignores a forwarded host the edge did not vouch for', async () => {
    const result = await call({ 'x-forwarded-host': 'acct2.apps.example.test', 'x-cartwheel-edge': 'wrong' });
    expect(result.statusCode).toBe(200);
    expect(ran).toEqual(['https://api.example.test/api/v1/']);
  });
});
