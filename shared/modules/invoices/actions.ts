/**
 * The `/invoices` endpoints (commerce.md §9.1), as actions of the API pipeline. Paying an invoice
 * and its payments list are the checkout's (shared/flows/checkout/invoice-payment-actions.ts).
 *
 * Limited tokens come through the route check for single invoices (`allowOrReach`): a pay-link
 * token reaches the invoice it is bound to (read, limited update); customer scope reads its own
 * customer's invoices. Anything else out of reach answers 404 like a missing invoice.
 */
import { readPaymentSettingsCached, readTaxSettingsCached } from '../accounts';
import { InvalidInputError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareAnswer, declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { actionScope, type ActionScope } from '../../rest/action-scope';
import { cursorQuery, renderCursorList, type CursorSource } from '../../rest/cursor-list';
import { renderResource } from '../../rest/render';
import { readReachable } from '../../rest/reach';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements } from '../../rest/render';
import { customerDeclaration } from '../customers';
import { requirePrincipal } from '../../http/types';
import { claimWritten } from '../../work/due-work-store';
import type { Platform } from '../../platform/ports';
import type { Revision } from '../../store/entity';
import { invoiceDeclaration, invoicePath } from './declaration';
import { sendInvoiceEmail } from './invoice-email';
import { invoices, invoicesOfCustomer, removeDraft, updateInvoice } from './invoice-store';
import { assertDeletable, cancelInvoice, changeInvoice, createInvoice, publishInvoice, type InvoiceWriteContext } from './invoices';
import { mintInvoiceLink } from './links';
import type { InvoiceRecord } from './records';
import { invoiceCreate, invoiceUpdate } from './schemas';
import { logger } from '../../core/logging';

const PAYMENT_STATUSES = ['unpaid', 'completed', 'cancelled'] as const;

/** Writes price with the settings of this second (as cart writes do). */
async function writeContext({ principal, scope, render }: ActionScope, context: ApiContext): Promise<InvoiceWriteContext> {
  const [payment, tax] = await Promise.all([readPaymentSettingsCached(scope.accountId), readTaxSettingsCached(scope.accountId)]);
  return { principal, scope, payment, tax, clock: context.platform.clock, zone: render.zone };
}

/**
 * Sends the email a publishing write made due (its claim was the write's extra entry), after the
 * commit; a failure leaves it to the sweep.
 */
async function emailIfPublished(platform: Platform, extra: Revision<InvoiceRecord>['extra'], invoice: InvoiceRecord): Promise<void> {
  const due = extra?.find((entry) => entry.name.startsWith('due.invoice-email'));
  if (!due) return;
  await sendInvoiceEmail(platform, claimWritten(due), invoice).catch((error: unknown) => {
    logger.error('The invoice email failed after publishing; the sweep sends it', { invoice_id: invoice.invoice_id, error: error as Error });
  });
}

/** Applies a state change and sends the invoice email when the change published it. */
async function changeAndEmail(context: ApiContext, prepared: ActionScope, invoiceId: string, change: (current: InvoiceRecord) => Revision<InvoiceRecord> | Promise<Revision<InvoiceRecord>>): Promise<InvoiceRecord> {
  let extra: Revision<InvoiceRecord>['extra'];
  const saved = await updateInvoice(prepared.scope, invoiceId, async (current) => {
    const revision = await change(current);
    extra = revision.extra;
    return revision;
  }, context.platform.clock);
  await emailIfPublished(context.platform, extra, saved);
  return saved;
}

/** `POST /invoices`: 201 with a draft, or a published invoice with `draft: false`. */
export const createInvoiceAction = withBody(invoiceCreate, async (context) => {
  const prepared = await actionScope(context);
  const { invoice, extra } = await createInvoice(context.body, await writeContext(prepared, context));
  await emailIfPublished(context.platform, extra, invoice);
  return { status: 201, body: await renderResource(invoiceDeclaration, invoice, prepared.render), location: prepared.render.url(invoicePath(invoice.invoice_id)) };
});

/** `GET /invoices/{invoice_id}`. */
export async function getInvoiceAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const invoice = await readReachable(invoiceDeclaration, scope, context.params.invoice_id!, principal);
  return { status: 200, body: await renderResource(invoiceDeclaration, invoice, render) };
}

/** `POST /invoices/{invoice_id}`: partial update per state (§9.1); `draft: false` publishes. */
export const updateInvoiceAction = withBody(invoiceUpdate, async (context) => {
  const prepared = await actionScope(context);
  // A pay link's token reaches it by path; customer scope reaches its own customer's invoices (§9.1).
  const invoiceId = (await readReachable(invoiceDeclaration, prepared.scope, context.params.invoice_id!, prepared.principal)).invoice_id;
  const write = await writeContext(prepared, context);
  const saved = await changeAndEmail(context, prepared, invoiceId, (current) => changeInvoice(current, context.body, write));
  return { status: 200, body: await renderResource(invoiceDeclaration, saved, prepared.render) };
});

/** `POST /invoices/{invoice_id}/publish`: draft to open, and the invoice email. */
export async function publishInvoiceAction(context: ApiContext): Promise<ApiResult> {
  const prepared = await actionScope(context);
  const now = context.platform.clock.nowMs();
  const saved = await changeAndEmail(context, prepared, context.params.invoice_id!, (current) => publishInvoice(current, now));
  return { status: 200, body: await renderResource(invoiceDeclaration, saved, prepared.render) };
}

/** `POST /invoices/{invoice_id}/cancel`: open to cancelled. */
export async function cancelInvoiceAction(context: ApiContext): Promise<ApiResult> {
  const prepared = await actionScope(context);
  const now = context.platform.clock.nowMs();
  const saved = await changeAndEmail(context, prepared, context.params.invoice_id!, (current) => cancelInvoice(current, now));
  return { status: 200, body: await renderResource(invoiceDeclaration, saved, prepared.render) };
}

/** `DELETE /invoices/{invoice_id}`: drafts only, 204. */
export async function deleteInvoiceAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  await removeDraft(scope, context.params.invoice_id!, assertDeletable);
  return { status: 204 };
}

/** `POST /invoices/{invoice_id}/links`: a limited token bound to the invoice, and its pay-link URL. */
export async function createInvoiceLinkAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  const invoice = await invoices.get(scope, context.params.invoice_id!);
  const link = await mintInvoiceLink(scope, invoice.invoice_id, context.platform.clock);
  return { status: 201, body: link as unknown as Record<string, unknown> };
}

/** `GET /invoices`: cursor list; filters `payment_status`, `open`, `draft`, `customer_id`. */
export async function listInvoicesAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const query = context.query;
  const request = cursorQuery(query, render);
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const status = query.payment_status || undefined;
  if (status !== undefined) {
    if (!(PAYMENT_STATUSES as readonly string[]).includes(status)) {
      throw new InvalidInputError('The parameter payment_status must be unpaid, completed or cancelled.', { parameter: 'payment_status', reason: 'invalid' });
    }
    conditions.push('payment_status = :status');
    values[':status'] = status;
  }
  for (const flagName of ['open', 'draft'] as const) {
    const value = booleanParameter(query, flagName);
    if (value === undefined) continue;
    conditions.push(`#${flagName} = :${flagName}`);
    names[`#${flagName}`] = flagName;
    values[`:${flagName}`] = value;
  }
  const customerId = query.customer_id || undefined;
  if (customerId !== undefined) {
    conditions.push('#customer.#customer_id = :customer_id');
    names['#customer'] = 'customer';
    names['#customer_id'] = 'customer_id';
    values[':customer_id'] = customerId;
  }
  const source: CursorSource = {
    partition: invoices.partition(scope),
    idOf: (item) => item.invoice_id as string,
    find: async (id) => (await invoices.find(scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values, ...(Object.keys(names).length ? { names } : {}) } } : {}),
  };
  return { status: 200, body: await renderCursorList(source, request, invoiceDeclaration, render, 'invoices') };
}

/** `GET /customers/{customer_id}/invoices`: the customer's invoices (offset list; customer scope reads its own). */
export async function listCustomerInvoicesAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const customer = await readReachable(customerDeclaration, scope, context.params.customer_id!, requirePrincipal(context));
  const all = await invoicesOfCustomer(scope, customer.customer_id);
  const page = offsetPage(context.query);
  const ordered = booleanParameter(context.query, 'desc') ? [...all].reverse() : all;
  const data = await renderElements(invoiceDeclaration, ordered.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, all.length, pageUrlBuilder(render.url(`customers/${customer.customer_id}/invoices`), context.query, 'offset')) };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listCustomerInvoicesAction, { list: 'offset' });
declareQuery(listInvoicesAction, { list: 'cursor', filters: { payment_status: 'unpaid, completed or cancelled', open: 'Open invoices (true) or not (false)', draft: 'Drafts (true) or not (false)', customer_id: 'Invoices of one customer' } });

declareAnswer(publishInvoiceAction, { resource: 'invoice' });
declareAnswer(cancelInvoiceAction, { resource: 'invoice' });
declareAnswer(createInvoiceLinkAction, { shape: 'invoice_link', summary: 'Create a pay link for an invoice', description: 'A new limited token bound to the invoice (whoever holds it may read and pay the invoice, nothing else) and the pay-link URL made from the account\'s `invoice_payment_url` (null when unset).' });
