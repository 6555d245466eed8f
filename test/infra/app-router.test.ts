/**
 * The apps edge function (cloudfront-js-2.0, infra/cloud/app-router.ts), run here against a
 * fake KeyValueStore: rewrites to the served version's prefix, the answers it gives itself
 * (301, 404, 405, each with the serving headers and the platform page), the directory marker,
 * traversal refused before a lookup, and headers a viewer cannot forge.
 */
import { describe, expect, it } from 'vitest';
import { appRouterFunctionCode } from '../../infra/cloud/app-router';
import { edgePointerKey, edgePointerValue, METHOD_NOT_ALLOWED_PAGE, NOT_FOUND_PAGE } from '../../shared/modules/hosting/serving';

type Value = { value: string; multiValue?: Array<{ value: string }> };
interface CfRequest {
  method: string;
  uri: string;
  querystring: Record<string, Value>;
  headers: Record<string, Value>;
  cookies?: Record<string, Value>;
}
interface CfResponse {
  statusCode: number;
  statusDescription: string;
  headers: Record<string, Value>;
  body?: { encoding: string; data: string };
}

const pointers = new Map([[edgePointerKey('XG5908XMX3MH', 'shop'), edgePointerValue('YGFJSXQ4ZHDC', 'X6V5HEYZGTXA')]]);
const lookups: string[] = [];
const cf = {
  kvs: () => ({
    get: async (key: string) => {
      lookups.push(key);
      if (!pointers.has(key)) throw new Error('Key not found');
      return pointers.get(key)!;
    },
  }),
};
const source = appRouterFunctionCode.replace("import cf from 'cloudfront';\n", '');
const handler = new Function('cf', `${source}\nreturn handler;`)(cf) as (event: { request: CfRequest }) => Promise<CfRequest | CfResponse>;

const run = (uri: string, options: { method?: string; host?: string; headers?: Record<string, Value>; querystring?: Record<string, Value> } = {}) =>
  handler({ request: { method: options.method ?? 'GET', uri, querystring: options.querystring ?? {}, headers: { host: { value: options.host ?? 'xg5908xmx3mh.apps.example.test' }, ...options.headers } } });

const expectPage = (response: CfRequest | CfResponse, status: number, page: string) => {
  const answer = response as CfResponse;
  expect(answer.statusCode).toBe(status);
  expect(answer.body).toEqual({ encoding: 'text', data: page });
  expect(answer.headers).toMatchObject({
    'content-type': { value: 'text/html; charset=utf-8' },
    'cache-control': { value: 'no-cache' },
    'x-content-type-options': { value: 'nosniff' },
    'referrer-policy': { value: 'strict-origin-when-cross-origin' },
  });
};

describe('app router', () => {
  it('fits CloudFront Functions: under 10 KB, the KeyValueStore module imported first', () => {
    expect(Buffer.byteLength(appRouterFunctionCode)).toBeLessThan(10 * 1024);
    expect(appRouterFunctionCode.startsWith("import cf from 'cloudfront';\nconst pointers = cf.kvs();")).toBe(true);
  });

  it('rewrites a file request to the served version’s prefix, host in any case', async () => {
    for (const host of ['xg5908xmx3mh.apps.example.test', 'XG5908XMX3MH.Apps.Example.Test']) {
      const request = (await run('/shop/assets/app-1234abcd.js', { host })) as CfRequest;
      expect(request.uri).toBe('/apps/XG5908XMX3MH/YGFJSXQ4ZHDC/X6V5HEYZGTXA/assets/app-1234abcd.js');
      expect(request.headers['x-forwarded-host']).toEqual({ value: host.toLowerCase() });
      expect(request.headers['x-cartwheel-index']).toBeUndefined();
    }
    expect(lookups.at(-1)).toBe('XG5908XMX3MH/shop');
  });

  it('adds index.html and the directory marker to paths ending in /, the alias root included', async () => {
    for (const [uri, rewritten] of [
      ['/shop/', '/apps/XG5908XMX3MH/YGFJSXQ4ZHDC/X6V5HEYZGTXA/index.html'],
      ['/shop/docs/', '/apps/XG5908XMX3MH/YGFJSXQ4ZHDC/X6V5HEYZGTXA/docs/index.html'],
    ]) {
      const request = (await run(uri!)) as CfRequest;
      expect(request.uri).toBe(rewritten);
      expect(request.headers['x-cartwheel-index']).toEqual({ value: '1' });
    }
  });

  it('keeps the path as received (the bucket decodes it once), and drops viewer-sent markers', async () => {
    const request = (await run('/shop/a%20b/c.txt', { headers: { 'x-cartwheel-index': { value: '1' }, 'x-forwarded-host': { value: 'evil.test' } } })) as CfRequest;
    expect(request.uri).toBe('/apps/XG5908XMX3MH/YGFJSXQ4ZHDC/X6V5HEYZGTXA/a%20b/c.txt');
    expect(request.headers['x-cartwheel-index']).toBeUndefined();
    expect(request.headers['x-forwarded-host']).toEqual({ value: 'xg5908xmx3mh.apps.example.test' });
  });

  it('redirects /<alias> to <alias>/ (relative), query kept', async () => {
    const response = (await run('/shop', { querystring: { utm: { value: 'a%20b' }, flag: { value: '' }, x: { value: '1', multiValue: [{ value: '1' }, { value: '2' }] } } })) as CfResponse;
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toEqual({ value: 'shop/?utm=a%20b&flag&x=1&x=2' });
    expect(response.headers['cache-control']).toEqual({ value: 'no-cache' });
    expect(((await run('/shop')) as CfResponse).headers.location).toEqual({ value: 'shop/' });
  });

  it('answers the platform 404 page for unknown aliases and accounts, other hosts included', async () => {
    expectPage(await run('/nope/'), 404, NOT_FOUND_PAGE);
    expectPage(await run('/shop/', { host: 'qw12er34ty56.apps.example.test' }), 404, NOT_FOUND_PAGE);
    expectPage(await run('/shop/', { host: 'd111111abcdef8.cloudfront.net' }), 404, NOT_FOUND_PAGE);
    expectPage(await run('/'), 404, NOT_FOUND_PAGE);
  });

  it('refuses names no alias can have without a lookup, and traversal', async () => {
    lookups.length = 0;
    for (const uri of ['/Shop/', '/_local/x', '/a_b/']) expectPage(await run(uri), 404, NOT_FOUND_PAGE);
    expect(lookups).toEqual([]);
    // A viewer cannot name a version prefix: `apps` is a reserved alias, so it is never found.
    expectPage(await run('/apps/XG5908XMX3MH/YGFJSXQ4ZHDC/X6V5HEYZGTXA/index.html'), 404, NOT_FOUND_PAGE);
    for (const uri of ['/shop/../x', '/shop/%2e%2e/x', '/shop/a/%2E%2E', '/shop/a%00b', '/shop/%E0%A4%A']) expectPage(await run(uri), 404, NOT_FOUND_PAGE);
  });

  it('answers 405 with Allow to anything but GET and HEAD, before any lookup', async () => {
    lookups.length = 0;
    const response = await run('/shop/', { method: 'OPTIONS' });
    expectPage(response, 405, METHOD_NOT_ALLOWED_PAGE);
    expect((response as CfResponse).headers.allow).toEqual({ value: 'GET, HEAD' });
    expect(lookups).toEqual([]);
    expect(((await run('/shop/', { method: 'HEAD' })) as CfRequest).uri).toContain('/index.html');
  });
});
