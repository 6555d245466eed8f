/**
 * The example storefront (examples/storefront) as a shopper meets it: uploaded as a zip,
 * deployed, opened on the account's app host in headless Chromium (Debian's `chromium`, driven
 * by playwright-core), and used to buy a licensed product with the test card through the
 * same-origin `/api/v1`. The receipt shows the order lines and, once the remote license script
 * answered, the code. A screenshot of the receipt is kept in `test-artifacts/`.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { launchChromium } from '../support/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';
import { zipFiles } from '../support/zip-writer';

const EXAMPLE = resolve(__dirname, '../../examples/storefront');
const ARTIFACTS = resolve(__dirname, '../../test-artifacts');

let runtime: RuntimeProcess;
let browser: Browser;
let receiver: Receiver;
let base: string;
let secret: string;
let appHost: string;

beforeAll(async () => {
  receiver = await startReceiver(() => ({ status: 200, body: 'KEY-<b>7731</b>' }));
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  secret = runtime.bootstrap.tokens.test_secret;
  appHost = `http://${runtime.bootstrap.account_id.toLowerCase()}.apps.localhost:${runtime.port}`;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (runtime) expect(await runtime.stop()).toBe(0);
  await receiver?.close();
});

describe('the example storefront', () => {
  it('is uploaded, deployed and used to buy a licensed product in a browser', async () => {
    // A test-mode shop hands out shopper tokens to anyone only when the account allows it (auth.md §3).
    expect((await api(`${base}settings/technical`, { method: 'POST', token: secret, body: { allow_public_limited_test_tokens: true } })).status).toBe(200);
    const service = await api(`${base}license_services`, { method: 'POST', token: secret, body: { name: 'Keys', label: 'Serial number', type: 'remote_url', configuration: { url: `${receiver.url}/keys` } } });
    expect(service.status, service.text).toBe(201);
    const picture = new FormData();
    picture.append('file', new Blob([new Uint8Array(await sharp({ create: { width: 400, height: 320, channels: 3, background: '#0b6e4f' } }).png().toBuffer())], { type: 'image/png' }), 'editor.png');
    const image = await fetch(`${base}images`, { method: 'POST', headers: { Authorization: `Bearer ${secret}` }, body: picture });
    expect(image.status).toBe(201);
    const imageId = ((await image.json()) as { image_id: string }).image_id;
    for (const product of [
      { product_id: 'photo-editor', name: 'Photo Editor Pro', type: 'digital', prices: [{ currency: 'USD', price: 49 }], license_service_id: service.body.license_service_id, image_ids: [imageId] },
      { product_id: 'manual', name: 'Printed manual', type: 'digital', prices: [{ currency: 'USD', price: 5 }] },
    ]) {
      const created = await api(`${base}products`, { method: 'POST', token: secret, body: product });
      expect(created.status, created.text).toBe(201);
    }
    const app = await api(`${base}apps`, { method: 'POST', token: secret, body: { name: 'Storefront', alias: 'shop', settings: { shop_title: 'Example shop' } } });
    expect(app.status, app.text).toBe(201);
    expect(app.body.test).toBe(true);
    const files = Object.fromEntries(readdirSync(EXAMPLE).map((name) => [name, readFileSync(join(EXAMPLE, name))]));
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(zipFiles(files))], { type: 'application/zip' }), 'storefront.zip');
    const uploaded = await fetch(`${base}apps/${app.body.app_id}/versions`, { method: 'POST', headers: { Authorization: `Bearer ${secret}` }, body: form });
    const version = (await uploaded.json()) as { version_id: string; status: string };
    expect(uploaded.status).toBe(201);
    expect(version.status).toBe('ready');
    const deployed = await api(`${base}apps/${app.body.app_id}/deploy`, { method: 'POST', token: secret, body: { version_id: version.version_id } });
    expect(deployed.status, deployed.text).toBe(201);

    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${appHost}/shop/`);
    await page.getByText('Photo Editor Pro').waitFor();
    expect(await page.locator('#mode').isVisible()).toBe(true);
    // An empty cart shows no card form; the product with an image shows it, the other a placeholder.
    expect(await page.locator('#checkout').isVisible()).toBe(false);
    expect(await page.locator('#cart-empty').isVisible()).toBe(true);
    const thumb = page.locator('li[data-product-id="photo-editor"] img.thumb');
    await expect.poll(() => thumb.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).complete && (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(300);
    expect(await thumb.getAttribute('alt')).toBe('Photo Editor Pro');
    expect(await page.locator('li[data-product-id="manual"] img').count()).toBe(0);
    await page.locator('li[data-product-id="photo-editor"] button').click();
    await page.locator('li[data-product-id="manual"] button').click();
    expect(await page.locator('#checkout').isVisible()).toBe(true);
    await page.fill('input[name=name]', 'Ana Ruiz');
    await page.fill('input[name=email]', 'ana@example.org');
    await page.fill('input[name=number]', '4242424242424242');
    await page.click('#pay');
    await page.locator('#receipt').waitFor();
    // The remote script answers at once; the receipt polls until the code is there.
    await page.locator('.license').waitFor({ timeout: 20_000 });
    expect(await page.locator('.license').textContent()).toBe('KEY-7731');
    const rows = await page.locator('#receipt-lines tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('Photo Editor Pro');
    expect(rows[0]).toContain('Serial number');
    expect(rows[1]).toContain('Printed manual');
    expect(await page.locator('#order-total').textContent()).toContain('54');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'storefront-receipt.png'), fullPage: true });
    expect(failures).toEqual([]);

    // The purchase is real: the order exists, paid through the same-origin API with a shopper token.
    const orderId = await page.locator('#order-id').textContent();
    const order = await api(`${base}orders/${orderId}?expand=items.license`, { token: secret });
    expect(order.status, order.text).toBe(200);
    expect(order.body.items[0].license.text).toBe('KEY-7731');
    const [call] = await receiver.receivedAt('/keys', 1);
    expect(JSON.parse(call!.body.toString('utf8')).order.order_id).toBe(orderId);
  }, 90_000);
});
