/**
 * The hosting handler as the CDN's origin (hosting.md §10), over a fake source: the platform
 * behaviours' viewer paths, bucket misses in the rewritten form, the account taken only from a
 * forwarded host the edge vouched for, and binary answers in the function URL result shape.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { NOT_FOUND_PAGE, serveCdnOrigin } from '../../../../shared/modules/hosting/serving';
import { fakeHostingSource } from '../../../support/hosting-source';

const hosting = { appsDomain: 'apps.example.test', edgeSecret: 'edge-secret' };

const ACCOUNT = 'XG5908XMX3MH';
const source = fakeHostingSource();
source.addAccount(ACCOUNT);
source.addApp({ app_id: 'APP1', account_id: ACCOUNT, settings: { a: 1 } });
source.addVersion(ACCOUNT, 'APP1', 'VER1', { 'index.html': 'home', 'docs/index.html': 'docs', 'logo.png': Buffer.from([0, 255, 1]) });
source.point(ACCOUNT, 'shop', 'APP1', 'VER1');
source.point('QW12ER34TY56', 'shop', 'APP2', 'VER9');

const event = (path: string, headers: Record<string, string> = {}, method = 'GET'): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'abc123.lambda-url.eu-west-1.on.aws', 'x-forwarded-host': 'xg5908xmx3mh.apps.example.test', 'x-cartwheel-edge': 'edge-secret', 'x-forwarded-proto': 'https', ...headers },
    requestContext: { domainName: 'abc123.lambda-url.eu-west-1.on.aws', http: { method, path, sourceIp: '203.0.113.1' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

/** The body a function URL result carries, decoded. */
const bodyOf = (result: { body?: string; isBase64Encoded?: boolean }): string => (result.isBase64Encoded ? Buffer.from(result.body!, 'base64').toString() : result.body!);

describe('serveCdnOrigin', () => {
  it('serves the platform-owned files of the viewer’s alias', async () => {
    const result = await serveCdnOrigin(source, event('/shop/settings/app.json'), 0, hosting);
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body!)).toMatchObject({ a: 1, account_id: ACCOUNT, alias: 'shop' });
    expect(result.headers).toMatchObject({ 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
    expect(result.headers!['Content-Length']).toBeUndefined();
    expect((await serveCdnOrigin(source, event('/shop/oauth/callback.html'), 0, hosting)).headers!['Cache-Control']).toBe('no-store');
  });

  it('applies rules 5 to 8 to a bucket miss of the rewritten path, the directory marker included', async () => {
    expect(bodyOf(await serveCdnOrigin(source, event(`/apps/${ACCOUNT}/APP1/VER1/docs/index.html`, { 'x-cartwheel-index': '1' }), 0, hosting))).toBe('docs');
    expect(bodyOf(await serveCdnOrigin(source, event(`/apps/${ACCOUNT}/APP1/VER1/nowhere/index.html`, { 'x-cartwheel-index': '1' }), 0, hosting))).toBe('home');
    expect(bodyOf(await serveCdnOrigin(source, event(`/apps/${ACCOUNT}/APP1/VER1/cart`), 0, hosting))).toBe('home');
    const redirect = await serveCdnOrigin(source, event(`/apps/${ACCOUNT}/APP1/VER1/docs`), 0, hosting);
    expect(redirect).toMatchObject({ statusCode: 301, headers: { Location: 'docs/' } });
    const missing = await serveCdnOrigin(source, event(`/apps/${ACCOUNT}/APP1/VER1/missing.js`), 0, hosting);
    expect(missing).toMatchObject({ statusCode: 404, body: NOT_FOUND_PAGE });
  });

  it('base64-encodes binary answers', async () => {
    // A file the bucket missed but the manifest has (a viewer path under a deeper settings/ folder reaches the handler too).
    const result = await serveCdnOrigin(source, event(`/apps/${ACCOUNT}/APP1/VER1/logo.png`), 0, hosting);
    expect(result).toMatchObject({ statusCode: 200, isBase64Encoded: true, body: Buffer.from([0, 255, 1]).toString('base64') });
  });

  it('never serves another account’s version path or alias on this account’s host', async () => {
    for (const path of ['/apps/QW12ER34TY56/APP2/VER9/index.html', '/apps/qw12er34ty56/APP2/VER9/x']) {
      expect((await serveCdnOrigin(source, event(path), 0, hosting)).body, path).toBe(NOT_FOUND_PAGE);
    }
    expect((await serveCdnOrigin(source, event('/shop/settings/app.json', { 'x-forwarded-host': 'qw12er34ty56.apps.example.test' }), 0, hosting)).statusCode).toBe(404);
  });

  it('ignores a forwarded host without the edge secret: no app host, no answer but 404', async () => {
    for (const headers of [{ 'x-cartwheel-edge': 'wrong' }, { 'x-cartwheel-edge': '' }]) {
      const result = await serveCdnOrigin(source, event('/shop/settings/app.json', headers), 0, hosting);
      expect(result).toMatchObject({ statusCode: 404, body: NOT_FOUND_PAGE });
    }
  });
});
