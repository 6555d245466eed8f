/**
 * Printable receipts over HTTP against a real local runtime (conventions.md §4, commerce.md §5,
 * §7, licenses.md §7): `GET /orders/{id}` with `Accept: application/pdf` answers a PDF whose text
 * (read back with poppler's pdftotext) holds the seller, the buyer, the Greek and Cyrillic product
 * names, the promotion discount, the tax, the totals, the payment without its card number, the
 * refund made so far and the license code with its instructions, all in the currency's decimals.
 * Page 1 is kept as a PNG in `test-artifacts/` (pdftoppm). Every other `Accept` keeps JSON; the
 * shopper's limited token reads its receipt, another shopper's token, a token with base rights
 * and the other mode are refused exactly as the JSON read refuses them; a long order paginates.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const ARTIFACTS = resolve(__dirname, '../../test-artifacts');
const RATES = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
const CARD = '4242424242424242';
const card = { payment_method: { type: 'credit_card', data: { number: CARD, exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ада Лавлейс' } } };
const buyer = { name: 'Ада Лавлейс', email: 'ada@example.test', company_name: 'Λογισμικό ΑΕ', billing_address: { address_1: '1 Market St', city: 'San Francisco', state_prov: 'CA', country: 'US', postal_code: '94107' } };
const INSTRUCTIONS = '<p>Open <b>Help &gt; Register</b> and paste the serial number.</p>';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;
let live: string;
const folder = mkdtempSync(join(tmpdir(), 'receipts-e2e-'));

/** A PDF answer's bytes. */
async function pdfOf(path: string, token: string, accept = 'application/pdf'): Promise<{ status: number; type: string | null; vary: string | null; disposition: string | null; bytes: Buffer }> {
  const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}`, Accept: accept } });
  return { status: response.status, type: response.headers.get('content-type'), vary: response.headers.get('vary'), disposition: response.headers.get('content-disposition'), bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The text of a PDF, page by page (pdftotext separates pages with a form feed). */
function pagesOf(pdf: Buffer, name: string): string[] {
  const file = join(folder, `${name}.pdf`);
  writeFileSync(file, pdf);
  const text = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
  return text.split('\f').filter((page) => page.trim() !== '');
}

async function shopper(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.token;
}

/** A paid order of `items` by a fresh shopper, once no license of it is pending: the shopper's token and the order (licenses expanded). */
async function paidOrder(items: Array<{ product_id: string; quantity: number }>, extra: Record<string, unknown> = {}): Promise<{ token: string; order: any }> {
  const token = await shopper();
  const cart = await api(`${base}carts`, { method: 'POST', token, body: { items, customer: buyer, ...extra } });
  expect(cart.status, cart.text).toBe(201);
  const paid = await api(`${base}carts/${cart.body.cart_id}/payments?expand=order`, { method: 'POST', token, body: card });
  expect(paid.status, paid.text).toBe(201);
  const orderId = paid.body.order.order_id as string;
  // Licenses are assigned by the queue's worker: wait for the condition, not for a time.
  for (const started = Date.now(); ; ) {
    const order = await api(`${base}orders/${orderId}?expand=items.license`, { token: secret });
    expect(order.status, order.text).toBe(200);
    if (!order.body.items.some((item: any) => item.license_pending)) return { token, order: order.body };
    if (Date.now() - started > 60_000) throw new Error(`Licenses still pending: ${order.text}`);
    await new Promise((resume) => setTimeout(resume, 100));
  }
}

const money = (amount: number) => `$${amount.toFixed(2)}`;

beforeAll(async () => {
  runtime = await startRuntime({ env: RATES });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  live = runtime.bootstrap.tokens.live_secret;
  const services = await api(`${base}license_services`, {
    method: 'POST',
    token: secret,
    body: { name: 'Editor keys', label: 'Serial number', instructions: INSTRUCTIONS, type: 'list', configuration: { licenses: ['PE-4471-AZQ', 'PE-4472-AZQ', 'PE-4473-AZQ'], remove_after_use: true } },
  });
  expect(services.status, services.text).toBe(201);
  const setup: Array<[string, unknown]> = [
    ['settings/general', { company_name: 'Ακμή Books', support_email: 'help@akmi.test' }],
    ['settings/tax', { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] }],
    ['settings/payment', { duplicate_payment_timeout: 0 }],
    ['promotions', { promotion_id: 'save10', name: 'Ten off', code: 'SAVE10', discount_type: 'percent', discount_percent: 0.1 }],
    ['products', { product_id: 'editor', name: 'Photo editor Pro', type: 'digital', prices: [{ currency: 'USD', price: 50 }], license_service_id: services.body.license_service_id }],
    ['products', { product_id: 'guide-el', name: 'Οδηγός Python', type: 'digital', prices: [{ currency: 'USD', price: 19 }] }],
    ['products', { product_id: 'book-ru', name: 'Книга о Rust', type: 'digital', prices: [{ currency: 'USD', price: 25 }] }],
  ];
  for (const [path, body] of setup) {
    const answer = await api(`${base}${path}`, { method: 'POST', token: secret, body });
    expect(answer.status, `${path}: ${answer.text}`).toBeLessThan(300);
  }
}, 180_000);

afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  expect(await runtime.stop()).toBe(0);
});

describe('GET /orders/{id} as a PDF receipt', () => {
  let token: string;
  let order: any;
  let refund: any;

  beforeAll(async () => {
    ({ token, order } = await paidOrder(
      [
        { product_id: 'editor', quantity: 1 },
        { product_id: 'guide-el', quantity: 2 },
        { product_id: 'book-ru', quantity: 1 },
      ],
      { promotion_code: 'save10' },
    ));
    const refunded = await api(`${base}orders/${order.order_id}/refunds`, { method: 'POST', token: secret, body: { items: [{ item_id: 'book-ru', quantity: 1 }], reason: 'Damaged in transit' } });
    expect(refunded.status, refunded.text).toBe(201);
    refund = refunded.body;
    const read = await api(`${base}orders/${order.order_id}?expand=items.license`, { token: secret });
    order = read.body;
  }, 120_000);

  it('prints the totals, the discount, the tax, the payment, the refund and the license code, with Greek and Cyrillic intact', async () => {
    expect(order).toMatchObject({ promotion_code: 'SAVE10', payment_status: 'completed' });
    expect(order.discount).toBeGreaterThan(0);
    expect(order.tax).toBeGreaterThan(0);
    expect(order.total_refunded).toBe(refund.total);
    const code = order.items.find((item: any) => item.item_id === 'editor').license.text as string;
    expect(code).toMatch(/^PE-447\d-AZQ$/);

    const answer = await pdfOf(`orders/${order.order_id}`, token);
    expect(answer.status, answer.bytes.toString()).toBe(200);
    expect(answer.type).toBe('application/pdf');
    expect(answer.vary).toBe('Accept');
    expect(answer.disposition).toBe(`inline; filename="receipt-${order.order_id}.pdf"`);
    expect(answer.bytes.subarray(0, 5).toString()).toBe('%PDF-');

    const pages = pagesOf(answer.bytes, 'receipt');
    const text = pages.join('\n');
    for (const expected of [
      'Receipt',
      order.order_id,
      'Ακμή Books',
      'help@akmi.test',
      'Ада Лавлейс',
      'Λογισμικό ΑΕ',
      '1 Market St',
      'Photo editor Pro',
      'Οδηγός Python',
      'Книга о Rust',
      'Discount (SAVE10)',
      money(-order.discount).replace('$-', '-$'),
      money(order.subtotal_original),
      money(order.subtotal),
      'Tax 10%',
      money(order.tax),
      money(order.total),
      'Visa 4242',
      order.payment.split('/').pop(),
      `Refund ${refund.refund_id}: Damaged in transit`,
      '1 × Книга о Rust',
      `-${money(refund.total)}`,
      'Refunded so far',
      'Net paid',
      money(order.total - refund.total),
      'Serial number',
      code,
      'Open Help > Register and paste the serial number.',
      'Paid, partly refunded',
    ]) expect(text, expected).toContain(expected);
    expect(text).toContain(`Page 1 of ${pages.length}`);
    // The card number is never printed, whole or masked beyond the last four digits.
    expect(text.replace(/\s/g, '')).not.toContain(CARD);
    expect(text).not.toContain('4242424242');

    // Page 1 as an image, kept for people to look at.
    mkdirSync(ARTIFACTS, { recursive: true });
    const prefix = join(ARTIFACTS, 'receipt-page');
    execFileSync('pdftoppm', ['-png', '-r', '80', '-f', '1', '-l', '1', '-singlefile', join(folder, 'receipt.pdf'), prefix]);
    const png = readFileSync(`${prefix}.png`);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // A blank page compresses to almost nothing; a printed one does not.
    expect(png.length).toBeGreaterThan(20_000);
  });

  it('keeps JSON for every Accept but one that prefers application/pdf (never 406)', async () => {
    const cases: Array<[string | undefined, 'json' | 'pdf']> = [
      [undefined, 'json'],
      ['application/json', 'json'],
      ['*/*', 'json'],
      ['application/pdf', 'pdf'],
      ['application/pdf, application/json;q=0.9', 'pdf'],
      ['application/pdf;q=0.1, application/json', 'json'],
      ['application/json, application/pdf', 'json'],
      ['image/png', 'json'],
      ['text/html, text/csv;q=0.5', 'json'],
    ];
    for (const [accept, kind] of cases) {
      const response = await fetch(`${base}orders/${order.order_id}`, { headers: { Authorization: `Bearer ${secret}`, ...(accept ? { Accept: accept } : {}) } });
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(response.status, String(accept)).toBe(200);
      expect(response.headers.get('vary'), String(accept)).toBe('Accept');
      if (kind === 'pdf') {
        expect(response.headers.get('content-type'), String(accept)).toBe('application/pdf');
        expect(bytes.subarray(0, 5).toString(), String(accept)).toBe('%PDF-');
      } else {
        expect(response.headers.get('content-type'), String(accept)).toBe('application/json');
        expect(JSON.parse(bytes.toString('utf8')), String(accept)).toMatchObject({ object: 'order', order_id: order.order_id, total: order.total });
      }
    }
  });

  it('refuses, as the JSON read does, another shopper, a token with base rights only, the other mode and an unknown order', async () => {
    const other = (await paidOrder([{ product_id: 'guide-el', quantity: 1 }])).token;
    const unbound = await shopper();
    const refusals: Array<[string, string, string]> = [
      ['another shopper', other, `orders/${order.order_id}`],
      ['base rights only', unbound, `orders/${order.order_id}`],
      ['the live mode', live, `orders/${order.order_id}`],
      ['an unknown order', secret, 'orders/NOSUCHORDER1'],
    ];
    for (const [who, caller, path] of refusals) {
      const json = await api(`${base}${path}`, { token: caller });
      const pdf = await api(`${base}${path}`, { token: caller, headers: { Accept: 'application/pdf' } });
      expect(json.status, who).toBeGreaterThanOrEqual(400);
      expect(pdf.status, who).toBe(json.status);
      expect(pdf.headers.get('content-type'), who).toBe('application/json');
      expect(pdf.body.error.code, who).toBe(json.body.error.code);
    }
    expect((await api(`${base}orders/${order.order_id}`, { token: other, headers: { Accept: 'application/pdf' } })).status).toBe(404);
    expect((await api(`${base}orders/${order.order_id}`, { token: unbound, headers: { Accept: 'application/pdf' } })).body.error.code).toBe('resource_not_found');
  });

  it('lets a signed-in customer print its own receipts and no one else’s (customer scope)', async () => {
    const customerId = order.customer.split('/').pop();
    const credentials = await api(`${base}customers/${customerId}`, { method: 'POST', token: secret, body: { username: 'ada-receipts', password: 'correct horse battery' } });
    expect(credentials.status, credentials.text).toBe(200);
    const signedIn = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth`, { method: 'POST', body: { username: 'ada-receipts', password: 'correct horse battery' } });
    expect(signedIn.status, signedIn.text).toBe(200);
    const portal = signedIn.body.auth.token as string;
    const own = await pdfOf(`orders/${order.order_id}`, portal);
    expect(own.status).toBe(200);
    expect(pagesOf(own.bytes, 'portal').join('\n')).toContain(order.order_id);
    const someoneElses = (await paidOrder([{ product_id: 'guide-el', quantity: 1 }])).order.order_id;
    const refused = await api(`${base}orders/${someoneElses}`, { token: portal, headers: { Accept: 'application/pdf' } });
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('resource_not_found');
  });

  it('answers the same bad-input errors as the JSON read (an unknown zone)', async () => {
    const json = await api(`${base}orders/${order.order_id}?timezone=Mars/Olympus`, { token: secret });
    const pdf = await api(`${base}orders/${order.order_id}?timezone=Mars/Olympus`, { token: secret, headers: { Accept: 'application/pdf' } });
    expect(json.status).toBe(400);
    expect(pdf.status).toBe(400);
    expect(pdf.body.error).toMatchObject({ code: json.body.error.code });
  });
});

describe('a long order', () => {
  it('flows onto numbered pages, each repeating the header', async () => {
    const ids = Array.from({ length: 40 }, (_, index) => `line-${String(index + 1).padStart(2, '0')}`);
    for (const id of ids) {
      const created = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: id, name: `Τετράδιο ${id} тетрадь`, type: 'digital', prices: [{ currency: 'USD', price: 3.33 }] } });
      expect(created.status, created.text).toBe(201);
    }
    const { token, order } = await paidOrder(ids.map((product_id) => ({ product_id, quantity: 1 })));
    const answer = await pdfOf(`orders/${order.order_id}`, token);
    expect(answer.status).toBe(200);
    const pages = pagesOf(answer.bytes, 'long');
    expect(pages.length).toBeGreaterThanOrEqual(2);
    pages.forEach((page, index) => {
      expect(page, `page ${index + 1}`).toContain(`Receipt ${order.order_id}`);
      expect(page, `page ${index + 1}`).toContain('Ακμή Books');
      expect(page, `page ${index + 1}`).toContain(`Page ${index + 1} of ${pages.length}`);
    });
    const printed = [...pages.join('\n').matchAll(/Τετράδιο (line-\d\d) тетрадь/g)].map((match) => match[1]);
    expect(printed).toEqual(ids);
    expect(pages.at(-1)).toContain(money(order.total));
  }, 180_000);
});
