/**
 * The order confirmation email (licenses.md §9): a pure renderer from an order to subject, HTML
 * and text parts. The checkout capability decides when to send (see `confirmationReady`) and
 * hands the result to `sendEmail` with kind `order_confirmation`.
 *
 * Wording is English for every customer in v1; only numbers, money and dates follow the
 * customer's locale (or the account's), through the same formatters as `formatted=true`.
 */
import { formatCountry, formatDateTime, formatMoney, resolveLocale } from '../../../rest/formatted';
import { licenseHtmlToText, sanitizeLicenseReply } from '../../../modules/licenses';
import { escapeHtml } from '../../../core/html';
import { instructionsToText, tidyText } from './html';

/** A license as the email shows it: the expanded license object of commerce.md §5.4, or its parts. */
export interface ConfirmationLicense {
  /** The service's customer-facing label ("Serial number"); `License` when absent. */
  label?: string | null;
  /** Plain form of the code(s), one per line; used for the text part. */
  text: string | null;
  /** Sanitised HTML form (licenses.md §5.4); used for the HTML part, re-sanitised here. */
  html: string | null;
  /** The service's instructions (limited HTML, licenses.md §2.1); shown as escaped plain text. */
  instructions: string | null;
}

/** One product line of the order (commerce.md §5.4). */
export interface ConfirmationItem {
  item_id: string;
  name: string;
  quantity: number;
  price: number;
  total: number;
  /**
   * The line's subtotal (excluding tax unless the order is tax-inclusive). When present it is
   * the line amount shown, so the lines add up to the order subtotal; otherwise `total` is.
   */
  subtotal?: number;
  type: string;
  /**
   * The code(s) for this item, or null when the product has none. A license whose `text` and
   * `html` are both empty stands for a request that ended `failed`: the email shows the label,
   * the instructions and a note that the code follows separately (licenses.md §9).
   */
  license: ConfirmationLicense | null;
  license_pending: boolean;
}

/** An address (commerce.md §1.5); every part may be missing. */
export interface ConfirmationAddress {
  name?: string | null;
  company_name?: string | null;
  address_1?: string | null;
  address_2?: string | null;
  city?: string | null;
  state_prov?: string | null;
  postal_code?: string | null;
  country?: string | null;
}

/** The order fields the email needs (commerce.md §5.3), with the customer expanded. */
export interface ConfirmationOrder {
  order_id: string;
  date_created_ms: number;
  currency: string;
  subtotal: number;
  shipping: number;
  discount: number;
  tax: number;
  total: number;
  tax_inclusive: boolean;
  promotion_code: string | null;
  items: ConfirmationItem[];
  shipping_item: { name: string; total: number } | null;
  customer: { name: string | null; email: string; locale: string | null };
  billing_address?: ConfirmationAddress | null;
}

/** Account-level facts the email needs. */
export interface ConfirmationContext {
  companyName: string;
  supportEmail: string | null;
  /** The account's default locale, used when the customer has none or an unusable one. */
  accountLocale: string;
  /** The account's IANA time zone for the order date. */
  zone: string;
  /** The customer's receipt page; shown as a link when it is an http(s) URL. */
  receiptUrl?: string | null;
  test: boolean;
  /**
   * `license_follow_up`: the short email that brings the codes of an order whose confirmation
   * went out while a code was missing (licenses.md §9); the same layout, its own subject and opening line.
   */
  purpose?: 'confirmation' | 'license_follow_up';
}

/** A rendered email, ready for `sendEmail`; `locale` is the one numbers and dates used. */
export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
  locale: string;
}

/** Whether the confirmation may be sent: false while any item's license is pending (the email is held, licenses.md §9). */
export function confirmationReady(order: ConfirmationOrder): boolean {
  return !order.items.some((item) => item.license_pending);
}

/**
 * Renders the confirmation of an order for its customer.
 *
 * @example
 *   const email = renderOrderConfirmation(order, { companyName: 'Acme', supportEmail: 'help@acme.test',
 *     accountLocale: 'en-US', zone: 'America/New_York', test: false });
 *   await sendEmail({ to: order.customer.email, subject: email.subject, html: email.html,
 *     text: email.text, kind: 'order_confirmation', orderId: order.order_id });
 */
export function renderOrderConfirmation(order: ConfirmationOrder, context: ConfirmationContext): RenderedEmail {
  const view = buildView(order, context);
  return { subject: view.subject, html: renderHtml(view), text: renderText(view), locale: view.locale };
}

// ---------------------------------------------------------------------------------------------
// View: every string the two parts show, formatted once so both say the same thing

interface LicenseView {
  label: string;
  /** Safe HTML of the code(s), or null when there is no code yet. */
  html: string | null;
  /** Plain lines of the code(s), or null when there is no code yet. */
  lines: string[] | null;
  /** Plain text of the instructions. */
  instructions: string | null;
  /** Shown instead of a code. */
  note: string | null;
}

interface LineView {
  name: string;
  quantity: string;
  unitPrice: string;
  amount: string;
  license: LicenseView | null;
}

interface TotalView {
  label: string;
  amount: string;
  strong?: boolean;
}

interface View {
  subject: string;
  /** The first line of the body. */
  opening: string;
  locale: string;
  test: boolean;
  companyName: string;
  customerName: string | null;
  orderId: string;
  date: string | null;
  lines: LineView[];
  totals: TotalView[];
  billingAddress: string[];
  receiptUrl: string | null;
  supportEmail: string | null;
}

const DEFAULT_LICENSE_LABEL = 'License';

function buildView(order: ConfirmationOrder, context: ConfirmationContext): View {
  const locale = resolveLocale({ userLocale: order.customer.locale ?? undefined, accountDefault: context.accountLocale });
  const money = (amount: number): string =>
    Number.isFinite(amount) ? formatMoney(amount, order.currency, locale) : '–';
  const companyName = oneLine(context.companyName);
  const orderId = oneLine(order.order_id);

  const lines = order.items.map((item): LineView => ({
    name: oneLine(item.name),
    quantity: formatQuantity(item.quantity, locale),
    unitPrice: money(item.price),
    amount: money(item.subtotal ?? item.total),
    license: licenseView(item),
  }));

  const totals: TotalView[] = [{ label: 'Subtotal', amount: money(order.subtotal) }];
  if (isNonZero(order.discount)) {
    // Line amounts and the subtotal already have the discount taken off (commerce.md §1.3),
    // so the row says what was saved rather than asking the reader to subtract it again.
    const code = oneLine(order.promotion_code ?? '');
    totals.push({ label: code ? `Discount (${code}), included above` : 'Discount, included above', amount: money(-Math.abs(order.discount)) });
  }
  if (order.shipping_item !== null || isNonZero(order.shipping)) {
    const method = oneLine(order.shipping_item?.name ?? '');
    totals.push({ label: method ? `Shipping (${method})` : 'Shipping', amount: money(order.shipping) });
  }
  const tax = { label: order.tax_inclusive ? 'Tax (incl.)' : 'Tax', amount: money(order.tax) };
  const total = { label: 'Total', amount: money(order.total), strong: true };
  // Inclusive tax is part of the total, so it is listed after it as information, not added.
  totals.push(...(order.tax_inclusive ? [total, tax] : [tax, total]));

  const receiptUrl = oneLine(context.receiptUrl ?? '');
  const supportEmail = oneLine(context.supportEmail ?? '');
  return {
    subject:
      context.purpose === 'license_follow_up'
        ? `${context.test ? '[TEST] ' : ''}Your license codes for order ${orderId} from ${companyName}`
        : `${context.test ? '[TEST] ' : ''}Your order ${orderId} from ${companyName}`,
    opening: context.purpose === 'license_follow_up' ? 'The codes for your order are ready. Here they are.' : 'Thank you for your order. Here are the details.',
    locale,
    test: context.test,
    companyName,
    customerName: oneLine(order.customer.name ?? '') || null,
    orderId,
    date: formatOrderDate(order.date_created_ms, context.zone, locale),
    lines,
    totals,
    billingAddress: addressLines(order.billing_address ?? null),
    receiptUrl: /^https?:\/\/[^\s"'<>]+$/i.test(receiptUrl) ? receiptUrl : null,
    supportEmail: supportEmail || null,
  };
}

function licenseView(item: ConfirmationItem): LicenseView | null {
  const license = item.license;
  if (license === null && !item.license_pending) return null;
  const label = oneLine(license?.label ?? '') || DEFAULT_LICENSE_LABEL;
  const instructions = license?.instructions ? instructionsToText(license.instructions) || null : null;
  const html = license?.html ? sanitizeLicenseReply(license.html) : null;
  let lines = license?.text ? tidyText(license.text).split('\n') : null;
  if (lines === null && license?.html) lines = tidyText(licenseHtmlToText(license.html)).split('\n');
  const hasCode = lines !== null && lines.some((line) => line !== '');
  if (!hasCode) {
    // Pending (rendered before the hold lifted) or failed: the code follows on its own.
    const note = 'The code for this item will follow in a separate email.';
    return { label, html: null, lines: null, instructions, note };
  }
  return {
    label,
    html: html || (lines ?? []).map(escapeHtml).join('<br>'),
    lines,
    instructions,
    note: null,
  };
}

/** Address lines in a common international order: name, company, street, "postal city" or "city, state postal", country (English name). */
export function addressLines(address: ConfirmationAddress | null): string[] {
  if (address === null) return [];
  const part = (value: string | null | undefined) => oneLine(value ?? '');
  const city = part(address.city);
  const state = part(address.state_prov);
  const postal = part(address.postal_code);
  const country = part(address.country).toUpperCase();
  const place = POSTAL_CODE_FIRST.test(country)
    ? [[postal, city].filter(Boolean).join(' '), state].filter(Boolean).join(', ')
    : [city, [state, postal].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  // Country names are in English like the rest of the wording.
  const countryName = country ? (formatCountry(country, 'en') ?? country) : '';
  return [part(address.name), part(address.company_name), part(address.address_1), part(address.address_2), place, countryName].filter(Boolean);
}

/** Countries that write the postal code before the city ("10115 Berlin"). */
const POSTAL_CODE_FIRST = /^(?:AT|BE|CH|CZ|DE|DK|ES|FI|FR|GR|HR|HU|IS|IT|LI|LU|NL|NO|PL|PT|RO|SE|SI|SK)$/;

function formatOrderDate(epochMs: number, zone: string, locale: string): string | null {
  if (!Number.isFinite(epochMs)) return null;
  try {
    return formatDateTime(epochMs, zone, locale);
  } catch {
    // An unusable zone should not stop a customer's confirmation; UTC is still a true time.
    return `${formatDateTime(epochMs, 'UTC', locale)} UTC`;
  }
}

const quantityFormatters = new Map<string, Intl.NumberFormat>();

/** A quantity with the locale's digit grouping ('1,000', '1.000'). */
function formatQuantity(quantity: number, locale: string): string {
  if (!Number.isFinite(quantity)) return '–';
  let formatter = quantityFormatters.get(locale);
  if (formatter === undefined) {
    formatter = new Intl.NumberFormat(locale, { maximumFractionDigits: 3 });
    // Locales come from resolveLocale (canonical tags), so the map stays small; cap it anyway.
    if (quantityFormatters.size >= 200) quantityFormatters.clear();
    quantityFormatters.set(locale, formatter);
  }
  return formatter.format(quantity).replace(/[\u202f\u00a0]/g, ' ');
}

function isNonZero(amount: number): boolean {
  return Number.isFinite(amount) && amount !== 0;
}

/**
 * A value shown on one line: control characters (line breaks included) become spaces and runs
 * of whitespace collapse. The subject goes into a mail header, where a line break would let a
 * company or order name add headers.
 */
function oneLine(value: string): string {
  return (typeof value === 'string' ? value : '')
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// HTML part: table layout and inline styles only, for the widest range of mail clients

const FONT = "font-family:Arial,Helvetica,sans-serif;";
const COLOR_TEXT = '#1f2933';
const COLOR_MUTED = '#616e7c';
const COLOR_RULE = '#e4e7eb';

function renderHtml(view: View): string {
  const e = escapeHtml;
  const rows: string[] = [];
  if (view.test) {
    rows.push(
      `<tr><td style="padding:10px 32px;background-color:#fff4e5;color:#8a4b00;font-size:13px;font-weight:bold;">TEST ORDER: this order was placed in test mode and no real payment was taken.</td></tr>`,
    );
  }
  rows.push(`<tr><td style="padding:28px 32px 4px;font-size:20px;font-weight:bold;">${e(view.companyName)}</td></tr>`);
  rows.push(
    `<tr><td style="padding:12px 32px 4px;">` +
      `<p style="margin:0 0 12px;">${view.customerName ? `Hi ${e(view.customerName)},` : 'Hello,'}</p>` +
      `<p style="margin:0;">${e(view.opening)}</p>` +
      `</td></tr>`,
  );
  rows.push(`<tr><td style="padding:12px 32px;">${renderHtmlOrderFacts(view)}</td></tr>`);
  rows.push(`<tr><td style="padding:4px 32px;">${renderHtmlLines(view)}</td></tr>`);
  rows.push(`<tr><td style="padding:4px 32px 12px;">${renderHtmlTotals(view)}</td></tr>`);
  if (view.billingAddress.length > 0) {
    rows.push(
      `<tr><td style="padding:12px 32px;">` +
        `<p style="margin:0 0 4px;font-weight:bold;">Billing address</p>` +
        `<p style="margin:0;color:${COLOR_MUTED};">${view.billingAddress.map(e).join('<br>')}</p>` +
        `</td></tr>`,
    );
  }
  if (view.receiptUrl) {
    rows.push(
      `<tr><td style="padding:12px 32px;"><a href="${e(view.receiptUrl)}" style="color:#1f5fbf;">View your receipt</a></td></tr>`,
    );
  }
  const support = view.supportEmail
    ? `Questions about your order? Contact us at <a href="mailto:${e(view.supportEmail)}" style="color:#1f5fbf;">${e(view.supportEmail)}</a>.`
    : `Questions about your order? Please contact ${e(view.companyName)}.`;
  rows.push(
    `<tr><td style="padding:20px 32px 28px;border-top:1px solid ${COLOR_RULE};font-size:13px;color:${COLOR_MUTED};">` +
      `${support}<br>Please mention order ${e(view.orderId)}.</td></tr>`,
  );

  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${e(view.subject)}</title>`,
    '</head>',
    `<body style="margin:0;padding:0;background-color:#f4f5f7;">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f4f5f7;">`,
    `<tr><td align="center" style="padding:24px 12px;">`,
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background-color:#ffffff;${FONT}font-size:15px;line-height:1.5;color:${COLOR_TEXT};">`,
    ...rows,
    '</table>',
    '</td></tr>',
    '</table>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function renderHtmlOrderFacts(view: View): string {
  const e = escapeHtml;
  const fact = (label: string, value: string) =>
    `<tr><td style="padding:2px 16px 2px 0;color:${COLOR_MUTED};white-space:nowrap;">${label}</td><td style="padding:2px 0;">${value}</td></tr>`;
  return (
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="${FONT}font-size:15px;color:${COLOR_TEXT};">` +
    fact('Order', `<strong>${e(view.orderId)}</strong>`) +
    (view.date ? fact('Date', e(view.date)) : '') +
    `</table>`
  );
}

function renderHtmlLines(view: View): string {
  const e = escapeHtml;
  const head = (label: string, align: 'left' | 'right') =>
    `<th align="${align}" style="padding:8px 0 8px ${align === 'right' ? '12px' : '0'};border-bottom:1px solid ${COLOR_RULE};font-size:13px;color:${COLOR_MUTED};font-weight:normal;white-space:nowrap;">${label}</th>`;
  const cell = (content: string, align: 'left' | 'right') =>
    `<td align="${align}" valign="top" style="padding:10px 0 4px ${align === 'right' ? '12px' : '0'};${align === 'right' ? 'white-space:nowrap;' : ''}">${content}</td>`;
  const rows = view.lines.map((line) => {
    const item =
      `<tr>${cell(e(line.name), 'left')}${cell(e(line.quantity), 'right')}${cell(e(line.unitPrice), 'right')}${cell(e(line.amount), 'right')}</tr>`;
    return line.license ? item + `<tr><td colspan="4" style="padding:0 0 10px;">${renderHtmlLicense(line.license)}</td></tr>` : item;
  });
  return (
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="${FONT}font-size:15px;color:${COLOR_TEXT};">` +
    `<tr>${head('Item', 'left')}${head('Qty', 'right')}${head('Unit price', 'right')}${head('Amount', 'right')}</tr>` +
    rows.join('') +
    `</table>`
  );
}

function renderHtmlLicense(license: LicenseView): string {
  const e = escapeHtml;
  const parts = [`<p style="margin:0 0 4px;font-size:13px;font-weight:bold;color:${COLOR_MUTED};">${e(license.label)}</p>`];
  if (license.html !== null) {
    parts.push(
      `<p style="margin:0 0 6px;font-family:Consolas,Menlo,'Courier New',monospace;font-size:14px;word-break:break-all;">${license.html}</p>`,
    );
  }
  if (license.note !== null) parts.push(`<p style="margin:0 0 6px;">${e(license.note)}</p>`);
  if (license.instructions !== null) {
    parts.push(`<p style="margin:0;font-size:13px;color:${COLOR_MUTED};">${e(license.instructions).replace(/\n/g, '<br>')}</p>`);
  }
  return `<div style="padding:10px 12px;background-color:#f4f5f7;border-left:3px solid #9aa5b1;">${parts.join('')}</div>`;
}

function renderHtmlTotals(view: View): string {
  const e = escapeHtml;
  const rows = view.totals.map((total, index) => {
    const rule = total.strong ? `border-top:1px solid ${COLOR_RULE};` : index === 0 ? `border-top:1px solid ${COLOR_RULE};` : '';
    const weight = total.strong ? 'font-weight:bold;font-size:16px;' : '';
    return (
      `<tr><td align="right" style="padding:6px 0;${rule}${weight}">${e(total.label)}</td>` +
      `<td align="right" style="padding:6px 0 6px 24px;white-space:nowrap;${rule}${weight}">${e(total.amount)}</td></tr>`
    );
  });
  return (
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="${FONT}font-size:15px;color:${COLOR_TEXT};">` +
    rows.join('') +
    `</table>`
  );
}

// ---------------------------------------------------------------------------------------------
// Text part: 72 columns, amounts right-aligned, codes never wrapped so they copy intact

const WIDTH = 72;

function renderText(view: View): string {
  const out: string[] = [];
  const blank = () => {
    if (out.length > 0 && out[out.length - 1] !== '') out.push('');
  };
  if (view.test) {
    out.push(...wrap('TEST ORDER: this order was placed in test mode and no real payment was taken.', WIDTH));
    blank();
  }
  out.push(...wrap(view.companyName, WIDTH));
  blank();
  out.push(...wrap(view.customerName ? `Hi ${view.customerName},` : 'Hello,', WIDTH));
  blank();
  out.push(view.opening);
  blank();
  const facts: [string, string][] = [['Order', view.orderId]];
  if (view.date) facts.push(['Date', view.date]);
  for (const [label, value] of facts) out.push(`${`${label}:`.padEnd(7)}${value}`);
  blank();

  const rule = '-'.repeat(WIDTH);
  out.push(rule);
  for (const line of view.lines) {
    out.push(...wrap(line.name, WIDTH));
    out.push(aligned(`  ${line.quantity} x ${line.unitPrice}`, line.amount));
    if (line.license) out.push(...renderTextLicense(line.license));
    out.push('');
  }
  if (out[out.length - 1] === '') out.pop();
  out.push(rule);
  for (const total of view.totals) out.push(aligned(total.label, total.amount));
  blank();

  if (view.billingAddress.length > 0) {
    out.push('Billing address');
    for (const line of view.billingAddress) out.push(...wrap(line, WIDTH, '  ', '  '));
    blank();
  }
  if (view.receiptUrl) {
    out.push('View your receipt:', view.receiptUrl);
    blank();
  }
  out.push(
    ...wrap(
      view.supportEmail
        ? `Questions about your order? Contact us at ${view.supportEmail}. Please mention order ${view.orderId}.`
        : `Questions about your order? Please contact ${view.companyName} and mention order ${view.orderId}.`,
      WIDTH,
    ),
  );
  return `${out.join('\n')}\n`;
}

function renderTextLicense(license: LicenseView): string[] {
  const out = ['', `  ${license.label}:`];
  // Codes are kept whole on their lines: a wrapped key would not paste back correctly.
  if (license.lines !== null) out.push(...license.lines.filter((line) => line !== '').map((line) => `    ${line}`));
  if (license.note !== null) out.push(...wrap(license.note, WIDTH, '    ', '    '));
  if (license.instructions !== null) {
    for (const paragraph of license.instructions.split('\n')) {
      out.push(...(paragraph === '' ? [''] : wrap(paragraph, WIDTH, '    ', '    ')));
    }
  }
  return out;
}

/** A label and an amount with the amount right-aligned at the text width (at least two spaces apart). */
function aligned(label: string, amount: string): string {
  const gap = Math.max(2, WIDTH - displayWidth(label) - displayWidth(amount));
  return `${label}${' '.repeat(gap)}${amount}`;
}

/** Word-wraps one paragraph to `width` columns; words longer than a line (URLs, codes) are kept whole. */
function wrap(text: string, width: number, indent = '', firstIndent = ''): string[] {
  const lines: string[] = [];
  let line = firstIndent;
  let lineHasWord = false;
  for (const word of text.split(' ').filter(Boolean)) {
    const candidate = lineHasWord ? `${line} ${word}` : `${line}${word}`;
    if (lineHasWord && displayWidth(candidate) > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else {
      line = candidate;
    }
    lineHasWord = true;
  }
  if (lineHasWord) lines.push(line);
  return lines;
}

/** Columns a string takes in a monospaced mail client: East Asian wide characters count two, combining marks none. */
function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0;
    if ((cp >= 0x300 && cp <= 0x36f) || cp === 0x200b || cp === 0x200d) continue;
    width += isWide(cp) ? 2 : 1;
  }
  return width;
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}
