/**
 * The access line (shared/http/access-log.ts): one JSON line per request on stdout through the
 * Powertools logger, the same in Lambda and locally, with the request id the answer carries,
 * the route template, status, latency, account and mode, and nothing from the request itself
 * (no token, no path ids, no query, no body, no card data), on the success and error paths.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Access lines are INFO; the other tests run at WARN (vitest.config.ts).
vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
vi.stubEnv('POWERTOOLS_DEV', '');

const TOKEN = 'sk_test_accessline_secret_0123456789';
const CARD = '4242424242424242';

async function linesWritten(run: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(chunk.toString());
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return written.join('').split('\n').filter((line) => line.trim().startsWith('{')).map((line) => JSON.parse(line) as Record<string, any>);
}

const event = (method: string, path: string, routeKey: string): APIGatewayProxyEventV2 =>
  ({
    routeKey,
    rawPath: path,
    rawQueryString: `token=${TOKEN}`,
    headers: { host: 'api.example', 'x-forwarded-proto': 'https', authorization: `Bearer ${TOKEN}` },
    requestContext: { domainName: 'api.example', http: { method, path, sourceIp: '203.0.113.9' } },
    body: JSON.stringify({ card: { number: CARD, cvv: '123' } }),
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

describe('access line', () => {
  let handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
  let unmatched: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
  beforeAll(async () => {
    const { respond } = await import('../../shared/http/middleware/respond');
    const { route } = await import('../../shared/http/middleware/route');
    const { stateOf } = await import('../../shared/http/middleware/state');
    const { systemClock } = await import('../../shared/platform/adapters/system-clock');
    const { fallback } = await import('../../shared/http/fallback');
    const { NotFoundError } = await import('../../shared/http/errors');
    const routes = [{ method: 'POST', path: '/api/v1/carts/{cart_id}/payments', family: 'payments', access: { kind: 'public' } }] as never[];
    unmatched = fallback(routes, { edgeSecret: undefined });
    handler = middy<any, APIGatewayProxyStructuredResultV2, Error, Context>()
      .use(respond(systemClock))
      .use(route(routes, 'payments', unmatched))
      .handler(async (request) => {
        // What authentication learns (shared/http/middleware/authentication.ts).
        stateOf(request).principal = { accountId: 'acct_lines', mode: 'test' } as never;
        if (request.rawPath.endsWith('/missing/payments')) throw new NotFoundError('No such cart.');
        return { statusCode: 201, headers: { 'X-Request-Id': stateOf(request).requestId }, body: '{}' };
      }) as never;
  });
  afterEach(() => vi.restoreAllMocks());

  it('writes one line with exactly the request id it answers with, route, status, latency, account and mode', async () => {
    let answer!: APIGatewayProxyStructuredResultV2;
    const lines = await linesWritten(async () => {
      answer = await handler(event('POST', '/api/v1/carts/cart_1/payments', 'ANY /api/v1/carts/{proxy+}'), {} as Context);
    });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatchObject({ level: 'INFO', message: 'access', service: 'cartwheel', request_id: answer.headers!['X-Request-Id'], method: 'POST', route: 'POST /api/v1/carts/{cart_id}/payments', status: 201, account_id: 'acct_lines', mode: 'test' });
    expect(typeof line.latency_ms).toBe('number');
    expect(Object.keys(line).sort()).toEqual(['account_id', 'latency_ms', 'level', 'message', 'method', 'mode', 'request_id', 'route', 'sampling_rate', 'service', 'status', 'timestamp'].sort());
    const text = JSON.stringify(line);
    for (const secret of [TOKEN, CARD, 'cart_1', '123']) expect(text).not.toContain(secret);
  });

  it('writes it on the error path too, with the error status', async () => {
    let answer!: APIGatewayProxyStructuredResultV2;
    const lines = await linesWritten(async () => {
      answer = await handler(event('POST', '/api/v1/carts/missing/payments', 'POST /api/v1/carts/{cart_id}/payments'), {} as Context);
    });
    expect(answer.statusCode).toBe(404);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: 'access', request_id: answer.headers!['X-Request-Id'], status: 404, route: 'POST /api/v1/carts/{cart_id}/payments' });
  });

  it('writes it for what no route matches (the fallback), without account or mode', async () => {
    let answer!: APIGatewayProxyStructuredResultV2;
    const lines = await linesWritten(async () => {
      answer = await handler(event('GET', '/api/v1/carts/cart_1/payments', 'ANY /api/v1/carts/{proxy+}'), {} as Context);
    });
    expect(answer.statusCode).toBe(405);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: 'access', request_id: answer.headers!['X-Request-Id'], status: 405, method: 'GET', route: 'ANY /api/v1/carts/{proxy+}' });
    expect(lines[0]!.account_id).toBeUndefined();
    expect(JSON.stringify(lines[0])).not.toContain(TOKEN);
  });
});
