/**
 * A route's body kind (`body` in the route table) picks its parser in the pipeline: driven through
 * `apiHandler` with a synthetic route table and API Gateway v2 events, as both runtimes call it.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiGate } from '../../shared/http/gate';
import { apiHandler } from '../../shared/http/pipeline';
import type { RouteDefinition } from '../../shared/http/routes';
import { withBody, type ApiContext, type ApiResult } from '../../shared/http/types';
import { testPlatform } from '../support/platform';

/** A gate for public routes called without a token: nothing to authenticate, no bucket to draw from. */
const gate: ApiGate = {
  authenticate: async () => {
    throw new Error('no token is sent');
  },
  throttleAnonymous: async () => undefined,
  allowedOrigins: async () => [],
  appsDomain: () => '',
  edgeSecret: undefined,
  accountRendering: async () => {
    throw new Error('no action here renders');
  },
};

const routes: RouteDefinition[] = [
  { method: 'POST', path: '/api/v1/tokens', family: 'test', access: { kind: 'public' }, body: 'form-or-json' },
  { method: 'POST', path: '/api/v1/sign-in', family: 'test', access: { kind: 'public' }, body: 'form' },
  { method: 'POST', path: '/api/v1/hooks', family: 'test', access: { kind: 'public' }, body: 'raw' },
  { method: 'POST', path: '/api/v1/things', family: 'test', access: { kind: 'public' } },
  { method: 'POST', path: '/api/v1/uploads', family: 'test', access: { kind: 'public' }, body: 'multipart', multipart: { maxBytes: 2048 } },
];

/** What each action saw of its request. */
let seen: Pick<ApiContext, 'body' | 'rawBody'> | undefined;
const echo = async (context: ApiContext): Promise<ApiResult> => {
  seen = { body: context.body, rawBody: context.rawBody };
  return { status: 200, body: { ok: true } };
};
const quantity = withBody(z.object({ quantity: z.coerce.number().int() }), async (context) => {
  seen = { body: context.body, rawBody: context.rawBody };
  return { status: 200, body: { quantity: context.body.quantity } };
});

const handler = apiHandler(
  {
    family: 'test',
    routes,
    actions: { 'POST /api/v1/tokens': echo, 'POST /api/v1/sign-in': quantity, 'POST /api/v1/hooks': echo, 'POST /api/v1/things': echo, 'POST /api/v1/uploads': echo },
  },
  testPlatform(),
  gate,
);

function post(path: string, body: string | Buffer | undefined, contentType?: string): Promise<{ statusCode?: number; body?: string; headers?: Record<string, unknown> }> {
  seen = undefined;
  const event = {
    routeKey: `POST ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'localhost:4000', 'x-forwarded-proto': 'http', ...(contentType ? { 'content-type': contentType } : {}) },
    requestContext: { domainName: 'localhost', http: { method: 'POST', path, sourceIp: '127.0.0.1' } },
    ...(body === undefined ? {} : { body: Buffer.isBuffer(body) ? body.toString('base64') : body }),
    isBase64Encoded: Buffer.isBuffer(body),
  } as unknown as APIGatewayProxyEventV2;
  return handler(event, {} as Context);
}

const errorOf = (result: { body?: string }) => JSON.parse(result.body!).error;

describe('a form-or-json route', () => {
  it('hands the action a JSON body and a form body alike', async () => {
    expect((await post('/api/v1/tokens', '{"grant_type":"refresh_token","refresh_token":"rt.x"}', 'application/json')).statusCode).toBe(200);
    expect(seen).toEqual({ body: { grant_type: 'refresh_token', refresh_token: 'rt.x' }, rawBody: undefined });
    expect((await post('/api/v1/tokens', 'grant_type=refresh_token&refresh_token=rt.x', 'application/x-www-form-urlencoded')).statusCode).toBe(200);
    expect(seen).toEqual({ body: { grant_type: 'refresh_token', refresh_token: 'rt.x' }, rawBody: undefined });
  });

  it('refuses text/plain with the 400 invalid_syntax envelope naming both types, before the action', async () => {
    const result = await post('/api/v1/tokens', 'grant_type=refresh_token', 'text/plain');
    expect(result.statusCode).toBe(400);
    expect(result.headers!['Content-Type']).toBe('application/json');
    expect(errorOf(result)).toMatchObject({
      code: 'invalid_syntax',
      status: 400,
      meta: { header: 'Content-Type', expected: 'application/json or application/x-www-form-urlencoded' },
    });
    expect(seen).toBeUndefined();
  });
});

describe('other body kinds', () => {
  it('a form route validates its fields against the declared schema (strings converted), and refuses JSON', async () => {
    expect((await post('/api/v1/sign-in', 'quantity=2&__proto__=x', 'application/x-www-form-urlencoded')).body).toBe('{"quantity":2}');
    const refused = await post('/api/v1/sign-in', '{"quantity":2}', 'application/json');
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused)).toMatchObject({ code: 'invalid_syntax', meta: { header: 'Content-Type', expected: 'application/x-www-form-urlencoded' } });
  });

  it('a raw route hands the action the bytes as sent, whatever their type, and no parsed body', async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0x20, 0x7d]);
    expect((await post('/api/v1/hooks', bytes, 'application/json')).statusCode).toBe(200);
    expect(seen!.body).toBeUndefined();
    expect(seen!.rawBody!.equals(bytes)).toBe(true);
    const big = await post('/api/v1/hooks', Buffer.alloc(1024 * 1024 + 1), 'application/octet-stream');
    expect(big.statusCode).toBe(422);
    expect(errorOf(big)).toMatchObject({ code: 'account_limit_exceeded', meta: { limit_bytes: 1048576 } });
  });

  it('a route that says nothing stays JSON only', async () => {
    expect((await post('/api/v1/things', '{"a":1}', 'application/json')).statusCode).toBe(200);
    expect(seen).toEqual({ body: { a: 1 }, rawBody: undefined });
    expect(errorOf(await post('/api/v1/things', 'a=1', 'application/x-www-form-urlencoded'))).toMatchObject({ code: 'invalid_syntax', meta: { header: 'Content-Type', expected: 'application/json' } });
  });

  it('a multipart route leaves its body to the action, unparsed', async () => {
    const form = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhi\r\n--b--\r\n';
    expect((await post('/api/v1/uploads', form, 'multipart/form-data; boundary=b')).statusCode).toBe(200);
    expect(seen!.body).toBeUndefined();
    expect(seen!.rawBody!.toString()).toBe(form);
  });
});
