/**
 * The serving rules (hosting.md §6) over a fake source: rules 1 to 8 in order, methods,
 * decoding and traversal, the caching table, ETag, Last-Modified and conditional GET, HEAD,
 * the security headers on every answer, and one account never reaching another's apps.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { NOT_FOUND_PAGE, serveAppRequest, serveVersionMiss, type AppRequest, type AppResponse } from '../../../../shared/modules/hosting/serving';
import { fakeHostingSource, type FakeHostingSource } from '../../../support/hosting-source';

const ACCOUNT = 'XG5908XMX3MH';
const OTHER = 'QW12ER34TY56';
const UPLOADED = Date.UTC(2026, 10, 20, 16, 2, 11, 500);
let source: FakeHostingSource;

const files = {
  'index.html': '<!doctype html><title>Shop</title>',
  'assets/index-BxT3kz9Q.js': 'console.log(1)',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
  'docs/index.html': '<h1>Docs</h1>',
  'docs/guide.html': '<h1>Guide</h1>',
  'a b/c.txt': 'spaced',
  'robots.txt': 'User-agent: *',
};

beforeEach(() => {
  source = fakeHostingSource();
  source.addAccount(ACCOUNT);
  source.addApp({ app_id: 'APP1', account_id: ACCOUNT });
  source.addVersion(ACCOUNT, 'APP1', 'VER1', files, UPLOADED);
  source.point(ACCOUNT, 'shop', 'APP1', 'VER1');
});

const request = (path: string, extra: Partial<AppRequest> = {}): AppRequest => ({ method: 'GET', accountId: ACCOUNT, path, query: '', headers: {}, nowMs: Date.UTC(2026, 10, 21, 8, 30), ...extra });
const serve = (path: string, extra: Partial<AppRequest> = {}): Promise<AppResponse> => serveAppRequest(source, request(path, extra));
const text = (response: AppResponse): string => response.body.toString();

const expectSecurityHeaders = (response: AppResponse) => {
  expect(response.headers['X-Content-Type-Options']).toBe('nosniff');
  expect(response.headers['Referrer-Policy']).toBe('strict-origin-when-cross-origin');
  expect(response.headers['X-Frame-Options']).toBeUndefined();
};

const expectPlatform404 = (response: AppResponse) => {
  expect(response.status).toBe(404);
  expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
  expect(response.headers['Cache-Control']).toBe('no-cache');
  expect(text(response)).toBe(NOT_FOUND_PAGE);
  expectSecurityHeaders(response);
};

describe('rule 1: the alias must exist', () => {
  it('answers the platform 404 page for an unknown alias, an undeployed app and names no alias can have', async () => {
    source.point(ACCOUNT, 'fresh', 'APP1', null);
    for (const path of ['/nope/', '/fresh/', '/fresh', '/', '', '/Shop/', '/-x/', '/%73hop/', '/a_b/']) expectPlatform404(await serve(path));
    expect(source.reads.filter((read) => read.startsWith('pointer'))).toEqual([`pointer ${ACCOUNT}/nope`, `pointer ${ACCOUNT}/fresh`, `pointer ${ACCOUNT}/fresh`]);
  });

  it('never serves another account’s alias, files or settings', async () => {
    source.addAccount(OTHER);
    for (const path of ['/shop/', '/shop/index.html', '/shop/settings/app.js', '/shop/settings/account.js', '/shop/oauth/callback.html']) {
      expectPlatform404(await serve(path, { accountId: OTHER }));
    }
    expect(source.reads.every((read) => read === `pointer ${OTHER}/shop`)).toBe(true);
  });
});

describe('rule 2: /<alias> without its slash', () => {
  it('redirects 301 to <alias>/ relative to the request, query kept', async () => {
    const response = await serve('/shop', { query: 'utm=1&b=%20' });
    expect(response).toMatchObject({ status: 301, body: '' });
    expect(response.headers).toMatchObject({ Location: 'shop/?utm=1&b=%20', 'Cache-Control': 'no-cache' });
    expectSecurityHeaders(response);
    // Relative, so it is right on an app host and in the local path form alike.
    expect(new URL(response.headers.Location!, 'http://x.apps.localhost:4000/shop?utm=1').href).toBe('http://x.apps.localhost:4000/shop/?utm=1&b=%20');
    expect(new URL(response.headers.Location!, `http://localhost:4000/apps/${ACCOUNT}/shop`).pathname).toBe(`/apps/${ACCOUNT}/shop/`);
    expect((await serve('/shop')).headers.Location).toBe('shop/');
  });
});

describe('rule 3: platform-owned paths', () => {
  it('serves the callback page whatever the package holds', async () => {
    source.addVersion(ACCOUNT, 'APP1', 'VER2', { ...files, 'oauth/callback.html': 'mine' });
    source.point(ACCOUNT, 'shop', 'APP1', 'VER2');
    const response = await serve('/shop/oauth/callback.html');
    expect(response.status).toBe(200);
    expect(text(response)).toContain('<script>');
    expect(response.headers['Cache-Control']).toBe('no-store');
  });

  it('answers 404 for any other path under settings/ or analytics/, never a package file', async () => {
    source.addVersion(ACCOUNT, 'APP1', 'VER2', { ...files, 'settings/extra.js': 'x', 'analytics/x.js': 'y' });
    source.point(ACCOUNT, 'shop', 'APP1', 'VER2');
    for (const path of ['/shop/settings/extra.js', '/shop/settings/', '/shop/analytics/x.js', '/shop/settings/app', '/shop/analytics/']) expectPlatform404(await serve(path));
  });
});

describe('rules 4 to 8', () => {
  it('4: serves the exact file with its manifest type, caching, strong ETag and Last-Modified', async () => {
    const response = await serve('/shop/assets/index-BxT3kz9Q.js');
    expect(response.status).toBe(200);
    expect(text(response)).toBe('console.log(1)');
    expect(response.headers).toMatchObject({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
      'Last-Modified': 'Fri, 20 Nov 2026 16:02:11 GMT',
      'Content-Length': '14',
    });
    expect(response.headers.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    expectSecurityHeaders(response);
    const logo = await serve('/shop/logo.png');
    expect(logo.headers['Cache-Control']).toBe('public, max-age=300');
    expect(Buffer.compare(logo.body as Buffer, files['logo.png'])).toBe(0);
    expect((await serve('/shop/docs/guide.html')).headers['Cache-Control']).toBe('no-cache');
  });

  it('4: decodes the path once and ignores the query', async () => {
    expect(text(await serve('/shop/a%20b/c.txt'))).toBe('spaced');
    expect(text(await serve('/shop/robots.txt', { query: 'v=2' }))).toBe('User-agent: *');
    expectPlatform404(await serve('/shop/a%2520b/c.txt'));
  });

  it('5: serves a directory’s index.html for a path ending in /, the root included', async () => {
    const root = await serve('/shop/');
    expect(text(root)).toBe(files['index.html']);
    expect(root.headers['Cache-Control']).toBe('no-cache');
    expect(text(await serve('/shop/docs/'))).toBe(files['docs/index.html']);
  });

  it('6: redirects a directory named without its slash, relative to the request', async () => {
    const response = await serve('/shop/docs', { query: 'x=1' });
    expect(response.status).toBe(301);
    expect(response.headers).toMatchObject({ Location: 'docs/', 'Cache-Control': 'no-cache' });
    expect(new URL(response.headers.Location!, 'https://a.apps.example.test/shop/docs').pathname).toBe('/shop/docs/');
  });

  it('7: falls back to the root index.html (200, no-cache) only when the last segment has no dot', async () => {
    for (const path of ['/shop/cart', '/shop/products/42', '/shop/account/orders/', '/shop/v1.2/detail']) {
      const response = await serve(path);
      expect(response.status, path).toBe(200);
      expect(text(response), path).toBe(files['index.html']);
      expect(response.headers['Cache-Control']).toBe('no-cache');
    }
    for (const path of ['/shop/missing.js', '/shop/assets/x.css', '/shop/cart.', '/shop/docs/missing.html']) expectPlatform404(await serve(path));
  });

  it('8: answers the version’s own 404.html with status 404 when it has one', async () => {
    source.addVersion(ACCOUNT, 'APP1', 'VER2', { ...files, '404.html': '<h1>Lost</h1>' });
    source.point(ACCOUNT, 'shop', 'APP1', 'VER2');
    const response = await serve('/shop/missing.js');
    expect(response.status).toBe(404);
    expect(text(response)).toBe('<h1>Lost</h1>');
    expect(response.headers).toMatchObject({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    // A 404 answer is never turned into a 304.
    expect((await serve('/shop/missing.js', { headers: { 'if-none-match': response.headers.ETag } })).status).toBe(404);
  });

  it('refuses traversal and NUL bytes with the platform 404 before any file is read', async () => {
    for (const path of ['/shop/../shop/index.html', '/shop/%2e%2e/x', '/shop/docs/..', '/shop/a%00.js', '/shop/%E0%A4%A']) {
      source.reads.length = 0;
      expectPlatform404(await serve(path));
      expect(source.reads.some((read) => read.startsWith('file') || read.startsWith('manifest'))).toBe(false);
    }
  });

  it('follows the pointer on every request (a deploy or rollback shows at once)', async () => {
    source.addVersion(ACCOUNT, 'APP1', 'VER2', { 'index.html': 'v2' });
    expect(text(await serve('/shop/'))).toBe(files['index.html']);
    source.point(ACCOUNT, 'shop', 'APP1', 'VER2');
    expect(text(await serve('/shop/'))).toBe('v2');
    // The new version has no logo: its files only.
    expectPlatform404(await serve('/shop/logo.png'));
  });
});

describe('methods', () => {
  it('answers 405 with Allow: GET, HEAD and an HTML page to anything else', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
      const response = await serve('/shop/', { method });
      expect(response.status).toBe(405);
      expect(response.headers).toMatchObject({ Allow: 'GET, HEAD', 'Content-Type': 'text/html; charset=utf-8' });
      expectSecurityHeaders(response);
    }
  });

  it('answers HEAD with the headers of GET and no body, without reading the file', async () => {
    const get = await serve('/shop/assets/index-BxT3kz9Q.js');
    source.reads.length = 0;
    const head = await serve('/shop/assets/index-BxT3kz9Q.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers).toEqual(get.headers);
    expect(source.reads.some((read) => read.startsWith('file'))).toBe(false);
    const missing = await serve('/shop/missing.js', { method: 'HEAD' });
    expect(missing).toMatchObject({ status: 404, body: '' });
    expect(missing.headers['Content-Length']).toBe(String(Buffer.byteLength(NOT_FOUND_PAGE)));
    expect((await serve('/shop/settings/app.js', { method: 'HEAD' })).body).toBe('');
  });
});

describe('conditional requests', () => {
  it('answers 304 for a matching If-None-Match (strong, weak, in a list, or *)', async () => {
    const { headers } = await serve('/shop/logo.png');
    for (const value of [headers.ETag!, `W/${headers.ETag}`, `"other", ${headers.ETag}`, '*']) {
      const response = await serve('/shop/logo.png', { headers: { 'if-none-match': value } });
      expect(response.status, value).toBe(304);
      expect(response.body).toBe('');
      expect(response.headers).toMatchObject({ ETag: headers.ETag, 'Cache-Control': 'public, max-age=300', 'Last-Modified': headers['Last-Modified'] });
      expectSecurityHeaders(response);
    }
    expect((await serve('/shop/logo.png', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('answers 304 for If-Modified-Since at or after the upload second, unless If-None-Match says otherwise', async () => {
    const at = 'Fri, 20 Nov 2026 16:02:11 GMT';
    expect((await serve('/shop/logo.png', { headers: { 'if-modified-since': at } })).status).toBe(304);
    expect((await serve('/shop/logo.png', { headers: { 'if-modified-since': 'Sat, 21 Nov 2026 00:00:00 GMT' } })).status).toBe(304);
    expect((await serve('/shop/logo.png', { headers: { 'if-modified-since': 'Fri, 20 Nov 2026 16:02:10 GMT' } })).status).toBe(200);
    expect((await serve('/shop/logo.png', { headers: { 'if-modified-since': 'garbage' } })).status).toBe(200);
    expect((await serve('/shop/logo.png', { headers: { 'if-modified-since': at, 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('revalidates the SPA fallback against index.html', async () => {
    const { headers } = await serve('/shop/');
    expect((await serve('/shop/cart', { headers: { 'if-none-match': headers.ETag } })).status).toBe(304);
  });
});

describe('serveVersionMiss (the CDN’s bucket miss)', () => {
  const miss = (rawPath: string, indexAppended = false) =>
    serveVersionMiss(source, { method: 'GET', headers: {}, accountId: ACCOUNT, appId: 'APP1', versionId: 'VER1', rawPath, indexAppended });

  it('applies rules 5 to 8 on the version the CDN named', async () => {
    expect(text(await miss('docs/index.html', true))).toBe(files['docs/index.html']);
    expect((await miss('docs')).headers.Location).toBe('docs/');
    expect(text(await miss('cart'))).toBe(files['index.html']);
    // A directory without index.html falls back like any path ending in /; an explicit index.html does not.
    expect(text(await miss('nothing/index.html', true))).toBe(files['index.html']);
    expectPlatform404(await miss('nothing/index.html', false));
    expectPlatform404(await miss('x/%2e%2e/y'));
  });
});
