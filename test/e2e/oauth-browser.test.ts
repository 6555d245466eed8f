/**
 * The OAuth authorize page in headless Chromium (auth.md 6.2), JavaScript off as the pages need
 * none: the owner signs in on the form naming the app, allows it on the consent screen and lands
 * on the app's registered redirect with a code, which the app (here the test, as its server)
 * exchanges with its PKCE verifier for working tokens; denying lands there with
 * `error=access_denied` and no code.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { pkcePair, tokenRequest } from '../support/oauth';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let browser: Browser;
/** A stand-in for the app's callback on 127.0.0.1. */
let site: Server;
let callback: string;
let client: { id: string; secret: string };

beforeAll(async () => {
  site = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>App</title><h1 id="landed">App</h1>'));
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', () => done()));
  callback = `http://127.0.0.1:${(site.address() as { port: number }).port}/cb`;
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  const app = await api(`${runtime.bootstrap.api_url}oauth_apps`, { method: 'POST', token: runtime.bootstrap.tokens.live_secret, body: { name: 'Browser App', redirect_uris: [callback] } });
  expect(app.status, app.text).toBe(201);
  client = { id: app.body.client_id, secret: app.body.client_secret };
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (runtime) expect(await runtime.stop()).toBe(0);
  await new Promise((done) => site?.close(done));
});

/** Opens the authorize page for a code with PKCE and signs the owner in; the page is then on the consent screen. */
async function toConsent(challenge: string, state: string) {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const query = new URLSearchParams({ response_type: 'code', client_id: client.id, redirect_uri: callback, state, code_challenge: challenge, code_challenge_method: 'S256' });
  await page.goto(`${runtime.bootstrap.signin_url}oauth/authorize?${query}`);
  expect(await page.locator('h1').textContent()).toContain('Browser App');
  await page.getByLabel('User ID or email').fill('owner');
  await page.getByLabel('Password').fill(runtime.bootstrap.owner.password);
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
  await page.locator('[data-consent-app="Browser App"]').waitFor();
  return { context, page };
}

describe('the authorize page in a browser', () => {
  it('signs in, allows the app on the consent screen, lands on the redirect with a code that PKCE exchanges for tokens', async () => {
    const { verifier, challenge } = pkcePair();
    const { context, page } = await toConsent(challenge, 'browser-1');
    await Promise.all([page.waitForURL(`${callback}?**`), page.getByRole('button', { name: 'Allow' }).click()]);
    await page.locator('#landed').waitFor();
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe('browser-1');
    const code = landed.searchParams.get('code')!;
    expect(code).toMatch(/^[0-9A-Za-z]{40}$/);
    await context.close();
    const tokens = await tokenRequest(runtime.bootstrap.api_url, { grant_type: 'authorization_code', code, redirect_uri: callback, code_verifier: verifier }, { basic: { clientId: client.id, secret: client.secret } });
    expect(tokens.status, tokens.text).toBe(200);
    const me = await api(`${runtime.bootstrap.api_url}users/me`, { token: tokens.body.access_token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.user_id).toBe('owner');
  }, 60_000);

  it('denying lands on the redirect with error=access_denied and no code', async () => {
    const { context, page } = await toConsent(pkcePair().challenge, 'browser-2');
    await Promise.all([page.waitForURL(`${callback}?**`), page.getByRole('button', { name: 'Deny' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('state')).toBe('browser-2');
    expect(landed.searchParams.get('code')).toBeNull();
    await context.close();
  }, 60_000);
});
