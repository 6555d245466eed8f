/**
 * The API reference at `/docs` in headless Chromium: the page and its vendored Scalar build come
 * from the runtime, render the runtime's own description (operations, their summaries, the
 * webhooks) without reaching any other host, and name the runtime as the server "try it" calls.
 * A screenshot is kept in `test-artifacts/docs.png`.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCALAR_SCRIPT } from '../../shared/http/docs-site';
import { DOCS_PAGE_CSP } from '../../handlers/http/docs';
import { launchChromium } from '../support/browser';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process';

const ARTIFACTS = resolve(import.meta.dirname, '../../test-artifacts');

let runtime: RuntimeProcess;
let browser: Browser;

beforeAll(async () => {
  runtime = await startRuntime();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  expect(await runtime.stop()).toBe(0);
});

describe('GET /docs', () => {
  it('answers the page and the vendored script, and nothing else under /docs', async () => {
    const page = await fetch(`${runtime.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // The same handler as the cloud's (handlers/http/docs.ts): its CSP allows only its own script and set-up.
    expect(page.headers.get('content-security-policy')).toBe(DOCS_PAGE_CSP);
    const html = await page.text();
    expect(html).toContain(`/docs/${SCALAR_SCRIPT}`);
    expect(html).toContain('/api/v1/openapi.json');
    const script = await fetch(`${runtime.url}/docs/${SCALAR_SCRIPT}`);
    expect(script.status).toBe(200);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
    expect((await fetch(`${runtime.url}/docs/other.js`)).status).toBe(404);
    expect((await fetch(`${runtime.url}/docs`, { method: 'POST' })).status).toBe(405);
  });

  it('renders the description in Chromium, offline, with the runtime as the server to try', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // Whatever the page's CSP refused would show here (and might leave the reference half-working).
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(`${runtime.url}/docs`);
    try {
      await page.getByRole('heading', { name: 'Cartwheel API' }).first().waitFor({ timeout: 60_000 });
      // Tags open on demand: the catalog's operations, by the summaries the description gives them.
      await page.getByText('catalog', { exact: true }).first().click();
      await page.getByText('List products').first().waitFor({ timeout: 30_000 });
    } catch (error) {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'docs-failed.png') });
      throw new Error(`The reference did not render: ${(await page.locator('body').innerText()).slice(0, 500)} | errors: ${errors.join('; ')} | requests: ${requested.join(', ')}`, { cause: error });
    }
    const text = await page.locator('body').innerText();
    expect(text).toContain('Cartwheel API');
    expect(text).toContain('Create a product');
    expect(text).toContain('webhooks');
    expect(text).toContain(runtime.bootstrap.api_url.replace(/\/$/, ''));
    expect(requested).toContain(`${runtime.url}/api/v1/openapi.json`);
    expect(requested.filter((url) => !url.startsWith(runtime.url) && !url.startsWith('data:') && !url.startsWith('blob:'))).toEqual([]);
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'docs.png') });
    await context.close();
  }, 120_000);
});
