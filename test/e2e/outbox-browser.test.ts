/**
 * The local outbox page in headless Chromium (issue 29): it reads like a mail client's list
 * (sender, subject, time, preview), renders the chosen message beside it, and moves between
 * messages by plain links. A screenshot is kept in `test-artifacts/outbox.png`.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const ARTIFACTS = resolve(import.meta.dirname, '../../test-artifacts');

let runtime: RuntimeProcess;
let browser: Browser;
const orders: string[] = [];

async function outboxCount(): Promise<number> {
  return (await api(`${runtime.url}/_local/outbox`)).body.data.length;
}

beforeAll(async () => {
  runtime = await startRuntime();
  const base = runtime.bootstrap.api_url;
  const secret = runtime.bootstrap.tokens.test_secret;
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'atlas', name: 'Ωmega Atlas', type: 'digital', prices: [{ currency: 'USD', price: 24 }] } });
  expect(product.status, product.text).toBe(201);
  for (const name of ['Ada Lee', 'Grace Hopper']) {
    const shopper = (await api(`${base}auths/limited?account_id=${runtime.bootstrap.account_id}&test=true`, { method: 'POST', token: secret })).body.token;
    const email = `${name.split(' ')[0]!.toLowerCase()}@example.test`;
    const cart = await api(`${base}carts`, { method: 'POST', token: shopper, body: { items: [{ product_id: 'atlas', quantity: 1 }], customer: { name, email, billing_address: { country: 'US', postal_code: '94107' } } } });
    expect(cart.status, cart.text).toBe(201);
    const paid = await api(`${base}carts/${cart.body.cart_id}/payments`, {
      method: 'POST',
      token: shopper,
      body: { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123' } } },
    });
    expect(paid.status, paid.text).toBe(201);
    orders.push(paid.body.order.split('/').pop());
  }
  // The confirmation emails are sent after the answer: wait until both are in the outbox.
  for (let attempt = 0; (await outboxCount()) < 2; attempt++) {
    if (attempt > 300) throw new Error('the confirmation emails never reached the outbox');
    await new Promise((settle) => setTimeout(settle, 100));
  }
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (runtime) expect(await runtime.stop()).toBe(0);
});

describe('the outbox page', () => {
  it('lists the messages like a mail client and renders the newest', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${runtime.url}/_local/outbox`);
    expect(await page.title()).toBe('Outbox (2) · Cartwheel');
    const rows = page.locator('nav li');
    expect(await rows.count()).toBe(2);
    // Newest first: Grace paid second.
    expect(await rows.nth(0).locator('.subject').textContent()).toContain(orders[1]);
    expect(await rows.nth(0).locator('.from').textContent()).toBeTruthy();
    expect(await rows.nth(0).locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await rows.nth(0).locator('.preview').textContent())!.length).toBeGreaterThan(10);
    expect(await page.locator('nav a[aria-current]').getAttribute('href')).toContain('?message=');
    const message = page.frameLocator('iframe');
    await expect.poll(async () => (await message.locator('body').textContent()) ?? '').toContain('Ωmega Atlas');
    expect(await page.locator('.head dd').nth(1).textContent()).toBe('grace@example.test');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'outbox.png'), fullPage: true });

    // A plain link moves to the other message; the page shows it, and the frame renders it.
    await rows.nth(1).locator('a').click();
    await page.waitForURL(/\?message=/);
    expect(await page.locator('.head dd').nth(1).textContent()).toBe('ada@example.test');
    expect(await page.locator('nav a[aria-current] .subject').textContent()).toContain(orders[0]);
    await expect.poll(async () => (await message.locator('body').textContent()) ?? '').toContain(orders[0]!);
    await page.close();
  });

  it('keeps the JSON list for tools, without the page-only fields', async () => {
    const list = await api(`${runtime.url}/_local/outbox`);
    expect(list.body.data).toHaveLength(2);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(['date', 'from', 'html_url', 'kind', 'message_id', 'order_id', 'subject', 'text_url', 'to']);
  });
});
