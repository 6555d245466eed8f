/**
 * The order confirmation email (commerce issue, licenses.md §9): rendered from the stored
 * order, sent through the email port (SES or the local outbox) once no license of the order
 * is pending, else held; the order records which (`confirmation_email`), so the licenses
 * capability can release a held one.
 *
 * Exactly once, at any crash point: the completing transaction makes the email due (a
 * due-work record, shared/work) with a grace period, claimed by the paying request, which
 * hands the claim to the notifications queue; its worker sends. The send carries a de-duplication key (the order), and the order's
 * `confirmation_email` and the removal of the due record are written together after it. If
 * the process dies after claiming, the claim's lease lapses and the sweep sends it; if it dies
 * after sending but before recording, the sweep's send is answered from the outbox's key (in
 * the cloud SES has no key: that window, between SES accepting and the record, is the one left).
 */
import { dueEntry, finishEntry, type DueClaim } from '../../work/due-work-store';
import { runClaimed, sweepDue, type DueHandler } from '../../work/runner';
import { EVENT_QUEUE } from '../../work/relay';
import type { RecordScope } from '../../store/entity';
import { transact, writeOne, type TransactEntry } from '../../store/transact';
import { TransactionRejectedError } from '../../store/errors';
import { carts, type CartRecord } from '../../modules/carts';
import { invoices } from '../../modules/invoices';
import { confirmationStateEntry, orders, type OrderItemRecord, type OrderRecord } from '../../modules/orders';
import { readGeneralSettingsCached, readTechnicalSettingsCached } from '../../modules/accounts';
import { batchGetItems } from '../../store/records';
import type { Platform } from '../../platform/ports';
import { renderOrderConfirmation, type ConfirmationLicense, type ConfirmationOrder } from './emails';
import { findLicenses, type LicenseRecord, findLicenseServices, type LicenseServiceRecord } from '../../modules/licenses';

/** What the email shows of each licensed item: its license, or its service's label and instructions while it has none. */
interface LicenseFacts {
  licenses: ReadonlyMap<string, LicenseRecord>;
  services: ReadonlyMap<string, LicenseServiceRecord>;
}

/** The license part of one item (licenses.md §9): its codes, or for a request that ended failed the label and instructions with a note. */
function itemLicense(item: OrderItemRecord, facts: LicenseFacts): ConfirmationLicense | null {
  const license = item.license ? facts.licenses.get(item.license) : undefined;
  if (license) return { label: license.label, text: license.text, html: license.html, instructions: license.instructions };
  if (!item.license_service_id) return null;
  const service = facts.services.get(item.license_service_id);
  return { label: service?.label ?? null, text: null, html: null, instructions: service?.instructions ?? null };
}

/** The sale an order was paid from, as the email needs it: its customer (a cart's, or an invoice's). */
export type ConfirmationSale = Pick<CartRecord, 'customer'>;

/** The email's view of an order. */
function confirmationOrder(order: OrderRecord, cart: ConfirmationSale, facts: LicenseFacts): ConfirmationOrder | undefined {
  const email = cart.customer.email;
  if (!email) return undefined;
  return {
    order_id: order.order_id,
    date_created_ms: order.created_ms,
    currency: order.totals.currency,
    subtotal: order.totals.subtotal,
    shipping: order.totals.shipping,
    discount: order.totals.discount,
    tax: order.totals.tax,
    total: order.totals.total,
    tax_inclusive: order.totals.tax_inclusive,
    promotion_code: order.promotion_code,
    items: order.items.map((item) => ({
      item_id: item.item_id,
      name: item.name,
      quantity: item.quantity,
      price: item.price,
      total: item.total,
      subtotal: item.subtotal,
      type: item.type,
      license: itemLicense(item, facts),
      license_pending: item.license_pending,
    })),
    shipping_item: order.shipping_item ? { name: order.shipping_item.name, total: order.shipping_item.total } : null,
    customer: { name: cart.customer.name, email, locale: null },
    billing_address: cart.customer.billing_address,
  };
}

/** The licenses an order's items hold, and the services of those still without one (one batch read each, none without licenses). */
async function licenseFacts(scope: RecordScope, order: OrderRecord): Promise<LicenseFacts> {
  const licenseIds = order.items.flatMap((item) => (item.license ? [item.license] : []));
  const serviceIds = [...new Set(order.items.flatMap((item) => (!item.license && item.license_service_id ? [item.license_service_id] : [])))];
  const [licenses, services] = await Promise.all([
    licenseIds.length ? findLicenses(scope, licenseIds) : new Map<string, LicenseRecord>(),
    serviceIds.length ? findLicenseServices(scope, serviceIds) : new Map<string, LicenseServiceRecord>(),
  ]);
  return { licenses, services };
}

/**
 * Renders the email of `order` for its customer (the confirmation, or the follow-up that
 * brings late codes) and sends it under `dedupKey`; answers false when there is no one to send
 * it to (no order address).
 */
export async function sendOrderEmail(platform: Platform, scope: RecordScope, order: OrderRecord, cart: ConfirmationSale, purpose: 'confirmation' | 'license_follow_up', dedupKey: string): Promise<boolean> {
  const view = confirmationOrder(order, cart, await licenseFacts(scope, order));
  if (!view) return false;
  const [technical, general] = await Promise.all([readTechnicalSettingsCached(scope.accountId), readGeneralSettingsCached(scope.accountId)]);
  const rendered = renderOrderConfirmation(view, {
    companyName: general.company_name ?? 'Your shop',
    supportEmail: general.support_email ?? null,
    accountLocale: technical?.locale ?? 'en-US',
    zone: technical?.timezone ?? 'UTC',
    test: scope.mode === 'test',
    purpose,
  });
  await platform.email.send({
    to: view.customer.email,
    ...(general.notification_from_addresses?.[0] ? { from: general.notification_from_addresses[0] } : {}),
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    kind: purpose === 'confirmation' ? 'order_confirmation' : 'license_follow_up',
    orderId: order.order_id,
    dedupKey,
  });
  return true;
}

/** How long after the payment the sweep takes over an email the payment request did not send. */
export const CONFIRMATION_GRACE_MS = 5 * 60_000;

/**
 * The transaction entry, written with the order, that makes its confirmation email due. With
 * `claimId` the paying request claims it in the same write (it sends at once; the sweep takes
 * over only after the grace period).
 */
export function confirmationDueWrite(order: Pick<OrderRecord, 'account_id' | 'mode' | 'order_id' | 'created_ms' | 'cart_id'>, claimId: string | null = null): TransactEntry {
  const scope = { accountId: order.account_id, mode: order.mode };
  // The worker reads the order and its cart together.
  const related = order.cart_id ? { cart_id: order.cart_id } : undefined;
  return dueEntry('confirmation-email', scope, order.order_id, order.created_ms + CONFIRMATION_GRACE_MS, order.created_ms, claimId, related);
}

/**
 * Sends (or holds) the confirmation of `orderId` under `claim`, then records the outcome on the
 * order and removes the due record in one transaction. It is held while a license request of
 * the order is outstanding (licenses.md §9); the hold is written only while that is still so, so
 * if the last code arrives in between, the order is read again and the email goes out.
 */
async function sendClaimed(platform: Platform, claim: DueClaim, known?: unknown): Promise<void> {
  const scope: RecordScope = { accountId: claim.record.account_id, mode: claim.record.mode };
  // The paying request hands over the order and cart it just committed; the worker and the sweep read them.
  const held = known as { order: OrderRecord; cart: ConfirmationSale } | undefined;
  let { order, cart } = held?.order.order_id === claim.record.ref ? held : await readOrderAndCart(scope, claim.record.ref, claim.record.related?.cart_id);
  for (let round = 1; ; round++) {
    if (!order || !cart?.customer.email || order.confirmation_email !== 'pending') {
      // Nothing to send (no order, no address, or already sent or held): the work is done.
      await writeOne(finishEntry(claim)).catch(ignoreLostClaim);
      return;
    }
    if ((order.licenses_outstanding ?? 0) > 0) {
      try {
        await transact([confirmationStateEntry(scope, order.order_id, 'held'), finishEntry(claim)]);
        return;
      } catch (error) {
        if (!(error instanceof TransactionRejectedError) || !error.refused('order.confirmation-email.held') || round > 3) return ignoreLostClaim(error);
        // The last license arrived meanwhile: read the order again and send.
        order = await orders.find(scope, order.order_id);
        continue;
      }
    }
    await sendOrderEmail(platform, scope, order, cart, 'confirmation', `order_confirmation:${scope.accountId}:${scope.mode}:${order.order_id}`);
    await transact([confirmationStateEntry(scope, order.order_id, 'sent'), finishEntry(claim)]).catch(ignoreLostClaim);
    return;
  }
}

/**
 * The order and its cart, consistently: in one batch read when the cart is known (a due
 * record's `related.cart_id`, written since issue 12), else the order and then the cart it names.
 */
export async function readOrderAndCart(scope: RecordScope, orderId: string, cartId?: string): Promise<{ order: OrderRecord | undefined; cart: ConfirmationSale | undefined }> {
  if (!cartId) {
    const order = await orders.find(scope, orderId);
    // An invoice's order has no cart: its invoice holds the customer the email goes to.
    if (order?.invoice_id) return { order, cart: await invoices.find(scope, order.invoice_id) };
    return { order, cart: order?.cart_id ? await carts.find(scope, order.cart_id) : undefined };
  }
  const orderKey = orders.key(scope, orderId);
  const cartKey = carts.key(scope, cartId);
  const found = await batchGetItems([orderKey, cartKey], { consistent: true });
  const order = found.get(orderKey.pk) as OrderRecord | undefined;
  // The order names its cart; a record that says otherwise is not trusted over it.
  if (order && order.cart_id !== cartId) return { order, cart: order.cart_id ? await carts.find(scope, order.cart_id) : undefined };
  return { order, cart: found.get(cartKey.pk) as CartRecord | undefined };
}

/** A lease that lapsed mid-run passed the work on: whoever holds it now records it. */
function ignoreLostClaim(error: unknown): void {
  if (!(error instanceof TransactionRejectedError)) throw error;
}

/**
 * The confirmation email as due work, run by the notifications queue's worker: the paying
 * request only hands its claim over (issue 12: rendering and sending are not the shopper's wait).
 */
export const confirmationEmailWork: DueHandler = { kind: 'confirmation-email', leaseMs: 2 * 60_000, queue: EVENT_QUEUE, run: sendClaimed };

/**
 * Hands the confirmation of a new order, under the claim its completing transaction wrote, to
 * the notifications queue (inside a request, through its relay, after the answer); the worker
 * sends (or holds) it. Returns whether it was handed over; if not, the sweep sends it after
 * the grace period.
 */
export async function sendOrderConfirmation(platform: Platform, claim: DueClaim, known: { order: OrderRecord; cart: ConfirmationSale }): Promise<boolean> {
  return runClaimed(platform, confirmationEmailWork, claim, known);
}

/** Sends every due confirmation email (the scheduled job); answers how many were handled. */
export async function sweepConfirmationEmails(platform: Platform, now = platform.clock.nowMs()): Promise<number> {
  return sweepDue(platform, [confirmationEmailWork], now);
}
