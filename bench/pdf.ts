/**
 * Receipt rendering (shared/flows/receipts/pdf.ts): p50 / p95 of `renderDocumentPdf` for a
 * one-page and a ten-page receipt (Latin, Greek and Cyrillic names, a discount, tax, a refund and
 * license codes), as wall time and as CPU time (what it takes of one core on a machine busy with
 * other work). The first render of the process (reading and parsing the fonts) is timed apart.
 *
 *   npm run bench:pdf [-- --runs 40]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderDocumentPdf } from '../shared/flows/receipts/pdf';
import type { PrintableDocument, PrintableLine } from '../shared/flows/receipts/printable-document';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '40' } } });
const runs = Number(values.runs);

const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * p))] ?? 0;
const ms = (value: number) => `${value.toFixed(1)} ms`;

const NAMES = ['Field guide', 'Οδηγός πεδίου', 'Полевой справочник', 'Photo editor Pro', 'Λογισμικό επεξεργασίας', 'Книга о Rust'];

/** A receipt of `count` lines. */
function receipt(count: number): PrintableDocument {
  const lines: PrintableLine[] = Array.from({ length: count }, (_, index) => ({
    name: `${NAMES[index % NAMES.length]} ${index + 1}`,
    reference: `sku-${index + 1}`,
    quantity: 1 + (index % 3),
    unitPrice: 19,
    discount: 1.9,
    taxRate: 0.1,
    tax: 1.71,
    amount: 17.1,
  }));
  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
  return {
    title: 'Receipt',
    number: 'R7K2PQ8ZX1AB',
    test: false,
    currency: 'EUR',
    locale: 'de-DE',
    zone: 'Europe/Berlin',
    dates: [{ label: 'Date', dateMs: Date.UTC(2026, 10, 21, 14, 5) }],
    facts: [{ label: 'Status', value: 'Paid, partly refunded' }, { label: 'Payment', value: 'Visa 4242' }],
    seller: { name: 'Acme Books GmbH', email: 'help@acme.test', website: 'https://acme.test' },
    buyer: { name: 'Ада Лавлейс', companyName: 'Λογισμικό ΑΕ', email: 'ada@example.test', address: ['Unter den Linden 1', '10117 Berlin', 'Germany'] },
    lines,
    shipping: null,
    totals: { subtotalOriginal: subtotal + 1.9 * count, discount: 1.9 * count, promotionCode: 'SAVE10', subtotal, shipping: 0, tax: 1.71 * count, taxInclusive: false, total: subtotal + 1.71 * count },
    payments: [{ dateMs: Date.UTC(2026, 10, 21, 14, 5), method: 'Visa 4242', reference: 'PAY123', amount: subtotal + 1.71 * count }],
    refunds: [{ dateMs: Date.UTC(2026, 10, 22, 9), reference: 'RF9', reason: 'Damaged', items: ['1 × Field guide 1'], amount: 18.81 }],
    balance: [{ label: 'Paid', amount: subtotal + 1.71 * count }, { label: 'Refunded so far', amount: -18.81 }, { label: 'Net paid', amount: subtotal + 1.71 * count - 18.81, strong: true }],
    licenses: [{ itemName: 'Photo editor Pro 4', label: 'Serial number', codes: ['PE-4471-AZQ'], instructions: 'Open Help > Register and paste the serial number.' }],
    footer: ['Questions about this order? help@acme.test'],
  };
}

/** How many pages a PDF has (pdfinfo when installed, else the page objects counted). */
function pageCount(pdf: Buffer): number {
  const folder = mkdtempSync(join(tmpdir(), 'bench-pdf-'));
  try {
    const file = join(folder, 'receipt.pdf');
    writeFileSync(file, pdf);
    const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
    return Number(/Pages:\s+(\d+)/.exec(info)?.[1]);
  } catch {
    return (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function measure(label: string, document: PrintableDocument): Promise<void> {
  const wall: number[] = [];
  const cpu: number[] = [];
  let pdf: Buffer = Buffer.alloc(0);
  for (let run = 0; run < runs; run++) {
    const startCpu = process.cpuUsage();
    const start = performance.now();
    pdf = await renderDocumentPdf(document);
    wall.push(performance.now() - start);
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1000);
  }
  const pages = pageCount(pdf);
  console.log(
    `${label.padEnd(16)} ${String(document.lines.length).padStart(3)} lines, ${String(pages).padStart(2)} page(s), ${(pdf.length / 1024).toFixed(0).padStart(3)} KiB: ` +
      `wall p50 ${ms(percentile(wall, 0.5))} p95 ${ms(percentile(wall, 0.95))}; cpu p50 ${ms(percentile(cpu, 0.5))} (${ms(percentile(cpu, 0.5) / pages)} a page)`,
  );
}

console.log(`Node ${process.version}, ${cpus().length} cores, load ${loadavg().map((value) => value.toFixed(2)).join(' ')}; ${runs} runs each`);
const first = performance.now();
await renderDocumentPdf(receipt(3));
console.log(`first render (fonts read and parsed): ${ms(performance.now() - first)}`);
await measure('1-page receipt', receipt(await linesFor(1)));
await measure('10-page receipt', receipt(await linesFor(10)));

/** The number of lines that makes a receipt of exactly `pages` pages (about 30 lines a page). */
async function linesFor(pages: number): Promise<number> {
  let count = Math.max(1, pages * 30 - 24);
  for (let attempt = 0; attempt < 40; attempt++) {
    const printed = pageCount(await renderDocumentPdf(receipt(count)));
    if (printed === pages) return count;
    count = Math.max(1, count + (printed < pages ? 6 : -3));
  }
  throw new Error(`No line count gives ${pages} page(s)`);
}
