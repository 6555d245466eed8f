/** The pipeline steps compose into other surfaces: a surface takes only the steps it needs. */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { respond } from '../../shared/http/middleware/respond';
import { stateOf, type ApiEvent } from '../../shared/http/middleware/state';
import { tlsRequired } from '../../shared/http/middleware/tls-required';
import { systemClock } from '../../shared/platform/adapters/system-clock';

const event = (proto: string, sourceIp: string): APIGatewayProxyEventV2 =>
  ({
    routeKey: '$default',
    rawPath: '/func/v1/hello',
    rawQueryString: '',
    headers: { host: 'localhost', 'x-forwarded-proto': proto, origin: 'https://shop.example' },
    requestContext: { domainName: 'localhost', http: { method: 'PUT', path: '/func/v1/hello', sourceIp } },
    body: 'raw bytes',
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

/** A raw-body surface (like hosted functions): transport only, no token, no JSON parsing. */
const rawSurface = middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
  .use(respond(systemClock))
  .use(tlsRequired({ edgeSecret: undefined }))
  .handler(async (request) => ({ statusCode: 200, body: `${request.body} via ${stateOf(request).transport!.scheme}` }));

describe('composed surfaces', () => {
  it('run the steps they use and reach their own handler with the shared state', async () => {
    const result = await rawSurface(event('https', '203.0.113.9'), {} as Context);
    expect(result).toEqual({ statusCode: 200, body: 'raw bytes via https' });
  });

  it('answer a step failure with the error envelope and CORS headers', async () => {
    const result = await rawSurface(event('http', '203.0.113.9'), {} as Context);
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body!).error.code).toBe('tls_required');
    expect(result.headers!['Access-Control-Allow-Origin']).toBe('https://shop.example');
    expect(result.headers!['X-Request-Id']).toMatch(/\S/);
  });

  it('never share state between invocations of the same event object', async () => {
    const shared = event('https', '203.0.113.9');
    await Promise.all([rawSurface(shared, {} as Context), rawSurface(shared, {} as Context)]);
    expect((shared as ApiEvent).apiState).toBeUndefined();
  });
});
