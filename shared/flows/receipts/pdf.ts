/**
 * Prints a `PrintableDocument` as a PDF with pdfkit: A4, DejaVu Sans embedded (subset) so Latin,
 * Greek and Cyrillic names print as written, money in the currency's own decimals and the
 * locale's conventions (the `formatted=true` formatters, conventions.md §14). Long documents
 * flow onto more pages: every page repeats the running header (seller, title and number), the
 * line table repeats its column heads, and every page is numbered `Page n of N`.
 *
 * Pure: a model in, bytes out, no reads. A receipt page takes a few milliseconds.
 */
import PDFDocument from 'pdfkit';
import { formatDateTime, formatMoney, formatPercent } from '../../rest/formatted';
import { documentFonts } from './fonts';
import type { PrintableDocument, PrintableLicense, PrintableLine, PrintableParty } from './printable-document';

/** A4 in points. */
const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const LEFT = 48;
const RIGHT = PAGE_WIDTH - 48;
const WIDTH = RIGHT - LEFT;
/** Where the body starts on every page, below the running header. */
const BODY_TOP = 78;
/** Nothing of the body is written below this line (the page number sits under it). */
const BODY_BOTTOM = PAGE_HEIGHT - 64;

const TEXT = '#1f2933';
const MUTED = '#616e7c';
const RULE = '#d3d8de';

/** Font names registered on every document. */
const REGULAR = 'regular';
const BOLD = 'bold';

/** The line table's columns: x offset from LEFT, width, alignment. */
const COLUMNS = {
  item: { x: 0, width: 205, align: 'left' },
  quantity: { x: 205, width: 40, align: 'right' },
  unitPrice: { x: 245, width: 70, align: 'right' },
  discount: { x: 315, width: 62, align: 'right' },
  tax: { x: 377, width: 44, align: 'right' },
  amount: { x: 421, width: WIDTH - 421, align: 'right' },
} as const;

/** The totals block: a label column and an amount column, right-aligned to the margin. */
const TOTALS_LABEL = { x: WIDTH - 300, width: 205 };
const TOTALS_AMOUNT = { x: WIDTH - 95, width: 95 };

type Align = 'left' | 'right' | 'center';

interface TextStyle {
  font?: typeof REGULAR | typeof BOLD;
  size?: number;
  color?: string;
  align?: Align;
}

/** Writes a document page by page, keeping its own vertical position. */
class Writer {
  y = BODY_TOP;
  /** Redrawn at the top of each new page while a table is being written. */
  private continuation: (() => void) | undefined;

  constructor(
    readonly pdf: PDFKit.PDFDocument,
    private readonly runningHeader: () => void,
  ) {
    runningHeader();
  }

  /** The height `text` takes in `width` with `style`. */
  height(text: string, width: number, style: TextStyle = {}): number {
    this.apply(style);
    return this.pdf.heightOfString(text, { width, lineGap: 1 });
  }

  /** Writes `text` at (LEFT + x, y) within `width`, without moving `y`; answers its height. */
  text(text: string, x: number, width: number, style: TextStyle = {}, y = this.y): number {
    this.apply(style);
    this.pdf.text(text, LEFT + x, y, { width, align: style.align ?? 'left', lineGap: 1 });
    return this.pdf.heightOfString(text, { width, lineGap: 1 });
  }

  /** Makes room for `height` points: a new page (with the running header and any table heads) when this one is full. */
  ensure(height: number): void {
    if (this.y + height <= BODY_BOTTOM) return;
    this.pdf.addPage();
    this.y = BODY_TOP;
    this.runningHeader();
    this.continuation?.();
  }

  /** Runs `body` with `heads` drawn now and again at the top of every page it flows onto. */
  table(heads: () => void, body: () => void): void {
    heads();
    this.continuation = heads;
    try {
      body();
    } finally {
      this.continuation = undefined;
    }
  }

  rule(color = RULE, y = this.y): void {
    this.pdf.moveTo(LEFT, y).lineTo(RIGHT, y).lineWidth(0.6).strokeColor(color).stroke();
  }

  private apply(style: TextStyle): void {
    this.pdf.font(style.font ?? REGULAR).fontSize(style.size ?? 9).fillColor(style.color ?? TEXT);
  }
}

/** Formatting in the document's locale, zone and currency. */
interface Formats {
  money(amount: number): string;
  percent(fraction: number): string;
  date(epochMs: number): string;
  quantity(quantity: number): string;
}

/** Quantity formatters by locale: building one costs more than printing a page's numbers, so each is built once (locales come from resolveLocale, a bounded set; capped anyway). */
const quantityFormats = new Map<string, Intl.NumberFormat>();

function quantityFormat(locale: string): Intl.NumberFormat {
  let format = quantityFormats.get(locale);
  if (!format) {
    if (quantityFormats.size >= 200) quantityFormats.clear();
    format = new Intl.NumberFormat(locale, { maximumFractionDigits: 3 });
    quantityFormats.set(locale, format);
  }
  return format;
}

function formatsOf(document: PrintableDocument): Formats {
  const quantities = quantityFormat(document.locale);
  return {
    money: (amount) => formatMoney(amount, document.currency, document.locale),
    percent: (fraction) => formatPercent(fraction, document.locale),
    date: (epochMs) => {
      try {
        return formatDateTime(epochMs, document.zone, document.locale);
      } catch {
        // An unusable zone should not stop a receipt; UTC is still a true time.
        return `${formatDateTime(epochMs, 'UTC', document.locale)} UTC`;
      }
    },
    quantity: (quantity) => quantities.format(quantity).replace(/[\u202f\u00a0]/g, ' '),
  };
}

/** A value printed on one line: control characters (line breaks included) become spaces, runs of spaces collapse. */
function oneLine(value: string | null | undefined): string {
  return (value ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The lines a party prints as. */
function partyLines(party: PrintableParty): { name: string; rest: string[] } {
  const name = oneLine(party.name) || oneLine(party.companyName);
  const company = oneLine(party.name) ? oneLine(party.companyName) : '';
  const rest = [company, ...(party.address ?? []).map(oneLine), oneLine(party.email), oneLine(party.phone), oneLine(party.website)];
  if (oneLine(party.taxNumber)) rest.push(`Tax number: ${oneLine(party.taxNumber)}`);
  return { name, rest: rest.filter(Boolean) };
}

/**
 * Renders `document` as PDF bytes.
 *
 * @example const pdf = await renderDocumentPdf(orderReceiptDocument(facts)); // Buffer starting `%PDF-`
 */
export function renderDocumentPdf(document: PrintableDocument): Promise<Buffer> {
  const title = `${oneLine(document.title)} ${oneLine(document.number)}`;
  const sellerName = partyLines(document.seller).name;
  // No default font: pdfkit would load its built-in Helvetica metrics, which a bundle does not carry.
  const pdf = new PDFDocument({
    size: [PAGE_WIDTH, PAGE_HEIGHT],
    margin: 0,
    bufferPages: true,
    font: null as unknown as string,
    lang: 'en',
    displayTitle: true,
    info: { Title: title, Author: sellerName || 'Cartwheel', Creator: 'Cartwheel', Producer: 'Cartwheel' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  registerFonts(pdf);

  const formats = formatsOf(document);
  const writer = new Writer(pdf, () => {
    const top = 34;
    writerText(pdf, sellerName, 0, top, WIDTH / 2, { font: BOLD, size: 10 });
    writerText(pdf, title, WIDTH / 2, top, WIDTH / 2, { font: BOLD, size: 10, align: 'right' });
    pdf.moveTo(LEFT, top + 18).lineTo(RIGHT, top + 18).lineWidth(0.6).strokeColor(RULE).stroke();
  });

  writeHeading(writer, document, formats);
  writeParties(writer, document);
  writeLines(writer, document, formats);
  writeTotals(writer, document, formats);
  writePayments(writer, document, formats);
  writeRefunds(writer, document, formats);
  writeLicenses(writer, document.licenses);
  writeFooter(writer, document.footer ?? []);

  // Page numbers go on last, once the count is known.
  const { start, count } = pdf.bufferedPageRange();
  for (let index = start; index < start + count; index++) {
    pdf.switchToPage(index);
    writerText(pdf, title, 0, PAGE_HEIGHT - 44, WIDTH / 2, { size: 8, color: MUTED });
    writerText(pdf, `Page ${index - start + 1} of ${count}`, WIDTH / 2, PAGE_HEIGHT - 44, WIDTH / 2, { size: 8, color: MUTED, align: 'right' });
  }
  pdf.end();
  return done;
}

/**
 * Renders an invoice (`invoiceDocument` maps one onto the model: title `Invoice`, its number,
 * due date and state, lines, totals, payments so far and what remains). The same layout as a
 * receipt: one entry to wire where an invoice is read with `Accept: application/pdf`.
 */
export function renderInvoicePdf(document: PrintableDocument): Promise<Buffer> {
  return renderDocumentPdf(document);
}

/**
 * The fonts as pdfkit's font engine (fontkit) parsed them, kept for the life of the process:
 * parsing DejaVu's tables again for every document (its glyph, metrics and layout tables are
 * large) took most of a render. Every document embeds its own subset of them.
 */
let parsedFonts: { regular: unknown; bold: unknown } | undefined;

/** Registers the two fonts on `pdf` by name, parsing them on the process's first document. */
function registerFonts(pdf: PDFKit.PDFDocument): void {
  if (parsedFonts) {
    pdf.registerFont(REGULAR, parsedFonts.regular as Buffer);
    pdf.registerFont(BOLD, parsedFonts.bold as Buffer);
    return;
  }
  const fonts = documentFonts();
  pdf.registerFont(REGULAR, fonts.regular);
  pdf.registerFont(BOLD, fonts.bold);
  // Opening a registered font parses it; the parsed font is what a later document registers.
  const parsedOf = (name: string) => (pdf.font(name) as unknown as { _font: { font: unknown } })._font.font;
  parsedFonts = { regular: parsedOf(REGULAR), bold: parsedOf(BOLD) };
}

/** Text at an absolute position inside the margins, outside any writer (running header, page numbers). */
function writerText(pdf: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, style: TextStyle): void {
  pdf
    .font(style.font ?? REGULAR)
    .fontSize(style.size ?? 9)
    .fillColor(style.color ?? TEXT)
    .text(text, LEFT + x, y, { width, align: style.align ?? 'left', ellipsis: true, height: (style.size ?? 9) * 1.3 });
}

function writeHeading(writer: Writer, document: PrintableDocument, formats: Formats): void {
  if (document.test) {
    const banner = 'TEST: made in test mode; no real payment was taken.';
    writer.pdf.rect(LEFT, writer.y, WIDTH, 20).fill('#fff4e5');
    writer.text(banner, 8, WIDTH - 16, { font: BOLD, size: 9, color: '#8a4b00' }, writer.y + 5.5);
    writer.y += 30;
  }
  writer.y += writer.text(oneLine(document.title), 0, WIDTH, { font: BOLD, size: 22 }) + 8;
  const facts: Array<[string, string]> = [['Number', oneLine(document.number)]];
  for (const { label, dateMs } of document.dates) if (dateMs !== null) facts.push([label, formats.date(dateMs)]);
  for (const { label, value } of document.facts ?? []) if (oneLine(value)) facts.push([label, oneLine(value)]);
  for (const [label, value] of facts) {
    const height = Math.max(writer.height(value, WIDTH - 90), 12);
    writer.ensure(height);
    writer.text(label, 0, 85, { color: MUTED });
    writer.text(value, 90, WIDTH - 90, { font: label === 'Number' ? BOLD : REGULAR });
    writer.y += height + 2;
  }
  writer.y += 14;
}

function writeParties(writer: Writer, document: PrintableDocument): void {
  const blocks: Array<{ heading: string; lines: string[]; name: string }> = [];
  const seller = partyLines(document.seller);
  blocks.push({ heading: 'From', name: seller.name, lines: seller.rest });
  if (document.buyer) {
    const buyer = partyLines(document.buyer);
    if (buyer.name || buyer.rest.length) blocks.push({ heading: 'Bill to', name: buyer.name, lines: buyer.rest });
  }
  const shipTo = (document.shipTo ?? []).map(oneLine).filter(Boolean);
  if (shipTo.length) blocks.push({ heading: 'Ship to', name: shipTo[0]!, lines: shipTo.slice(1) });
  const width = (WIDTH - 24) / 3;
  const heights = blocks.map((block) => 14 + writer.height(block.name || '—', width, { font: BOLD }) + block.lines.reduce((sum, line) => sum + writer.height(line, width), 0));
  writer.ensure(Math.max(...heights));
  blocks.forEach((block, index) => {
    const x = index * (width + 12);
    let y = writer.y;
    writer.text(block.heading.toUpperCase(), x, width, { font: BOLD, size: 7.5, color: MUTED }, y);
    y += 14;
    y += writer.text(block.name || '—', x, width, { font: BOLD }, y);
    for (const line of block.lines) y += writer.text(line, x, width, {}, y);
  });
  writer.y += Math.max(...heights) + 20;
}

function writeLines(writer: Writer, document: PrintableDocument, formats: Formats): void {
  const heads = () => {
    writer.ensure(20);
    const labels: Record<keyof typeof COLUMNS, string> = { item: 'Item', quantity: 'Qty', unitPrice: 'Unit price', discount: 'Discount', tax: 'Tax', amount: document.totals.taxInclusive ? 'Amount (incl. tax)' : 'Amount' };
    for (const [key, column] of Object.entries(COLUMNS) as Array<[keyof typeof COLUMNS, (typeof COLUMNS)[keyof typeof COLUMNS]]>) {
      writer.text(labels[key], column.x, column.width, { font: BOLD, size: 7.5, color: MUTED, align: column.align });
    }
    writer.y += 13;
    writer.rule();
    writer.y += 5;
  };
  writer.table(heads, () => {
    for (const line of document.lines) writeLine(writer, line, formats);
  });
  writer.rule();
  writer.y += 8;
}

function writeLine(writer: Writer, line: PrintableLine, formats: Formats): void {
  const name = oneLine(line.name) || '—';
  const reference = oneLine(line.reference);
  const nameHeight = writer.height(name, COLUMNS.item.width - 6) + (reference ? writer.height(reference, COLUMNS.item.width - 6, { size: 7 }) : 0);
  const height = Math.max(nameHeight, 12) + 5;
  writer.ensure(height);
  const y = writer.y;
  const nameLines = writer.text(name, COLUMNS.item.x, COLUMNS.item.width - 6);
  if (reference) writer.text(reference, COLUMNS.item.x, COLUMNS.item.width - 6, { size: 7, color: MUTED }, y + nameLines);
  writer.text(formats.quantity(line.quantity), COLUMNS.quantity.x, COLUMNS.quantity.width, { align: 'right' });
  writer.text(formats.money(line.unitPrice), COLUMNS.unitPrice.x, COLUMNS.unitPrice.width, { align: 'right' });
  writer.text(line.discount ? formats.money(-Math.abs(line.discount)) : '', COLUMNS.discount.x, COLUMNS.discount.width, { align: 'right' });
  writer.text(formats.percent(line.taxRate), COLUMNS.tax.x, COLUMNS.tax.width, { align: 'right', color: MUTED });
  writer.text(formats.money(line.amount), COLUMNS.amount.x, COLUMNS.amount.width, { align: 'right' });
  writer.y += height;
}

/** Tax by rate over the lines and shipping; a single row when the lines do not add up to the sale's tax. */
function taxRows(document: PrintableDocument): Array<{ rate: number | null; amount: number }> {
  const byRate = new Map<number, number>();
  const parts = [...document.lines.map((line) => ({ rate: line.taxRate, tax: line.tax })), ...(document.shipping ? [{ rate: document.shipping.taxRate, tax: document.shipping.tax }] : [])];
  for (const { rate, tax } of parts) if (tax !== 0) byRate.set(rate, (byRate.get(rate) ?? 0) + tax);
  const sum = [...byRate.values()].reduce((total, amount) => total + amount, 0);
  if (byRate.size === 0 || Math.abs(sum - document.totals.tax) > 1e-6) return [{ rate: byRate.size === 1 ? [...byRate.keys()][0]! : null, amount: document.totals.tax }];
  return [...byRate.entries()].sort(([a], [b]) => a - b).map(([rate, amount]) => ({ rate, amount }));
}

function writeTotals(writer: Writer, document: PrintableDocument, formats: Formats): void {
  const { totals } = document;
  const rows: Array<{ label: string; amount: string; strong?: boolean; rule?: boolean }> = [];
  if (totals.discount) {
    rows.push({ label: 'Subtotal before discount', amount: formats.money(totals.subtotalOriginal) });
    const code = oneLine(totals.promotionCode);
    rows.push({ label: code ? `Discount (${code})` : 'Discount', amount: formats.money(-Math.abs(totals.discount)) });
  }
  rows.push({ label: 'Subtotal', amount: formats.money(totals.subtotal) });
  if (document.shipping || totals.shipping) {
    const method = oneLine(document.shipping?.name);
    rows.push({ label: method ? `Shipping (${method})` : 'Shipping', amount: formats.money(totals.shipping) });
  }
  const taxes = taxRows(document).map(({ rate, amount }) => {
    const label = rate === null ? 'Tax' : `Tax ${formats.percent(rate)}`;
    return { label: totals.taxInclusive ? `Includes ${label.toLowerCase()}` : label, amount: formats.money(amount) };
  });
  const total = { label: 'Total', amount: formats.money(totals.total), strong: true, rule: true };
  // Inclusive tax is part of the total: listed after it as information, not added.
  rows.push(...(totals.taxInclusive ? [total, ...taxes] : [...taxes, total]));
  document.balance.forEach((line, index) => rows.push({ label: line.label, amount: formats.money(line.amount), strong: line.strong ?? false, rule: index === 0 }));

  writer.y += 4;
  for (const row of rows) {
    const style: TextStyle = row.strong ? { font: BOLD, size: 10.5 } : {};
    const height = Math.max(writer.height(row.label, TOTALS_LABEL.width, style), 12) + 4;
    writer.ensure(height + (row.rule ? 4 : 0));
    if (row.rule) {
      writer.pdf.moveTo(LEFT + TOTALS_LABEL.x, writer.y).lineTo(RIGHT, writer.y).lineWidth(0.6).strokeColor(RULE).stroke();
      writer.y += 4;
    }
    writer.text(row.label, TOTALS_LABEL.x, TOTALS_LABEL.width, { ...style, align: 'right' });
    writer.text(row.amount, TOTALS_AMOUNT.x, TOTALS_AMOUNT.width, { ...style, align: 'right' });
    writer.y += height;
  }
  writer.y += 16;
}

/** A section heading, kept on the page with at least `following` points of what comes under it. */
function sectionHeading(writer: Writer, heading: string, following: number): void {
  writer.ensure(22 + following);
  writer.text(heading, 0, WIDTH, { font: BOLD, size: 11 });
  writer.y += 16;
  writer.rule();
  writer.y += 5;
}

/** Rows of a dated table (payments, refunds): date, description, amount. */
function datedRows(writer: Writer, heading: string, rows: Array<{ date: string; description: string; detail: string; amount: string }>): void {
  if (!rows.length) return;
  sectionHeading(writer, heading, 16);
  for (const row of rows) {
    const height = Math.max(writer.height(row.description, 250) + (row.detail ? writer.height(row.detail, 250, { size: 8 }) : 0), 12) + 5;
    writer.ensure(height);
    writer.text(row.date, 0, 140, { color: MUTED });
    const first = writer.text(row.description, 150, 250);
    if (row.detail) writer.text(row.detail, 150, 250, { size: 8, color: MUTED }, writer.y + first);
    writer.text(row.amount, TOTALS_AMOUNT.x, TOTALS_AMOUNT.width, { align: 'right' });
    writer.y += height;
  }
  writer.y += 12;
}

function writePayments(writer: Writer, document: PrintableDocument, formats: Formats): void {
  datedRows(
    writer,
    'Payments',
    document.payments.map((payment) => ({
      date: formats.date(payment.dateMs),
      description: oneLine(payment.method) || 'Payment',
      detail: oneLine(payment.reference),
      amount: formats.money(payment.amount),
    })),
  );
}

function writeRefunds(writer: Writer, document: PrintableDocument, formats: Formats): void {
  datedRows(
    writer,
    'Refunds',
    document.refunds.map((refund) => ({
      date: formats.date(refund.dateMs),
      description: [`Refund ${oneLine(refund.reference)}`, oneLine(refund.reason)].filter(Boolean).join(': '),
      detail: (refund.items ?? []).map(oneLine).filter(Boolean).join(', '),
      amount: formats.money(-Math.abs(refund.amount)),
    })),
  );
}

function writeLicenses(writer: Writer, licenses: readonly PrintableLicense[]): void {
  if (!licenses.length) return;
  sectionHeading(writer, 'License codes', 40);
  for (const license of licenses) {
    const item = oneLine(license.itemName);
    const label = oneLine(license.label) || 'License';
    writer.ensure(30);
    writer.y += writer.text(`${item} — ${label}`, 0, WIDTH, { font: BOLD }) + 2;
    // Codes are printed whole, one per line, so they copy back exactly.
    for (const code of license.codes) {
      const height = writer.height(code, WIDTH - 12, { font: BOLD, size: 10.5 });
      writer.ensure(height + 2);
      writer.y += writer.text(code, 12, WIDTH - 12, { font: BOLD, size: 10.5 }) + 2;
    }
    if (license.note) {
      const height = writer.height(oneLine(license.note), WIDTH - 12);
      writer.ensure(height);
      writer.y += writer.text(oneLine(license.note), 12, WIDTH - 12) + 2;
    }
    for (const paragraph of (license.instructions ?? '').split('\n')) {
      const text = paragraph.trim();
      if (!text) {
        writer.y += 4;
        continue;
      }
      const height = writer.height(text, WIDTH - 12, { size: 8.5, color: MUTED });
      writer.ensure(height);
      writer.y += writer.text(text, 12, WIDTH - 12, { size: 8.5, color: MUTED });
    }
    writer.y += 12;
  }
}

function writeFooter(writer: Writer, lines: readonly string[]): void {
  const shown = lines.map(oneLine).filter(Boolean);
  if (!shown.length) return;
  writer.y += 6;
  const height = shown.reduce((sum, line) => sum + writer.height(line, WIDTH, { size: 8.5 }), 0);
  writer.ensure(height + 6);
  writer.rule();
  writer.y += 6;
  for (const line of shown) writer.y += writer.text(line, 0, WIDTH, { size: 8.5, color: MUTED });
}
