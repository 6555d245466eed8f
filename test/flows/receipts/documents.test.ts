/**
 * The mappings onto the printable document: an order with its customer, payment, refunds and
 * licenses (shared/flows/receipts/order-receipt.ts), and an invoice (invoice-document.ts).
 */
import { describe, expect, it } from 'vitest';
import { invoiceDocument } from '../../../shared/flows/receipts/invoice-document';
import { orderReceiptDocument, type OrderReceiptFacts } from '../../../shared/flows/receipts/order-receipt';
import type { CustomerRecord } from '../../../shared/modules/customers';
import type { InvoiceDocument, InvoiceDocumentLine } from '../../../shared/modules/invoices';
import type { LicenseRecord, LicenseServiceRecord } from '../../../shared/modules/licenses';
import type { OrderItemRecord, OrderRecord } from '../../../shared/modules/orders';
import type { PaymentRecord } from '../../../shared/modules/payments';
import type { RefundRecord } from '../../../shared/modules/refunds';

const address = (fields: Record<string, string>) => ({ name: null, address_1: null, address_2: null, city: null, state_prov: null, postal_code: null, country: null, email: null, meta: null, ...fields });

const item = (fields: Partial<OrderItemRecord>): OrderItemRecord =>
  ({ item_id: 'a', product_id: 'a', name: 'A', type: 'digital', quantity: 1, price_original: 10, price: 10, subtotal: 10, subtotal_original: 10, discount: 0, tax_rate: 0.2, tax: 2, total: 12, license: null, license_pending: false, license_service_id: null, ...fields }) as OrderItemRecord;

function facts(overrides: Partial<OrderReceiptFacts> = {}, order: Partial<OrderRecord> = {}): OrderReceiptFacts {
  return {
    order: {
      order_id: 'ORD1', mode: 'live', payment_status: 'completed', total_refunded: 0, promotion_code: null, customer_id: 'C1', payment_id: 'P1', created_ms: 1_000,
      totals: { currency: 'EUR', subtotal: 30, subtotal_original: 30, discount: 0, shipping: 5, tax: 7, total: 42, tax_inclusive: false },
      items: [item({ item_id: 'book', product_id: 'book', name: 'Book', type: 'physical', quantity: 2, subtotal: 20, tax: 4 }), item({ item_id: 'key', product_id: 'key', name: 'Key', license_pending: true, license_service_id: 'S1' })],
      shipping_item: { name: 'Post', subtotal: 5, tax_rate: 0.2, tax: 1 },
      ...order,
    } as OrderRecord,
    customer: { name: 'Ada', email: 'ada@example.test', company_name: null, phone: null, tax_number: 'DE123', billing_address: address({ name: 'Ada', city: 'Berlin', postal_code: '10117', country: 'DE' }), shipping_address: address({ name: 'Ada L.', address_1: 'Dock 4', city: 'Hamburg', postal_code: '20457', country: 'DE' }) } as unknown as CustomerRecord,
    payment: { payment_id: 'P1', created_ms: 1_000, total: 42, payment_method: { payment_method_id: null, type: 'credit_card', data: { label: 'Visa 4242', mask: '************4242', last4: '4242' } } } as unknown as PaymentRecord,
    refunds: [],
    licenses: new Map<string, LicenseRecord>(),
    services: new Map([['S1', { label: 'Activation key', instructions: '<p>Open <b>Settings</b>.</p>' } as LicenseServiceRecord]]),
    seller: { company_name: 'Acme', support_email: 'help@acme.test', support_website: null },
    locale: 'de-DE',
    zone: 'Europe/Berlin',
    ...overrides,
  };
}

describe('orderReceiptDocument', () => {
  it('maps the order, its buyer with billing and shipping addresses, the card label and the balance', () => {
    const document = orderReceiptDocument(facts());
    expect(document).toMatchObject({ title: 'Receipt', number: 'ORD1', test: false, currency: 'EUR', locale: 'de-DE', zone: 'Europe/Berlin' });
    expect(document.buyer).toMatchObject({ name: 'Ada', taxNumber: 'DE123', address: ['10117 Berlin', 'Germany'] });
    expect(document.shipTo).toEqual(['Ada L.', 'Dock 4', '20457 Hamburg', 'Germany']);
    expect(document.facts).toEqual([{ label: 'Status', value: 'Paid' }, { label: 'Payment', value: 'Visa 4242' }]);
    expect(document.lines.map((line) => [line.name, line.quantity, line.amount])).toEqual([['Book', 2, 20], ['Key', 1, 10]]);
    expect(document.shipping).toEqual({ name: 'Post', amount: 5, taxRate: 0.2, tax: 1 });
    expect(document.payments).toEqual([{ dateMs: 1_000, method: 'Visa 4242', reference: 'P1', amount: 42 }]);
    expect(document.balance).toEqual([{ label: 'Paid', amount: 42, strong: true }]);
    // The card is named by its label; the mask never reaches the document.
    expect(JSON.stringify(document)).not.toContain('****');
  });

  it('shows a pending code as its service’s label and instructions with a note, and a stored code whole', () => {
    expect(orderReceiptDocument(facts()).licenses).toEqual([{ itemName: 'Key', label: 'Activation key', codes: [], instructions: 'Open Settings.', note: 'The code for this item will follow by email.' }]);
    const license = { license_id: 'L1', label: 'Serial number', text: 'AB-1\nAB-2', html: 'AB-1<br>AB-2', instructions: null } as LicenseRecord;
    const withCode = facts({ licenses: new Map([['L1', license]]) }, {});
    withCode.order.items[1] = item({ item_id: 'key', name: 'Key', license: 'L1', license_service_id: 'S1' });
    expect(orderReceiptDocument(withCode).licenses).toEqual([{ itemName: 'Key', label: 'Serial number', codes: ['AB-1', 'AB-2'], instructions: null }]);
  });

  it('lists completed refunds in order, leaves failed ones out, and balances what was paid', () => {
    const refund = (id: string, status: RefundRecord['status'], at: number, total: number) => ({ refund_id: id, status, created_ms: at, total, reason: null, items: [] }) as unknown as RefundRecord;
    const document = orderReceiptDocument(facts({ refunds: [refund('R2', 'completed', 3_000, 30), refund('RX', 'failed', 2_500, 5), refund('R1', 'completed', 2_000, 12)] }, { payment_status: 'refunded', total_refunded: 42 }));
    expect(document.refunds.map((entry) => entry.reference)).toEqual(['R1', 'R2']);
    expect(document.facts?.[0]).toEqual({ label: 'Status', value: 'Refunded' });
    expect(document.balance).toEqual([{ label: 'Paid', amount: 42 }, { label: 'Refunded so far', amount: -42 }, { label: 'Net paid', amount: 0, strong: true }]);
  });
});

describe('invoiceDocument', () => {
  const invoice: InvoiceDocument = {
    invoice_id: 'INV1', mode: 'test', state: 'open', currency: 'USD', date_created_ms: 1_000, date_published_ms: 2_000, date_due_ms: 9_000,
    customer: { customer_id: null, username: null, name: 'Ada', email: 'ada@example.test', company_name: 'Acme', phone: null, tax_number: null, billing_address: address({ country: 'US', city: 'Austin', state_prov: 'TX', postal_code: '78701' }), shipping_address: address({}) },
    lines: [{ item_id: 'consulting', product_id: null, name: 'Consulting', quantity: 3, price_original: 100, discount: 0, tax_rate: 0, tax: 0, subtotal: 300 } as InvoiceDocumentLine],
    shipping: null, promotion_code: null, totals: { subtotal: 300, subtotal_original: 300, discount: 0, shipping: 0, tax: 0, total: 300, tax_inclusive: false } as InvoiceDocument['totals'],
    total_payments: 100, total_remaining: 200, order_id: null, meta: null,
  };

  it('titles it Invoice with its dates, state, lines, payments so far and what remains', () => {
    const document = invoiceDocument(invoice, [{ payment_id: 'P9', date_created_ms: 3_000, total: 100, method_label: 'Visa 4242' }], { company_name: 'Seller', support_email: null, support_website: null }, { locale: 'en-US', zone: 'UTC' });
    expect(document).toMatchObject({ title: 'Invoice', number: 'INV1', test: true, dates: [{ label: 'Date', dateMs: 2_000 }, { label: 'Due', dateMs: 9_000 }], facts: [{ label: 'Status', value: 'Open, partly paid' }] });
    expect(document.buyer?.address).toEqual(['Austin, TX 78701', 'United States']);
    expect(document.lines[0]).toMatchObject({ name: 'Consulting', reference: 'consulting', quantity: 3, amount: 300 });
    expect(document.payments).toEqual([{ dateMs: 3_000, method: 'Visa 4242', reference: 'P9', amount: 100 }]);
    expect(document.balance).toEqual([{ label: 'Paid so far', amount: 100 }, { label: 'Remaining', amount: 200, strong: true }]);
    expect(invoiceDocument({ ...invoice, state: 'cancelled' }, [], { company_name: null, support_email: null, support_website: null }, { locale: 'en-US', zone: 'UTC' })).toMatchObject({ facts: [{ value: 'Cancelled' }], balance: [] });
  });
});
