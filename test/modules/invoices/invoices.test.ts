/**
 * The invoice rules that need no store (commerce.md §9, §9.2, §11): the states and what each
 * allows (publish, cancel, delete), pricing through the cart's calculator with custom lines that
 * a promotion never discounts, the document a printable invoice reads, the pay-link URL, and the
 * invoice email.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../shared/http/errors';
import { emptyAddress } from '../../../shared/rest/addresses';
import { withTotals } from '../../../shared/modules/carts';
import { InvoiceLockedError, InvoiceStateError } from '../../../shared/modules/invoices/errors';
import { assertDeletable, cancelInvoice, publishInvoice } from '../../../shared/modules/invoices/invoices';
import { renderInvoiceEmail } from '../../../shared/modules/invoices/invoice-email';
import { linkUrlOf } from '../../../shared/modules/invoices/links';
import { invoiceDocumentOf } from '../../../shared/modules/invoices/reads';
import { invoiceState, type InvoiceItemRecord, type InvoiceRecord } from '../../../shared/modules/invoices/records';
import { configureStore } from '../../../shared/store/client';
import { paymentSettings, taxSettings } from '../pricing/fixtures';

// Entries name the table; nothing here reaches it.
configureStore({ tableName: 'cartwheel', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:1' } });

const payment = paymentSettings();
const tax = taxSettings([{ country: 'US', state_prov: null, rate: 0.1 }]);
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

const productLine = (id: string, price: number, quantity = 1): InvoiceItemRecord => ({
  item_id: id, product_id: id, name: `The ${id}`, type: 'digital', quantity, meta: null, tax_code: null, subscription_plan: null, unit_price_original: price, reference_price: null, reference_currency: null,
});
const customLine = (id: string, name: string, price: number): InvoiceItemRecord => ({
  item_id: id, product_id: null, name, type: 'service', quantity: 1, meta: { hours: 2 }, tax_code: null, subscription_plan: null, unit_price_original: price, reference_price: price, reference_currency: 'USD',
});

/** A priced invoice (draft unless `overrides` say otherwise). */
function invoice(overrides: Partial<InvoiceRecord> = {}): InvoiceRecord {
  const base: InvoiceRecord = {
    invoice_id: 'INV1', account_id: 'acct', mode: 'test', draft: true, open: false, payment_status: 'unpaid', date_due_ms: null, date_published_ms: null,
    currency: 'USD',
    customer: { customer_id: null, name: 'Ada Lee', email: 'ada@example.test', company_name: null, phone: null, tax_number: null, username: null, billing_address: { ...emptyAddress(), country: 'US' }, shipping_address: emptyAddress() },
    customer_tax_exempt: false, items: [productLine('ebook', 20, 2), customLine('fee', 'Setup call', 50)], shipping_method_id: null, shipping_methods: [],
    promotion_code: null, promotion_id: null, promotion_terms: null, referrer: null, affiliate_id: null, customer_ip_address: null, customer_ip_country: null,
    meta: { po: 'PO-1' }, totals: undefined as unknown as InvoiceRecord['totals'], total_payments: 0, order_id: null, payment_lock: null, created_ms: NOW - 60_000, modified_ms: NOW - 60_000,
    ...overrides,
  };
  return withTotals(base, payment, tax);
}

function apiError(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an API error');
}

describe('invoice states (§9.2)', () => {
  it('reads draft, open, paid and cancelled from draft and payment_status', () => {
    expect(invoiceState({ draft: true, payment_status: 'unpaid' })).toBe('draft');
    expect(invoiceState({ draft: false, payment_status: 'unpaid' })).toBe('open');
    expect(invoiceState({ draft: false, payment_status: 'completed' })).toBe('paid');
    expect(invoiceState({ draft: false, payment_status: 'cancelled' })).toBe('cancelled');
  });

  it('publishes a draft with items and an email, and makes its email due in the same write', () => {
    const revision = publishInvoice(invoice(), NOW);
    expect(revision.next).toMatchObject({ draft: false, open: true, payment_status: 'unpaid', date_published_ms: NOW });
    expect(revision.extra?.map((entry) => entry.name)).toEqual([expect.stringMatching(/^due\.invoice-email/)]);
  });

  it('refuses to publish without items (400 items) or email (400 customer.email), and anything but a draft (422)', () => {
    expect(apiError(() => publishInvoice(invoice({ items: [] }), NOW))).toMatchObject({ status: 400, code: 'invalid_input', meta: { property: 'items', reason: 'required' } });
    const noEmail = invoice();
    noEmail.customer = { ...noEmail.customer, email: null };
    expect(apiError(() => publishInvoice(noEmail, NOW))).toMatchObject({ status: 400, meta: { property: 'customer.email' } });
    for (const state of [{ draft: false, open: true }, { draft: false, payment_status: 'completed' as const }, { draft: false, payment_status: 'cancelled' as const }]) {
      const error = apiError(() => publishInvoice(invoice(state), NOW));
      expect(error).toBeInstanceOf(InvoiceStateError);
      expect(error).toMatchObject({ status: 422, code: 'invalid_state' });
    }
  });

  it('cancels only an open invoice, and not while a payment holds it', () => {
    expect(cancelInvoice(invoice({ draft: false, open: true }), NOW).next).toMatchObject({ open: false, payment_status: 'cancelled', draft: false });
    for (const state of [{}, { draft: false, payment_status: 'completed' as const }, { draft: false, payment_status: 'cancelled' as const }]) {
      expect(apiError(() => cancelInvoice(invoice(state), NOW))).toMatchObject({ status: 422, code: 'invalid_state' });
    }
    const locked = invoice({ draft: false, open: true, payment_lock: { payment_id: 'P1', until_ms: NOW + 1000 } });
    expect(apiError(() => cancelInvoice(locked, NOW))).toBeInstanceOf(InvoiceLockedError);
    // A lapsed lock (its payment's process died) does not hold it.
    expect(cancelInvoice({ ...locked, payment_lock: { payment_id: 'P1', until_ms: NOW - 1 } }, NOW).next.payment_status).toBe('cancelled');
  });

  it('deletes drafts only', () => {
    expect(() => assertDeletable(invoice())).not.toThrow();
    for (const state of [{ draft: false, open: true }, { draft: false, payment_status: 'completed' as const }, { draft: false, payment_status: 'cancelled' as const }]) {
      expect(apiError(() => assertDeletable(invoice(state)))).toMatchObject({ status: 422, code: 'invalid_state' });
    }
  });
});

describe('invoice pricing through the cart calculator', () => {
  it('gives a percent code to the product lines only, never to a custom line', () => {
    const priced = invoice({ promotion_code: 'TEN', promotion_id: 'ten', promotion_terms: { discount_type: 'percent', discount_percent: 0.1, discount_amounts: [], product_ids: [] } });
    expect(priced.totals.items.map((line) => [line.item_id, line.discount, line.subtotal])).toEqual([['ebook', 4, 36], ['fee', 0, 50]]);
    expect(priced.totals).toMatchObject({ subtotal: 86, discount: 4, tax: 8.6, total: 94.6 });
  });

  it('spreads an amount code over the product lines, capped at their subtotal, however large the custom lines', () => {
    const terms = { discount_type: 'amount' as const, discount_percent: null, discount_amounts: [{ currency: 'USD', amount: 100 }], product_ids: [] };
    const priced = invoice({ items: [productLine('ebook', 20), productLine('course', 60), customLine('fee', 'Fee', 500)], promotion_code: 'BIG', promotion_id: 'big', promotion_terms: terms });
    expect(priced.totals.items.map((line) => line.discount)).toEqual([20, 60, 0]);
    expect(priced.totals.discount).toBe(80);
  });
});

describe('the invoice document (for printable invoices)', () => {
  it('reads the lines with their amounts, products and meta, and the totals still due', () => {
    const paidPart = { ...invoice({ draft: false, open: true, date_due_ms: NOW + 86_400_000 }) };
    const document = invoiceDocumentOf(paidPart);
    expect(document).toMatchObject({ invoice_id: 'INV1', state: 'open', currency: 'USD', total_payments: 0, total_remaining: 99, meta: { po: 'PO-1' }, date_due_ms: NOW + 86_400_000 });
    expect(document.lines.map((line) => [line.item_id, line.product_id, line.subtotal, line.tax, line.reference_price, line.meta])).toEqual([
      ['ebook', 'ebook', 40, 4, null, null],
      ['fee', null, 50, 5, null, { hours: 2 }],
    ]);
    expect(document.totals).toMatchObject({ subtotal: 90, tax: 9, total: 99 });
    expect(invoiceDocumentOf({ ...paidPart, payment_status: 'completed', open: false, total_payments: 99 })).toMatchObject({ state: 'paid', total_remaining: 0 });
  });
});

describe('pay links', () => {
  it('fill the invoice id and token into the account template, URL-encoded, or are null without one', () => {
    expect(linkUrlOf('https://shop.example.test/pay/{{invoice_id}}?t={{token}}', 'INV1', 'lt.test.a+b')).toBe('https://shop.example.test/pay/INV1?t=lt.test.a%2Bb');
    expect(linkUrlOf(null, 'INV1', 'lt.test.x')).toBeNull();
    expect(linkUrlOf('', 'INV1', 'lt.test.x')).toBeNull();
  });
});

describe('the invoice email', () => {
  it('shows the lines, totals, due date and pay link in both parts, escaping what the merchant typed', () => {
    const published = invoice({ draft: false, open: true, date_due_ms: Date.UTC(2026, 11, 31, 23, 59, 59), items: [productLine('ebook', 20, 2), customLine('fee', '<b>Setup</b> & call', 50)] });
    const email = renderInvoiceEmail(published, { companyName: 'Acme', supportEmail: 'help@acme.example', locale: 'en-US', zone: 'UTC', linkUrl: 'https://shop.example.test/pay?i=INV1&t=x', test: true });
    expect(email.subject).toBe('[TEST] Invoice INV1 from Acme');
    for (const part of [email.text, email.html]) {
      expect(part).toContain('$40.00');
      expect(part).toContain('$99.00');
      expect(part).toContain('2026');
      expect(part).toContain('help@acme.example');
    }
    expect(email.text).toContain('<b>Setup</b> & call');
    expect(email.text).toContain('Pay online: https://shop.example.test/pay?i=INV1&t=x');
    expect(email.html).toContain('&lt;b&gt;Setup&lt;/b&gt; &amp; call');
    expect(email.html).not.toContain('<b>Setup</b>');
    expect(email.html).toContain('href="https://shop.example.test/pay?i=INV1&amp;t=x"');
    const noLink = renderInvoiceEmail(published, { companyName: 'Acme', supportEmail: null, locale: 'en-US', zone: 'UTC', linkUrl: null, test: false });
    expect(noLink.subject).toBe('Invoice INV1 from Acme');
    expect(noLink.text).not.toContain('Pay online');
  });
});
