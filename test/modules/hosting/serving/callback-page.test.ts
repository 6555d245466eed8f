/**
 * `oauth/callback.html` (hosting.md §8): the page and its headers, and its script run in
 * `node:vm` against a fake `location`, `document.cookie` and `history`: cookies set and
 * deleted with the right attributes, the fragment dropped before leaving, and redirects only
 * to paths and same-origin URLs (open-redirect attempts land on the alias home).
 */
import { createHash } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CALLBACK_HEADERS, CALLBACK_PAGE, CALLBACK_SCRIPT, serveAppRequest } from '../../../../shared/modules/hosting/serving';
import { fakeHostingSource } from '../../../support/hosting-source';

const HOME = 'https://xg5908xmx3mh.apps.example.test/shop/oauth/callback.html';

/** Runs the script as a browser at `url` would, and records what it did, in order. */
function visit(url: string): { steps: string[]; cookies: string[]; target: string | undefined } {
  const parsed = new URL(url);
  const steps: string[] = [];
  const cookies: string[] = [];
  let target: string | undefined;
  const location = {
    hash: parsed.hash,
    protocol: parsed.protocol,
    host: parsed.host,
    pathname: parsed.pathname,
    search: parsed.search,
    replace: (next: string) => {
      steps.push(`replace ${next}`);
      target = next;
    },
  };
  const document = {
    set cookie(value: string) {
      steps.push('cookie');
      cookies.push(value);
    },
  };
  const history = { replaceState: (_state: unknown, _title: string, next: string) => steps.push(`replaceState ${next}`) };
  runInNewContext(CALLBACK_SCRIPT, { location, document, history });
  return { steps, cookies, target };
}

const fragment = (params: Record<string, string>): string => `#${new URLSearchParams(params).toString()}`;

describe('the page', () => {
  it('is one inline script that the CSP allows by its hash, and nothing else', () => {
    const scripts = [...CALLBACK_PAGE.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]);
    expect(scripts).toEqual([CALLBACK_SCRIPT]);
    expect(CALLBACK_PAGE).not.toMatch(/src=|href=|<link|<img|fetch\(|XMLHttpRequest/);
    const hash = createHash('sha256').update(CALLBACK_SCRIPT).digest('base64');
    expect(CALLBACK_HEADERS['Content-Security-Policy']).toBe(`default-src 'none'; script-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`);
  });

  it('is served under every alias with no-store, no referrer and nosniff', async () => {
    const source = fakeHostingSource();
    source.point('ACCT', 'shop', 'APP', 'V1');
    source.point('ACCT', 'admin', 'APP', 'V1');
    for (const alias of ['shop', 'admin']) {
      const response = await serveAppRequest(source, { method: 'GET', accountId: 'ACCT', path: `/${alias}/oauth/callback.html`, query: '', headers: {}, nowMs: 0 });
      expect(response.status).toBe(200);
      expect(response.body).toBe(CALLBACK_PAGE);
      expect(response.headers).toMatchObject({
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': CALLBACK_HEADERS['Content-Security-Policy'],
      });
    }
  });
});

describe('cookies', () => {
  it('sets token and cart_id for the given lifetime, Secure on HTTPS, and deletes invoice_id', () => {
    const { cookies } = visit(`${HOME}${fragment({ access_token: 'lt.live.Y11dAbc', cart_id: '7SJPC2FR6EAH', expires_in: '3600' })}`);
    expect(cookies).toEqual([
      'token=lt.live.Y11dAbc; path=/; max-age=3600; SameSite=Lax; Secure',
      'cart_id=7SJPC2FR6EAH; path=/; max-age=3600; SameSite=Lax; Secure',
      'invoice_id=; path=/; max-age=0; SameSite=Lax; Secure',
    ]);
  });

  it('keeps two weeks when expires_in is absent or not a positive number, and drops Secure on plain HTTP', () => {
    for (const expires of [undefined, '', '0', '-5', '1e9', 'abc']) {
      const params: Record<string, string> = { access_token: 'tok', invoice_id: 'INV1' };
      if (expires !== undefined) params.expires_in = expires;
      const { cookies } = visit(`http://xg5908xmx3mh.apps.localhost:4000/shop/oauth/callback.html${fragment(params)}`);
      expect(cookies, String(expires)).toEqual([
        'token=tok; path=/; max-age=1209600; SameSite=Lax',
        'cart_id=; path=/; max-age=0; SameSite=Lax',
        'invoice_id=INV1; path=/; max-age=1209600; SameSite=Lax',
      ]);
    }
  });

  it('deletes old cart_id and invoice_id when the new token comes without them', () => {
    expect(visit(`${HOME}#access_token=tok`).cookies).toEqual([
      'token=tok; path=/; max-age=1209600; SameSite=Lax; Secure',
      'cart_id=; path=/; max-age=0; SameSite=Lax; Secure',
      'invoice_id=; path=/; max-age=0; SameSite=Lax; Secure',
    ]);
  });

  it('sets nothing without an access token, and survives a malformed fragment', () => {
    expect(visit(`${HOME}#cart_id=X`).cookies).toEqual([]);
    expect(visit(HOME).cookies).toEqual([]);
    const broken = visit(`${HOME}#access_token=a%zz&cart_id=C1&&=&redirect_uri`);
    expect(broken.cookies).toEqual([]);
    expect(broken.target).toBe('/shop/');
  });

  it('encodes values so a fragment cannot add cookie attributes', () => {
    const { cookies } = visit(`${HOME}${fragment({ access_token: 'tok; domain=evil.test', cart_id: 'c=1' })}`);
    expect(cookies[0]).toBe('token=tok%3B%20domain%3Devil.test; path=/; max-age=1209600; SameSite=Lax; Secure');
    expect(cookies[1]).toBe('cart_id=c%3D1; path=/; max-age=1209600; SameSite=Lax; Secure');
  });
});

describe('leaving the page', () => {
  it('drops the fragment from the address and history first, then replaces the location with redirect_uri', () => {
    const { steps, target } = visit(`${HOME}?x=1${fragment({ access_token: 'tok', cart_id: 'C1', redirect_uri: '/shop/#/cart' })}`);
    expect(steps.filter((step) => step !== 'cookie')).toEqual(['replaceState /shop/oauth/callback.html?x=1', 'replace /shop/#/cart']);
    expect(steps.indexOf('replaceState /shop/oauth/callback.html?x=1')).toBeGreaterThan(steps.lastIndexOf('cookie'));
    expect(target).toBe('/shop/#/cart');
  });

  it('follows paths with a single leading slash and absolute URLs of its own origin', () => {
    for (const uri of ['/shop/#/cart', '/other/page?x=1', '/', 'https://xg5908xmx3mh.apps.example.test/admin/', 'https://xg5908xmx3mh.apps.example.test']) {
      expect(visit(`${HOME}${fragment({ access_token: 't', redirect_uri: uri })}`).target, uri).toBe(uri);
    }
  });

  it('goes to the alias home without redirect_uri, or when it points elsewhere', () => {
    const attempts = [
      '//evil.test',
      '//evil.test/shop/',
      'https://evil.test/',
      '/\\evil.test',
      '\\\\evil.test',
      '/\t/evil.test',
      '/\n/evil.test',
      ' /shop/',
      'javascript:alert(document.cookie)',
      'JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'http://xg5908xmx3mh.apps.example.test/shop/',
      'https://xg5908xmx3mh.apps.example.test.evil.test/',
      'https://xg5908xmx3mh.apps.example.test@evil.test/',
      'https://xg5908xmx3mh.apps.example.test:8443/',
      'shop/',
      '',
    ];
    for (const uri of attempts) {
      expect(visit(`${HOME}${fragment({ access_token: 't', redirect_uri: uri })}`).target, JSON.stringify(uri)).toBe('/shop/');
    }
    expect(visit(`${HOME}#access_token=t&redirect_uri=%2F%2Fevil.test`).target).toBe('/shop/');
    expect(visit(`${HOME}#access_token=t&redirect_uri=%2F%09%2Fevil.test`).target).toBe('/shop/');
    expect(visit(HOME).target).toBe('/shop/');
  });

  it('finds the alias home in the local path form too', () => {
    expect(visit('http://localhost:4000/apps/XG5908XMX3MH/admin/oauth/callback.html#access_token=t&redirect_uri=%2F%2Fevil').target).toBe('/apps/XG5908XMX3MH/admin/');
  });
});
