/**
 * The pure parts of invoking a hosted function (functions.md §7.2, §7.5, §7.6; events.md §9):
 * the event a function receives, how its result becomes the HTTP answer, how failures are
 * answered, and which destinations name a function (the concurrency limit: invocation-slots.test.ts).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../shared/core/errors';
import { answerOf, responseOf } from '../../../shared/modules/functions/invoke/answer';
import { deliveryEvent, invokeEvent } from '../../../shared/modules/functions/invoke/event';
import { invokedFunctionId } from '../../../shared/modules/functions/invoke/destination';

const origin = { accountId: 'ACCT00000001', mode: 'test' as const, functionId: 'FN0000000001', requestId: 'REQ000000001', sourceIp: '203.0.113.7' };

function apiEvent(overrides: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'ANY /func/v1/{proxy+}',
    rawPath: '/func/v1/FN0000000001/quotes/eu',
    rawQueryString: 'region=eu&region=us&token=sk.test.secret&x=1',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk.test.other', 'x-account-id': 'SPOOFED', 'X-Test': 'spoof', 'x-cartwheel-edge': 'edge-secret', 'user-agent': 'curl/8' },
    requestContext: { http: { method: 'POST', path: '/func/v1/FN0000000001/quotes/eu', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'curl/8' } } as APIGatewayProxyEventV2['requestContext'],
    body: '{"country":"ES"}',
    isBase64Encoded: false,
    ...overrides,
  };
}

/** The API error a thunk throws. */
function thrown(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('the event a function receives (§7.2)', () => {
  it('drops a query credential from the path and the parameters, keeping every other value', () => {
    const event = invokeEvent(apiEvent(), origin, 'query');
    expect(event.path).toBe('/func/v1/FN0000000001/quotes/eu?region=eu&region=us&x=1');
    expect(event.queryStringParameters).toEqual({ region: 'us', x: '1' });
    expect(event.multiValueQueryStringParameters).toEqual({ region: ['eu', 'us'], x: ['1'] });
    expect(event.headers.authorization).toBe('Bearer sk.test.other');
  });

  it('drops a header credential, client copies of the platform headers and the edge secret, and sets the three platform headers', () => {
    const event = invokeEvent(apiEvent(), origin, 'header');
    expect(event.headers.authorization).toBeUndefined();
    expect(event.queryStringParameters.token).toBe('sk.test.secret');
    expect(event.headers['x-cartwheel-edge']).toBeUndefined();
    expect(event.headers['x-account-id']).toBeUndefined();
    expect(event.headers).toMatchObject({ 'X-Account-Id': 'ACCT00000001', 'X-Test': 'true', 'X-Hosted-Function-Id': 'FN0000000001', 'content-type': 'application/json' });
    expect(Object.keys(event.headers).filter((name) => name.toLowerCase() === 'x-test')).toEqual(['X-Test']);
    expect(event).toMatchObject({ httpMethod: 'POST', body: '{"country":"ES"}', isBase64Encoded: false, requestContext: { requestId: 'REQ000000001', sourceIp: '203.0.113.7' } });
  });

  it('passes binary bodies base64-encoded, gives {} without a query, "" without a body, and cookies back as their header', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]);
    const event = invokeEvent(apiEvent({ rawQueryString: '', headers: { 'content-type': 'image/png' }, body: png.toString('base64'), isBase64Encoded: true, cookies: ['a=1', 'b=2'] }), origin, 'header');
    expect(event).toMatchObject({ body: png.toString('base64'), isBase64Encoded: true, queryStringParameters: {}, path: '/func/v1/FN0000000001/quotes/eu' });
    expect(event.headers.cookie).toBe('a=1; b=2');
    const empty = invokeEvent(apiEvent({ body: undefined, rawQueryString: '' }), origin, 'header');
    expect(empty).toMatchObject({ body: '', isBase64Encoded: false });
  });

  it('keeps a header or parameter named __proto__ as data', () => {
    const event = invokeEvent(apiEvent({ rawQueryString: '__proto__=x', headers: { __proto__: 'y' } as unknown as Record<string, string> }), origin, 'header');
    expect(Object.hasOwn(event.queryStringParameters, '__proto__')).toBe(true);
    expect(event.queryStringParameters['__proto__']).toBe('x');
  });

  it('builds a delivery event: POST to the destination path and query, with the delivery headers and the platform three', () => {
    const event = deliveryEvent(new URL('http://localhost:4000/func/v1/FN0000000001/hook?src=events'), { 'Content-Type': 'application/json', 'X-Service-Signature': 'sig', 'X-Test': 'spoof' }, '{"data":{}}', origin);
    expect(event).toMatchObject({ httpMethod: 'POST', path: '/func/v1/FN0000000001/hook?src=events', body: '{"data":{}}', queryStringParameters: { src: 'events' } });
    expect(event.headers).toMatchObject({ 'content-type': 'application/json', 'x-service-signature': 'sig', 'X-Test': 'true' });
  });
});

describe('the answer of a result (§7.5)', () => {
  it('maps statusCode, headers and body; JSON by default; stringifies numbers; repeats Set-Cookie; drops hop-by-hop headers', () => {
    const response = responseOf({ statusCode: 201, headers: { 'X-Count': 3, 'X-Flag': true, 'Set-Cookie': ['a=1', 'b=2'], Connection: 'close', 'Content-Length': '999' }, body: 'hi' }, 'FN');
    expect(response.statusCode).toBe(201);
    expect(response.headers).toEqual({ 'X-Count': '3', 'X-Flag': 'true', 'Content-Type': 'application/json' });
    expect(response.cookies).toEqual(['a=1', 'b=2']);
    expect(response.body.toString()).toBe('hi');
  });

  it('defaults to 200, serialises a non-string body as JSON, decodes base64, leaves an empty body without a type', () => {
    expect(responseOf({ body: { ok: true } }, 'FN')).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'application/json' } });
    expect(responseOf({ body: { ok: true } }, 'FN').body.toString()).toBe('{"ok":true}');
    expect(responseOf({ body: Buffer.from('bin').toString('base64'), isBase64Encoded: true, headers: { 'Content-Type': 'application/octet-stream' } }, 'FN').body.toString()).toBe('bin');
    expect(responseOf({ statusCode: 204, body: null }, 'FN').headers).toEqual({});
    expect(responseOf({ statusCode: 302, headers: { Location: '/x' } }, 'FN').statusCode).toBe(302);
  });

  it('answers 502 invalid_response for anything that is not a response', () => {
    for (const value of [undefined, null, 'text', 42, [], { statusCode: 199 }, { statusCode: 600 }, { statusCode: '200' }, { statusCode: 200.5 }, { headers: 'x' }, { headers: { 'X-Obj': { a: 1 } } }, { headers: { 'X-Bad': 'a\r\nInjected: 1' } }, { body: 'x'.repeat(6 * 1024 * 1024 + 1) }]) {
      const error = thrown(() => responseOf(value, 'FN'));
      expect(error.status, JSON.stringify(value)?.slice(0, 60)).toBe(502);
      expect(error.meta).toEqual({ hosted_function_id: 'FN', reason: 'invalid_response' });
    }
  });

  it('answers failures as the contract says (§7.6) and throttling as 429 with Retry-After', () => {
    const failed = thrown(() => answerOf({ kind: 'error', errorType: 'ValueError', errorMessage: 'country required' }, 'FN', 30));
    expect(failed).toMatchObject({ status: 502, code: 'remote_server_error', message: 'The hosted function returned an error: country required', meta: { hosted_function_id: 'FN', error_type: 'ValueError', error_message: 'country required' } });
    expect(thrown(() => answerOf({ kind: 'timeout' }, 'FN', 7))).toMatchObject({ status: 504, code: 'remote_server_timeout', meta: { hosted_function_id: 'FN', timeout_seconds: 7 } });
    expect(thrown(() => answerOf({ kind: 'crashed' }, 'FN', 7)).meta).toEqual({ hosted_function_id: 'FN', reason: 'crashed' });
    expect(thrown(() => answerOf({ kind: 'out_of_memory' }, 'FN', 7)).meta).toEqual({ hosted_function_id: 'FN', reason: 'out_of_memory' });
    expect(thrown(() => answerOf({ kind: 'runtime_unavailable', message: 'java 21 is not installed' }, 'FN', 7))).toMatchObject({ status: 502, message: 'java 21 is not installed', meta: { reason: 'runtime_unavailable' } });
    const throttled = thrown(() => answerOf({ kind: 'throttled' }, 'FN', 7));
    expect(throttled).toMatchObject({ status: 429, code: 'request_limit_exceeded', headers: { 'Retry-After': '1' } });
    expect(answerOf({ kind: 'returned', value: { statusCode: 418 } }, 'FN', 7).statusCode).toBe(418);
  });
});

describe('destinations that name a function (events.md §9)', () => {
  const site = { functionsUrl: 'http://localhost:4000' };
  it('recognises the invoke URL with more path and a query, and nothing else', () => {
    expect(invokedFunctionId(site, 'http://localhost:4000/func/v1/FN0000000001')).toBe('FN0000000001');
    expect(invokedFunctionId(site, 'HTTP://LOCALHOST:4000/func/v1/FN0000000001/hook?x=1')).toBe('FN0000000001');
    expect(invokedFunctionId(site, 'http://localhost:4001/func/v1/FN0000000001')).toBeUndefined();
    expect(invokedFunctionId(site, 'http://localhost:4000/api/v1/func/v1/FN0000000001')).toBeUndefined();
    expect(invokedFunctionId(site, 'http://localhost:4000/func/v1/')).toBeUndefined();
    expect(invokedFunctionId(site, 'not a url')).toBeUndefined();
    expect(invokedFunctionId({ functionsUrl: 'https://fn.example.test/' }, 'https://fn.example.test/func/v1/ABC')).toBe('ABC');
  });
});
