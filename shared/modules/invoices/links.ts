/**
 * Invoice pay links (commerce.md §9.1, auth.md §3.3): a new limited token bound to the invoice,
 * so whoever holds the link can read it, change its currency, shipping method, customer and
 * meta, and pay it, and nothing else. `link_url` fills `{{invoice_id}}` and `{{token}}` into the
 * account's `invoice_payment_url`, or is null when that setting is unset (defined here).
 */
import { IDLE_LIFETIME_MS, type TokenRecord } from '../../core/access/token-records';
import type { Clock } from '../../platform/ports';
import type { RecordScope } from '../../store/records';
import { transact } from '../../store/transact';
import { readTechnicalSettingsCached } from '../accounts';
import { newTokenEntries, tokenWrites } from '../identity';
import { invoicePath } from './declaration';

/** The answer of `POST /invoices/{id}/links`. */
export interface InvoiceLink {
  object: 'invoice_link';
  invoice_id: string;
  token: string;
  expires_in_seconds: number;
  link_url: string | null;
}

/** The pay-link URL of `template` for the invoice and token (placeholders filled, URL-encoded). */
export function linkUrlOf(template: string | null | undefined, invoiceId: string, token: string): string | null {
  if (!template) return null;
  return template.replaceAll('{{invoice_id}}', encodeURIComponent(invoiceId)).replaceAll('{{token}}', encodeURIComponent(token));
}

/**
 * Mints a limited token of the invoice's mode bound to it (one counted binding, as auth.md §3.3
 * lists) and answers the link. The token, its auth pointer and count are one transaction.
 */
export async function mintInvoiceLink(scope: RecordScope, invoiceId: string, clock: Clock): Promise<InvoiceLink> {
  const issued = tokenWrites({ accountId: scope.accountId, mode: scope.mode, kind: 'limited' }, clock.nowMs());
  const record: TokenRecord = { ...issued.record, bindings: [invoicePath(invoiceId)] };
  await transact(newTokenEntries(record));
  const technical = await readTechnicalSettingsCached(scope.accountId);
  return {
    object: 'invoice_link',
    invoice_id: invoiceId,
    token: issued.token,
    expires_in_seconds: (IDLE_LIFETIME_MS.limited ?? 0) / 1000,
    link_url: linkUrlOf(technical?.invoice_payment_url, invoiceId, issued.token),
  };
}
