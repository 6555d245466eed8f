/**
 * The platform-owned files (hosting.md §7): exact one-line shapes, the JSON twins, escaping,
 * the app object's key order and precedence, every key of the account object, custom CSS and
 * JavaScript, the analytics shims, and their headers.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { accountObject, browserInfo, localeOf, serveAppRequest, type AppRequest, type AppResponse } from '../../../../shared/modules/hosting/serving';
import { fakeHostingSource, TEST_FACTS, type FakeHostingSource } from '../../../support/hosting-source';

const ACCOUNT = 'XG5908XMX3MH';
const NOW = Date.UTC(2026, 10, 21, 23, 59, 59, 999);
let source: FakeHostingSource;

beforeEach(() => {
  source = fakeHostingSource();
  source.addAccount(ACCOUNT);
  source.addApp({
    app_id: 'YGFJSXQ4ZHDC',
    account_id: ACCOUNT,
    settings: { company_name: 'Acme', show_promo_code: true },
    style: { 'brand-primary': '#0b6e4f', layout: 'two-column' },
  });
  source.addVersion(ACCOUNT, 'YGFJSXQ4ZHDC', 'V1', { 'index.html': 'x' });
  source.point(ACCOUNT, 'shop', 'YGFJSXQ4ZHDC', 'V1', false);
  source.point(ACCOUNT, 'preview', 'YGFJSXQ4ZHDC', 'V1', true);
});

const headers = { 'accept-language': 'de-de,de;q=0.9,en;q=0.5', accept: '*/*', 'user-agent': 'Test/1.0' };
const serve = (path: string, extra: Partial<AppRequest> = {}): Promise<AppResponse> =>
  serveAppRequest(source, { method: 'GET', accountId: ACCOUNT, path, query: '', headers, nowMs: NOW, ...extra });
const text = (response: AppResponse): string => response.body.toString();

describe('settings/app.js and app.json', () => {
  it('is exactly the line of §7.1: settings first, then the platform keys', async () => {
    const response = await serve('/shop/settings/app.js');
    expect(text(response)).toBe(
      'window.__settings = window.__settings || {}; window.__settings.app = {"company_name":"Acme","show_promo_code":true,"app_id":"YGFJSXQ4ZHDC","account_id":"XG5908XMX3MH","alias":"shop","test":false};\n',
    );
    expect(response.headers).toMatchObject({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    expect(response.headers['Last-Modified']).toBeUndefined();
    const json = await serve('/shop/settings/app.json');
    expect(json.headers['Content-Type']).toBe('application/json');
    expect(JSON.parse(text(json))).toEqual({ company_name: 'Acme', show_promo_code: true, app_id: 'YGFJSXQ4ZHDC', account_id: ACCOUNT, alias: 'shop', test: false });
  });

  it('takes the mode from the alias, and platform keys win over settings keys of the same name (at the end)', async () => {
    source.addApp({ app_id: 'YGFJSXQ4ZHDC', account_id: ACCOUNT, settings: { test: 'mine', alias: 'x', a: 1 } });
    expect(text(await serve('/preview/settings/app.json'))).toBe('{"a":1,"app_id":"YGFJSXQ4ZHDC","account_id":"XG5908XMX3MH","alias":"preview","test":true}');
  });

  it('writes <, U+2028 and U+2029 as escapes so the text can never close a script element', async () => {
    source.addApp({ app_id: 'YGFJSXQ4ZHDC', account_id: ACCOUNT, settings: { html: '</script><script>alert(1)</script>', line: 'a\u2028b\u2029c' } });
    const body = text(await serve('/shop/settings/app.js'));
    expect(body).toBe(
      'window.__settings = window.__settings || {}; window.__settings.app = {"html":"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>","line":"a\\u2028b\\u2029c","app_id":"YGFJSXQ4ZHDC","account_id":"XG5908XMX3MH","alias":"shop","test":false};\n',
    );
    expect(body.split('\n')).toHaveLength(2);
    expect(body).not.toMatch(/[<\u2028\u2029]/);
    const json = JSON.parse(text(await serve('/shop/settings/app.json')));
    expect(json.html).toBe('</script><script>alert(1)</script>');
    expect(json.line).toBe('a\u2028b\u2029c');
  });

  it('is computed per request: a settings change shows on the next load, with a new ETag', async () => {
    const before = await serve('/shop/settings/app.js');
    expect((await serve('/shop/settings/app.js', { headers: { 'if-none-match': before.headers.ETag } })).status).toBe(304);
    source.addApp({ app_id: 'YGFJSXQ4ZHDC', account_id: ACCOUNT, settings: { company_name: 'Acme 2' } });
    const after = await serve('/shop/settings/app.js', { headers: { 'if-none-match': before.headers.ETag } });
    expect(after.status).toBe(200);
    expect(text(after)).toContain('"Acme 2"');
  });

  it('accepts from_admin=true and changes nothing', async () => {
    expect(text(await serve('/shop/settings/app.js', { query: 'from_admin=true' }))).toBe(text(await serve('/shop/settings/app.js')));
  });
});

describe('settings/style.js, style.json, style.css and script.js', () => {
  it('serves the style object and the custom code, empty when null', async () => {
    expect(text(await serve('/shop/settings/style.js'))).toBe(
      'window.__settings = window.__settings || {}; window.__settings.style = {"brand-primary":"#0b6e4f","layout":"two-column"};\n',
    );
    expect(text(await serve('/shop/settings/style.json'))).toBe('{"brand-primary":"#0b6e4f","layout":"two-column"}');
    const css = await serve('/shop/settings/style.css');
    expect(css).toMatchObject({ status: 200, body: '' });
    expect(css.headers).toMatchObject({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Length': '0' });
    const script = await serve('/shop/settings/script.js');
    expect(script).toMatchObject({ status: 200, body: '' });
    expect(script.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    source.addApp({ app_id: 'YGFJSXQ4ZHDC', account_id: ACCOUNT, custom_css: 'body { color: red }', custom_javascript: 'console.log("</script>")' });
    expect(text(await serve('/shop/settings/style.css'))).toBe('body { color: red }');
    expect(text(await serve('/shop/settings/script.js'))).toBe('console.log("</script>")');
  });
});

describe('settings/account.js and account.json', () => {
  const expected = {
    account_id: ACCOUNT,
    test: false,
    company_name: 'Acme',
    support_email: 'help@acme.test',
    support_website: null,
    currencies: [
      { code: 'USD', name: 'US Dollar' },
      { code: 'EUR', name: 'Euro' },
    ],
    allow_save_cards: true,
    payment_method_types: ['credit_card'],
    stripe_publishable_key: null,
    date_utc: '2026-11-21T00:00:00Z',
    browser_info: { accept_language: 'de-de,de;q=0.9,en;q=0.5', locale: 'de-DE', language: 'de', accept: '*/*', user_agent: 'Test/1.0' },
  };

  it('has every key of §7.1, in order, with today at midnight UTC and the browser’s facts', async () => {
    const response = await serve('/shop/settings/account.json');
    expect(response.headers['Content-Type']).toBe('application/json');
    expect(response.headers.Vary).toBe('Accept, Accept-Language, User-Agent');
    expect(text(response)).toBe(JSON.stringify(expected));
    expect(text(await serve('/shop/settings/account.js'))).toBe(`window.__settings = window.__settings || {}; window.__settings.account = ${JSON.stringify(expected)};\n`);
    expect(JSON.parse(text(await serve('/preview/settings/account.json'))).test).toBe(true);
  });

  it('always carries payment_method_types as an array (storefronts call indexOf on it)', async () => {
    source.addAccount(ACCOUNT, { ...TEST_FACTS, payment_method_types: [] });
    const account = JSON.parse(text(await serve('/shop/settings/account.json')));
    expect(account.payment_method_types).toEqual([]);
    expect(accountObject({ accountId: 'A', test: true, facts: { ...TEST_FACTS, currencies: [] }, nowMs: 0, headers: {} })).toMatchObject({
      payment_method_types: ['credit_card'],
      currencies: [],
      date_utc: '1970-01-01T00:00:00Z',
    });
  });

  it('answers 404 when the account itself is gone', async () => {
    source.addAccount('OTHER');
    source.point('NOACCOUNT', 'shop', 'YGFJSXQ4ZHDC', 'V1');
    expect((await serve('/shop/settings/account.js', { accountId: 'NOACCOUNT' })).status).toBe(404);
  });
});

describe('browser_info', () => {
  it('normalises the first Accept-Language tag to xx-YY or xx, en-US when absent or unusable', () => {
    expect(localeOf('en-us')).toBe('en-US');
    expect(localeOf('fr')).toBe('fr');
    expect(localeOf('PT_br;q=0.8')).toBe('pt-BR');
    expect(localeOf('zh-Hant-TW,zh;q=0.8')).toBe('zh-TW');
    expect(localeOf(undefined)).toBe('en-US');
    expect(localeOf('')).toBe('en-US');
    expect(localeOf('*')).toBe('en-US');
    expect(localeOf('not a tag!')).toBe('en-US');
  });

  it('passes the raw headers through, null when absent', () => {
    expect(browserInfo({})).toEqual({ accept_language: null, locale: 'en-US', language: 'en', accept: null, user_agent: null });
  });
});

describe('analytics shims', () => {
  it('are the exact one-line no-op hooks', async () => {
    const pageview = await serve('/shop/analytics/pageview.js');
    expect(text(pageview)).toBe('window.__pageview = window.__pageview || { recordPageLoad: function () {} };\n');
    expect(pageview.headers).toMatchObject({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
    expect(text(await serve('/shop/analytics/conversion.js'))).toBe('window.__conversion = window.__conversion || { recordConversion: function (orderId) {} };\n');
  });
});
