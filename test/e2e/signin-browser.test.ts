/**
 * The sign-in page in headless Chromium (Debian's `chromium`, driven by playwright-core), with
 * JavaScript switched off as the page needs none (auth.md 5.1): the bootstrap owner signs in
 * with the printed password for a registered redirect URI and lands there with a trusted token
 * in the fragment, which then works against /api/v1; for an unregistered URI the browser signs
 * in and stays on the platform's error page, never reaching that URI. A page of another origin
 * that frames the form is refused by its headers. A screenshot of the form is kept in
 * `test-artifacts/`.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const ARTIFACTS = resolve(__dirname, '../../test-artifacts');

let runtime: RuntimeProcess;
let browser: Browser;
/** A stand-in for the admin app (the registered redirect) and for a foreign site (the unregistered one), on 127.0.0.1. */
let site: Server;
let siteOrigin: string;
/** Requests the stand-in site received, by path. */
const visits: string[] = [];

beforeAll(async () => {
  site = createServer((req, res) => {
    visits.push(req.url ?? '/');
    if ((req.url ?? '').startsWith('/frame')) {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><iframe id="f" src="${decodeURIComponent((req.url ?? '').split('src=')[1] ?? '')}"></iframe>`);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Admin</title><h1 id="landed">Admin app</h1>');
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', () => done()));
  siteOrigin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  const registered = await api(`${runtime.bootstrap.api_url}settings/technical`, {
    method: 'POST', token: runtime.bootstrap.tokens.live_secret, body: { oauth_redirect_uris: [`${siteOrigin}/admin/oauth.html`] },
  });
  expect(registered.status, registered.text).toBe(200);
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (runtime) expect(await runtime.stop()).toBe(0);
  await new Promise((done) => site?.close(done));
});

describe('the sign-in page in a browser', () => {
  it('signs the bootstrap owner in without JavaScript and lands on the registered redirect with a working token', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const redirect = `${siteOrigin}/admin/oauth.html`;
    await page.goto(`${runtime.bootstrap.signin_url}?redirect_uri=${encodeURIComponent(redirect)}&state=%2Forders`);
    await page.getByLabel('User ID or email').fill('owner');
    await page.getByLabel('Password').fill(runtime.bootstrap.owner.password);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'signin-form.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${redirect}#**`), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.locator('#landed').waitFor();
    const landed = new URL(page.url());
    expect(landed.origin + landed.pathname).toBe(redirect);
    const fragment = new URLSearchParams(landed.hash.slice(1));
    expect(fragment.get('token_type')).toBe('bearer');
    expect(fragment.get('expires_in')).toBe('3600');
    expect(fragment.get('state')).toBe('/orders');
    const token = fragment.get('access_token')!;
    expect(token).toMatch(/^tt\.live\./);
    const me = await api(`${runtime.bootstrap.api_url}users/me`, { token });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({ user_id: 'owner', is_account_owner: true });
    expect((await api(`${runtime.bootstrap.api_url}products`, { token })).status).toBe(200);
    await context.close();
  }, 60_000);

  it('shows the wrong-password message in German for a German browser', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${runtime.bootstrap.signin_url}?redirect_uri=${encodeURIComponent(`${siteOrigin}/admin/oauth.html`)}`);
    await page.getByLabel('Benutzer-ID oder E-Mail').fill('owner');
    await page.getByLabel('Passwort').fill('definitely not the password');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Anmelden' }).click()]);
    await page.locator('[data-error-code="invalid_login"]').waitFor();
    expect(await page.locator('[data-error-code]').textContent()).toBe('Benutzername oder Passwort ist falsch.');
    await context.close();
  }, 60_000);

  it('with an unregistered redirect URI signs in, shows the error page, and never goes there', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const before = visits.length;
    const foreign = `${siteOrigin}/steal`;
    await page.goto(`${runtime.bootstrap.signin_url}?redirect_uri=${encodeURIComponent(foreign)}`);
    await page.getByLabel('User ID or email').fill('owner');
    await page.getByLabel('Password').fill(runtime.bootstrap.owner.password);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.locator('[data-error-code="redirect_uri_unregistered"]').waitFor();
    expect(page.url().startsWith(runtime.bootstrap.signin_url)).toBe(true);
    expect(await page.content()).not.toContain('tt.live.');
    expect(visits.slice(before)).toEqual([]);
    await context.close();
  }, 60_000);

  it("is shown inside a frame only of its redirect URI's origin", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const framed = (redirect: string) => `${siteOrigin}/frame?src=${encodeURIComponent(`${runtime.bootstrap.signin_url}?iframe=true&redirect_uri=${encodeURIComponent(redirect)}`)}`;
    // The redirect's own origin may frame it (auth.md 5.1): the form renders inside.
    await page.goto(framed(`${siteOrigin}/admin/oauth.html`));
    await page.frameLocator('#f').locator('form').waitFor();
    // Any other origin is refused by frame-ancestors: once the page and its frame have loaded, no form is there.
    await page.goto(framed('https://admin.example.test/cb'));
    await page.waitForLoadState('load');
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    expect(frame).toBeDefined();
    expect(await frame!.locator('form').count()).toBe(0);
    await context.close();
  }, 60_000);
});
