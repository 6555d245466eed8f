/**
 * The printable document renderer (shared/flows/receipts/pdf.ts), read back with poppler's
 * pdftotext: every part of a receipt prints, Greek and Cyrillic survive (DejaVu Sans embedded),
 * money follows the currency's decimals, and a long document flows onto numbered pages that each
 * repeat the running header and the line table's heads.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderDocumentPdf, renderInvoicePdf } from '../../../shared/flows/receipts/pdf';
import type { PrintableDocument, PrintableLine } from '../../../shared/flows/receipts/printable-document';

const folder = mkdtempSync(join(tmpdir(), 'receipts-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The text of a PDF, page by page (pdftotext separates pages with a form feed). */
function pagesOf(pdf: Buffer, name: string): string[] {
  const file = join(folder, `${name}.pdf`);
  writeFileSync(file, pdf);
  const text = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
  return text.split('\f').filter((page) => page.trim() !== '');
}

const line = (name: string, overrides: Partial<PrintableLine> = {}): PrintableLine => ({
  name, reference: 'sku-1', quantity: 1, unitPrice: 10, discount: 0, taxRate: 0.1, tax: 1, amount: 10, ...overrides,
});

function receipt(overrides: Partial<PrintableDocument> = {}): PrintableDocument {
  return {
    title: 'Receipt',
    number: 'R7K2PQ',
    test: false,
    currency: 'USD',
    locale: 'en-US',
    zone: 'UTC',
    dates: [{ label: 'Date', dateMs: Date.UTC(2026, 10, 21, 14, 5) }],
    facts: [{ label: 'Status', value: 'Paid, partly refunded' }],
    seller: { name: 'Acme Books', email: 'help@acme.test', website: 'https://acme.test' },
    buyer: { name: 'Ада Лавлейс', companyName: 'Λογισμικό ΑΕ', email: 'ada@example.test', address: ['Unter den Linden 1', '10117 Berlin', 'Germany'] },
    lines: [line('Οδηγός Python', { quantity: 2, unitPrice: 19, discount: 3.8, tax: 3.42, amount: 34.2 }), line('Книга о Rust', { unitPrice: 5, tax: 0.5, amount: 5 })],
    shipping: null,
    totals: { subtotalOriginal: 43, discount: 3.8, promotionCode: 'SAVE10', subtotal: 39.2, shipping: 0, tax: 3.92, taxInclusive: false, total: 43.12 },
    payments: [{ dateMs: Date.UTC(2026, 10, 21, 14, 5), method: 'Visa 4242', reference: 'PAY123', amount: 43.12 }],
    refunds: [{ dateMs: Date.UTC(2026, 10, 22, 9, 0), reference: 'RF9', reason: 'Damaged', items: ['1 × Книга о Rust'], amount: 5.5 }],
    balance: [{ label: 'Paid', amount: 43.12 }, { label: 'Refunded so far', amount: -5.5 }, { label: 'Net paid', amount: 37.62, strong: true }],
    licenses: [{ itemName: 'Οδηγός Python', label: 'Serial number', codes: ['PE-4471-AZQ', 'PE-4472-AZQ'], instructions: 'Open Help > Register.\n\nPaste the serial number.' }],
    footer: ['Questions about this order? help@acme.test'],
    ...overrides,
  };
}

describe('renderDocumentPdf', () => {
  it('prints the parties, lines, discount, taxes, totals, payment, refunds and license codes', async () => {
    const pdf = await renderDocumentPdf(receipt());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const [page, ...rest] = pagesOf(pdf, 'one');
    expect(rest).toEqual([]);
    for (const expected of [
      'Acme Books', 'Receipt R7K2PQ', 'Nov 21, 2026, 2:05 PM', 'Paid, partly refunded', 'Ада Лавлейс', 'Λογισμικό ΑΕ', '10117 Berlin',
      'Οδηγός Python', 'Книга о Rust', '$19.00', '-$3.80', 'Discount (SAVE10)', '$43.00', '$39.20', 'Tax 10%', '$3.92', '$43.12',
      'Visa 4242', 'PAY123', 'Refund RF9: Damaged', '1 × Книга о Rust', '-$5.50', 'Refunded so far', 'Net paid', '$37.62',
      'Serial number', 'PE-4471-AZQ', 'PE-4472-AZQ', 'Open Help > Register.', 'Paste the serial number.', 'Page 1 of 1',
    ]) expect(page, expected).toContain(expected);
    expect(page).not.toMatch(/TEST/);
  });

  it('writes money in the currency’s own decimals and the locale’s conventions', async () => {
    const yen = pagesOf(await renderDocumentPdf(receipt({ currency: 'JPY', lines: [line('Tee', { unitPrice: 1235, amount: 1235, tax: 0, taxRate: 0 })], totals: { subtotalOriginal: 1235, discount: 0, subtotal: 1235, shipping: 0, tax: 0, taxInclusive: false, total: 1235 }, refunds: [], payments: [], balance: [] })), 'jpy')[0]!;
    expect(yen).toContain('¥1,235');
    expect(yen).not.toContain('¥1,235.00');
    const dinar = pagesOf(await renderDocumentPdf(receipt({ currency: 'BHD', refunds: [], balance: [] })), 'bhd')[0]!;
    expect(dinar).toMatch(/BHD\s43\.120/);
    const euro = pagesOf(await renderDocumentPdf(receipt({ currency: 'EUR', locale: 'de-DE', refunds: [], balance: [] })), 'eur')[0]!;
    expect(euro).toContain('43,12 €');
    expect(euro).toContain('21.11.2026, 14:05');
  });

  it('marks test-mode documents and says inclusive tax is included', async () => {
    const page = pagesOf(await renderDocumentPdf(receipt({ test: true, totals: { ...receipt().totals, taxInclusive: true } })), 'test')[0]!;
    expect(page).toContain('TEST: made in test mode');
    expect(page).toContain('Includes tax 10%');
    expect(page).toContain('Amount (incl. tax)');
  });

  it('flows a long document onto numbered pages, each with the running header and the table heads', async () => {
    const lines = Array.from({ length: 150 }, (_, index) => line(`Item ${index + 1} Ελληνικά Кириллица`, { reference: `sku-${index + 1}` }));
    const pages = pagesOf(await renderDocumentPdf(receipt({ lines })), 'long');
    expect(pages.length).toBeGreaterThanOrEqual(4);
    pages.forEach((page, index) => {
      expect(page, `page ${index + 1}`).toContain('Acme Books');
      expect(page, `page ${index + 1}`).toContain('Receipt R7K2PQ');
      expect(page, `page ${index + 1}`).toContain(`Page ${index + 1} of ${pages.length}`);
    });
    // Every line printed once, in order, and the heads repeat on each page the table reaches.
    const all = pages.join('\n');
    const printed = [...all.matchAll(/Item (\d+) Ελληνικά Кириллица/g)].map((match) => Number(match[1]));
    expect(printed).toEqual(lines.map((_, index) => index + 1));
    const withItems = pages.filter((page) => /Item \d+ Ελληνικά/.test(page));
    for (const page of withItems) expect(page).toMatch(/Item\s+Qty\s+Unit price/);
    expect(pages.at(-1)).toContain('PE-4471-AZQ');
  });

  it('prints an invoice through the same model', async () => {
    const page = pagesOf(
      await renderInvoicePdf(receipt({ title: 'Invoice', number: 'INV42', dates: [{ label: 'Date', dateMs: Date.UTC(2026, 10, 1) }, { label: 'Due', dateMs: Date.UTC(2026, 11, 1) }], facts: [{ label: 'Status', value: 'Open' }], refunds: [], licenses: [], balance: [{ label: 'Paid so far', amount: 10 }, { label: 'Remaining', amount: 33.12, strong: true }] })),
      'invoice',
    )[0]!;
    for (const expected of ['Invoice INV42', 'Due', 'Dec 1, 2026', 'Open', 'Paid so far', 'Remaining', '$33.12']) expect(page, expected).toContain(expected);
  });
});
