/**
 * The invoice email (commerce.md §9): sent to the invoice's customer when it is published,
 * through the email port (SES in the cloud, the outbox locally), with the lines, the amount due,
 * the due date and, when the account set `invoice_payment_url`, a pay link (a limited token
 * bound to the invoice, minted when the email is sent: the token is never stored in clear).
 *
 * Exactly once, at any crash point, as the order confirmation is: publishing writes the email's
 * due work (claimed by the publishing request) in the same transaction as the state change; the
 * request runs it after the commit; if it dies first, the claim lapses and the sweep sends it.
 * The send carries a de-duplication key (the invoice and its publishing time), so a sweep that
 * repeats a send the outbox already holds sends nothing new.
 */
import { escapeHtml } from '../../core/html';
import type { Platform } from '../../platform/ports';
import { formatDateTime, formatMoney } from '../../rest/formatted';
import type { RecordScope } from '../../store/records';
import { writeOne, type TransactEntry } from '../../store/transact';
import { TransactionRejectedError } from '../../store/errors';
import { dueEntry, finishEntry, type DueClaim } from '../../work/due-work-store';
import { runClaimed, type DueHandler } from '../../work/runner';
import { readGeneralSettingsCached, readTechnicalSettingsCached } from '../accounts';
import { totalRemaining } from './declaration';
import { invoices } from './invoice-store';
import { mintInvoiceLink } from './links';
import type { InvoiceRecord } from './records';

/** How long after publishing the sweep takes over an email the publishing request did not send. */
export const INVOICE_EMAIL_GRACE_MS = 2 * 60_000;

/** The entry, written with the publishing change, that makes the email due (claimed by `claimId`). */
export function invoiceEmailDueWrite(invoice: Pick<InvoiceRecord, 'account_id' | 'mode' | 'invoice_id'>, now: number, claimId: string | null): TransactEntry {
  return dueEntry('invoice-email', { accountId: invoice.account_id, mode: invoice.mode }, invoice.invoice_id, now + INVOICE_EMAIL_GRACE_MS, now, claimId);
}

/** The rendered email. */
export interface RenderedInvoiceEmail {
  subject: string;
  html: string;
  text: string;
}

/** What the email says besides the invoice: who sends it, in which locale and zone, and the pay link. */
export interface InvoiceEmailContext {
  companyName: string;
  supportEmail: string | null;
  locale: string;
  zone: string;
  linkUrl: string | null;
  test: boolean;
}

/** Renders the invoice email (pure): subject, HTML and text that say the same. */
export function renderInvoiceEmail(invoice: InvoiceRecord, context: InvoiceEmailContext): RenderedInvoiceEmail {
  const money = (amount: number) => formatMoney(amount, invoice.currency, context.locale);
  const subject = `${context.test ? '[TEST] ' : ''}Invoice ${invoice.invoice_id} from ${context.companyName}`;
  const lines = invoice.totals.items.map((line) => ({ name: line.name, quantity: String(line.quantity), amount: money(invoice.totals.tax_inclusive ? line.total : line.subtotal) }));
  const totals: Array<[string, string]> = [['Subtotal', money(invoice.totals.subtotal)]];
  if (invoice.totals.discount) totals.push([`Discount${invoice.promotion_code ? ` (${invoice.promotion_code})` : ''}`, `−${money(invoice.totals.discount)}`]);
  if (invoice.totals.shipping_item) totals.push([`Shipping (${invoice.totals.shipping_item.name})`, money(invoice.totals.shipping)]);
  if (invoice.totals.tax) totals.push([invoice.totals.tax_inclusive ? 'Included tax' : 'Tax', money(invoice.totals.tax)]);
  totals.push(['Total', money(invoice.totals.total)], ['Amount due', money(totalRemaining(invoice))]);
  const due = invoice.date_due_ms === null ? null : formatDateTime(invoice.date_due_ms, context.zone, context.locale);
  const greeting = `Hello${invoice.customer.name ? ` ${invoice.customer.name}` : ''},`;
  const intro = `${context.companyName} sent you invoice ${invoice.invoice_id}.`;
  const text = [
    greeting, '', intro, '',
    ...lines.map((line) => `${line.quantity} × ${line.name}: ${line.amount}`), '',
    ...totals.map(([label, amount]) => `${label}: ${amount}`),
    ...(due ? ['', `Due: ${due}`] : []),
    ...(context.linkUrl ? ['', `Pay online: ${context.linkUrl}`] : []),
    ...(context.supportEmail ? ['', `Questions? Write to ${context.supportEmail}.`] : []),
  ].join('\n');
  const html = `<!doctype html><html><body><p>${escapeHtml(greeting)}</p><p>${escapeHtml(intro)}</p><table>`
    + lines.map((line) => `<tr><td>${escapeHtml(line.quantity)} × ${escapeHtml(line.name)}</td><td>${escapeHtml(line.amount)}</td></tr>`).join('')
    + totals.map(([label, amount]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(amount)}</td></tr>`).join('')
    + '</table>'
    + (due ? `<p>Due: ${escapeHtml(due)}</p>` : '')
    + (context.linkUrl ? `<p><a href="${escapeHtml(context.linkUrl)}">Pay online</a></p>` : '')
    + (context.supportEmail ? `<p>Questions? Write to ${escapeHtml(context.supportEmail)}.</p>` : '')
    + '</body></html>';
  return { subject, html, text };
}

/** Sends the email of the invoice `claim` names (unless it is no longer open or has no address), then removes the work. */
async function sendClaimed(platform: Platform, claim: DueClaim, known?: unknown): Promise<void> {
  const scope: RecordScope = { accountId: claim.record.account_id, mode: claim.record.mode };
  const held = known as InvoiceRecord | undefined;
  const invoice = held?.invoice_id === claim.record.ref ? held : await invoices.find(scope, claim.record.ref);
  if (invoice && invoice.open && invoice.customer.email && invoice.date_published_ms !== null) {
    const [technical, general] = await Promise.all([readTechnicalSettingsCached(scope.accountId), readGeneralSettingsCached(scope.accountId)]);
    const link = technical?.invoice_payment_url ? await mintInvoiceLink(scope, invoice.invoice_id, platform.clock) : null;
    const rendered = renderInvoiceEmail(invoice, {
      companyName: general.company_name ?? 'Your shop',
      supportEmail: general.support_email ?? null,
      locale: technical?.locale ?? 'en-US',
      zone: technical?.timezone ?? 'UTC',
      linkUrl: link?.link_url ?? null,
      test: scope.mode === 'test',
    });
    await platform.email.send({
      to: invoice.customer.email,
      ...(general.notification_from_addresses?.[0] ? { from: general.notification_from_addresses[0] } : {}),
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      kind: 'invoice',
      dedupKey: `invoice:${scope.accountId}:${scope.mode}:${invoice.invoice_id}:${invoice.date_published_ms}`,
    });
  }
  await writeOne(finishEntry(claim)).catch((error: unknown) => {
    // A lease that lapsed mid-run passed the work on: whoever holds it now removes it.
    if (!(error instanceof TransactionRejectedError)) throw error;
  });
}

/** The invoice email as due work, run by the publishing request and, after a crash, by the sweep. */
export const invoiceEmailWork: DueHandler = { kind: 'invoice-email', leaseMs: INVOICE_EMAIL_GRACE_MS, run: sendClaimed };

/** Sends the email of a just-published invoice under the claim its publishing transaction wrote. */
export function sendInvoiceEmail(platform: Platform, claim: DueClaim, invoice: InvoiceRecord): Promise<boolean> {
  return runClaimed(platform, invoiceEmailWork, claim, invoice);
}
