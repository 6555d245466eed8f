/**
 * The two ways a cart payment ends, each one transaction (commerce.md §4.3, §5.1):
 *
 * - completion: the payment completed, the cart closed, the order (and a guest's customer)
 *   created, the customer marked as paying, the promotion use counted, the events recorded, a
 *   limited payer given reach, the confirmation email made due, and the payment's recovery
 *   record removed — all conditional on this payment holding the cart's lock, so a retried,
 *   redelivered or recovered completion can never make a second order;
 * - failure: the payment failed, the lock and the reserved promotion use released, the event
 *   recorded, the recovery record removed.
 *
 * Both are used by the paying request and by recovery (recover-payment.ts).
 */
import { tokenRecordChanged, reachWrite, tokenReachWrite } from '../../modules/identity';
import { count, metricNames } from '../../core/metrics';
import { type Principal } from '../../core/access/principal';
import { customerFromSale, createFromSaleEntry, hasPaymentsEntry } from '../../modules/customers';
import { claimWritten, doneEntry, type DueClaim, dueEntry } from '../../work/due-work-store';
import { InUseError } from '../../http/errors';
import { newId } from '../../core/ids';
import { logger } from '../../core/logging';
import type { RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { transact, writeOne, type TransactEntry } from '../../store/transact';
import { cartClosedForOrder, closeForOrderEntry, releaseLockEntry, type CartRecord } from '../../modules/carts';
import { eventEntries, type EventSpec } from '../../modules/events';
import { createOrderEntry, orderFromCart, orderIdOfPayment, type OrderRecord, type OrderSource } from '../../modules/orders';
import type { SaleCustomer } from '../../modules/customers';
import { countUseWrite, releaseUseWrite } from '../../modules/promotions';
import { gatewayErrorCode, type PaymentRecord, outcomeEntry } from '../../modules/payments';
import type { ChargeResult, FailedChargeOutcome } from '../../platform/ports';
import { confirmationDueWrite } from './confirmation';
import { gatewayCardData } from './gateway-cards';
import { closeInvoiceEntry, invoicePaidForOrder, releaseInvoiceLockEntry, type InvoiceRecord } from '../../modules/invoices';
import { licenseServicesOfProducts } from '../../modules/catalog';
import { licenseIdFor, licenseRequestIdFor } from '../../modules/licenses';
import { named, present } from './entries';
import { saleSubscriptions } from './subscriptions';
import { orderSaleEntry, saleOfOrder } from '../../modules/reports';

/** How long the paying process holds the opening of the order's license requests before the sweep may take it. */
const LICENSE_OPEN_LEASE_MS = 2 * 60_000;

/** The transaction entry, written with a licensed order, that makes opening its license requests due (claimed by the writer, who runs it at once). */
function licenseOpenDueWrite(order: Pick<OrderRecord, 'account_id' | 'mode' | 'order_id' | 'created_ms'>, claimId: string): TransactEntry {
  return dueEntry('license-open', { accountId: order.account_id, mode: order.mode }, order.order_id, order.created_ms + LICENSE_OPEN_LEASE_MS, order.created_ms, claimId);
}

/** The license links of the cart's products (licenses.md §3), by product id. */
export type LicenseLinks = Awaited<ReturnType<typeof licenseServicesOfProducts>>;

/**
 * Reads the license links of the cart's products. The paying request starts it beside the
 * charge (the read does not depend on it), so it costs no round trip of its own.
 */
export function licenseLinksOf(scope: RecordScope, cart: { items: ReadonlyArray<{ product_id: string }> }): Promise<LicenseLinks> {
  return licenseServicesOfProducts(scope, cart.items.map((item) => item.product_id));
}

/** The payment as the gateway's answer leaves it (before completion or failure is recorded). */
export function withGatewayAnswer(payment: PaymentRecord, result: ChargeResult, now: number): PaymentRecord {
  // A token card is known only from the gateway's answer (brand, last four, expiry: §4.7).
  const method = payment.payment_method && result.card && !payment.payment_method.data.last4
    ? { ...payment.payment_method, data: gatewayCardData(result.card, payment.payment_method.data.cardholder_name) }
    : payment.payment_method;
  const gatewayCharge = payment.gateway_charge && result.saved ? { ...payment.gateway_charge, saved_as: result.saved } : payment.gateway_charge;
  return { ...payment, gateway_transaction_id: result.transactionId ?? payment.gateway_transaction_id, response_data: result.responseData, payment_method: method, ...(gatewayCharge ? { gateway_charge: gatewayCharge } : {}), modified_ms: now };
}

/**
 * The sale a completion closes: a cart or an invoice, as the completion needs it. Its close
 * entry is conditional on the payment holding the sale's lock, so only one completion commits.
 */
export interface SaleClosing {
  /** What the order is made from (amounts, lines and their meta, §5.1, §5.2). */
  source: OrderSource;
  /** The sale customer: the linked customer, or the details a guest's customer is made from. */
  customer: SaleCustomer;
  /** The sale's product lines, whose license links make the order's licensed items. */
  items: ReadonlyArray<{ product_id: string }>;
  /** Closes the sale for `orderId` (only while `paymentId` holds its lock). */
  closeEntry(paymentId: string, orderId: string, now: number): TransactEntry;
  /** The sale's own event, as the close leaves it (`cart:payment_completed`, `invoice:paid`). */
  closedEvent(orderId: string, now: number): EventSpec;
  /** What the sale is called in a lost-lock error. */
  noun: 'cart' | 'invoice';
}

/** A cart as the completion closes it. */
export function cartClosing(scope: RecordScope, cart: CartRecord): SaleClosing {
  return {
    source: cart,
    customer: cart.customer,
    items: cart.items,
    closeEntry: (paymentId, orderId, now) => closeForOrderEntry(scope, cart.cart_id, paymentId, orderId, now),
    closedEvent: (orderId, now) => ({ type: 'cart:payment_completed', resource: 'cart', id: cart.cart_id, record: cartClosedForOrder(cart, orderId, now) }),
    noun: 'cart',
  };
}

/** An invoice as the completion closes it: paid in full, `invoice:paid` (commerce.md §9.2, §14). */
export function invoiceClosing(scope: RecordScope, invoice: InvoiceRecord): SaleClosing {
  return {
    // Only a product line's override is a reference price on the order item (§5.4); a custom line's price is its own.
    source: { ...invoice, invoice_id: invoice.invoice_id, items: invoice.items.map((item) => (item.product_id === null ? { ...item, reference_price: null, reference_currency: null } : item)) },
    customer: invoice.customer,
    // Custom lines have no product, so no license link.
    items: invoice.items.flatMap((item) => (item.product_id !== null ? [{ product_id: item.product_id }] : [])),
    closeEntry: (paymentId, orderId, now) => closeInvoiceEntry(scope, invoice, paymentId, orderId, now),
    closedEvent: (orderId, now) => ({ type: 'invoice:paid', resource: 'invoice', id: invoice.invoice_id, record: invoicePaidForOrder(invoice, orderId, now) }),
    noun: 'invoice',
  };
}

/** What a completion answers: the order, the completed payment and the claims of the work it made due. */
export interface CompletedSale {
  order: OrderRecord;
  completed: PaymentRecord;
  confirmation: DueClaim;
  licenses: DueClaim | null;
}

/**
 * Completes an approved cart payment that holds the cart's lock (one transaction); answers the
 * order and the completed payment. A lost lock (the cart was paid or taken over) is 409.
 * `links`: the products' license links, when the caller already started reading them.
 */
export function completeCartPayment(
  scope: RecordScope,
  cart: CartRecord,
  approved: PaymentRecord,
  promotionId: string | undefined,
  principal: Principal | undefined,
  completedAt: number,
  links?: Promise<LicenseLinks>,
): Promise<CompletedSale> {
  return completeSalePayment(scope, cartClosing(scope, cart), approved, promotionId, principal, completedAt, links);
}

/**
 * Completes an approved payment that holds its sale's lock (one transaction): the payment
 * completed, the sale closed, the order (and a guest's customer) created, the promotion use
 * counted, the events recorded, a limited payer given reach, the confirmation email and the
 * license requests made due, the recovery record removed. A lost lock is 409.
 */
export async function completeSalePayment(
  scope: RecordScope,
  sale: SaleClosing,
  approved: PaymentRecord,
  promotionId: string | undefined,
  principal: Principal | undefined,
  completedAt: number,
  links?: Promise<LicenseLinks>,
): Promise<CompletedSale> {
  const paymentId = approved.payment_id;
  const orderId = orderIdOfPayment(scope, paymentId);
  const linkedCustomerId = sale.customer.customer_id;
  const customerId = linkedCustomerId ?? newId();
  // licenses.md §3: the products' license links as they are now make the order's licensed items.
  const licenseServices = await (links ?? licenseLinksOf(scope, sale));
  const paid: PaymentRecord = { ...approved, status: 'completed', customer_id: customerId, order_id: orderId, modified_ms: completedAt };
  delete paid.gateway_outcome;
  delete paid.payer_token;
  // §10.1: the subscriptions the order starts, with the card they charge (./subscriptions.ts).
  const started = saleSubscriptions(scope, orderFromCart(scope, orderId, sale.source, paymentId, customerId, completedAt, licenseServices), paid, customerId, !linkedCustomerId, completedAt);
  const { order, payment: completed } = started;
  // The shopper's token also reaches the licenses its items will get (their ids are derived from order and item).
  const licensePaths = order.items.filter((item) => item.license_service_id).map((item) => `licenses/${licenseIdFor(licenseRequestIdFor(orderId, item.item_id))}`);
  const reachPaths = [`orders/${orderId}`, `payments/${paymentId}`, `customers/${customerId}`, ...licensePaths, ...started.reachPaths];
  // The shopper's limited token gets the same reach whether its own request completes the payment
  // or, after 3-D Secure, the commit, Stripe's webhook or the sweep does (§4.7): the payment keeps its hash.
  const payerToken = approved.payer_token ?? (principal?.kind === 'limited' ? principal.tokenHash : undefined);
  const reach = principal?.kind === 'limited' && principal.tokenHash === payerToken
    ? named('token.reach', reachWrite(principal, reachPaths))
    : payerToken ? named('token.reach', await tokenReachWrite(payerToken, reachPaths, completedAt)) : undefined;
  const confirmationDue = confirmationDueWrite(order, newId());
  const licensesDue = licensePaths.length ? licenseOpenDueWrite(order, newId()) : undefined;
  const entries = present(
    outcomeEntry(completed),
    sale.closeEntry(paymentId, orderId, completedAt),
    createOrderEntry(order),
    confirmationDue,
    licensesDue,
    linkedCustomerId ? hasPaymentsEntry(scope, linkedCustomerId) : createFromSaleEntry(customerFromSale(scope, customerId, sale.customer, completedAt)),
    promotionId ? named('promotion.count-use', countUseWrite(scope, promotionId)) : undefined,
    ...started.entries,
    // §12: the order counts in the sales report's day aggregate, in this transaction.
    orderSaleEntry(scope, saleOfOrder(order)),
    ...eventEntries(
      scope,
      [
        { type: 'payment:created_success', resource: 'payment', id: paymentId, record: completed },
        { type: 'payment:completed', resource: 'payment', id: paymentId, record: completed },
        sale.closedEvent(orderId, completedAt),
        { type: 'order:created', resource: 'order', id: orderId, record: order },
        { type: 'order:payment_completed', resource: 'order', id: orderId, record: order },
      ],
      completedAt,
    ),
    doneEntry('payment-recovery', scope, paymentId),
    reach,
  );
  try {
    await transact(entries);
  } catch (error) {
    if (!(error instanceof TransactionRejectedError)) throw error;
    // Only a lost lock or an outcome already written can refuse this: someone else finished the
    // payment or the cart moved on. The reserved use is given back (best effort: holding it only ever refuses).
    if (promotionId) await writeOne(named('promotion.release-use', releaseUseWrite(scope, promotionId))!).catch(() => undefined);
    throw new InUseError(`The ${sale.noun} was paid or changed by another request.`, { reason: 'conflict' });
  }
  count(metricNames.checkouts);
  if (reach && payerToken) {
    // This answer may already expand what the payment gave the shopper (`expand=order`), and
    // the token's next request here needs no read to know it either.
    const withReach = (record: Principal['record']) => ({ ...record, reach: [...(record.reach ?? []), ...reachPaths.filter((path) => !record.reach?.includes(path))] });
    tokenRecordChanged(payerToken, withReach);
    if (principal?.tokenHash === payerToken) principal.record = withReach(principal.record);
  }
  return { order, completed, confirmation: claimWritten(confirmationDue), licenses: licensesDue ? claimWritten(licensesDue) : null };
}

/**
 * Records a failed payment (a declined charge, or one that never happened): for a cart or invoice
 * payment the sale's lock and the reserved promotion use are released in the same transaction.
 */
export async function failPayment(scope: RecordScope, payment: PaymentRecord, outcome: FailedChargeOutcome, promotionId: string | undefined, failedAt: number): Promise<PaymentRecord> {
  const failed: PaymentRecord = { ...payment, status: 'failed', error_code: gatewayErrorCode(outcome), modified_ms: failedAt };
  delete failed.gateway_outcome;
  delete failed.payer_token;
  // A payer that never paid does not become a customer.
  delete failed.payer;
  await transact(
    present(
      outcomeEntry(failed),
      payment.cart_id ? releaseLockEntry(scope, payment.cart_id, payment.payment_id) : undefined,
      payment.invoice_id ? releaseInvoiceLockEntry(scope, payment.invoice_id, payment.payment_id) : undefined,
      (payment.cart_id || payment.invoice_id) && promotionId ? named('promotion.release-use', releaseUseWrite(scope, promotionId)) : undefined,
      ...eventEntries(scope, [{ type: 'payment:created_failure', resource: 'payment', id: payment.payment_id, record: failed }], failedAt),
      doneEntry('payment-recovery', scope, payment.payment_id),
    ),
  );
  return failed;
}

/**
 * Completes an approved direct payment (no cart, no order). Its payer (§4.3) is settled in the
 * same transaction: a linked customer is marked as paying, or the customer the sent `customer`
 * fields make is created under the id the payment holds, so recovery finishing a crashed
 * completion makes the same customer once.
 */
export async function completeDirectPayment(scope: RecordScope, approved: PaymentRecord, completedAt: number): Promise<PaymentRecord> {
  const { payer } = approved;
  const completed: PaymentRecord = { ...approved, status: 'completed', customer_id: payer?.customer_id ?? approved.customer_id, modified_ms: completedAt };
  delete completed.gateway_outcome;
  delete completed.payer;
  await transact(present(
    outcomeEntry(completed),
    payer
      ? createFromSaleEntry(customerFromSale(scope, payer.customer_id, payer.details, completedAt))
      : approved.customer_id
        ? hasPaymentsEntry(scope, approved.customer_id)
        : undefined,
    ...eventEntries(
      scope,
      [
        { type: 'payment:created_success', resource: 'payment', id: approved.payment_id, record: completed },
        { type: 'payment:completed', resource: 'payment', id: approved.payment_id, record: completed },
      ],
      completedAt,
    ),
    doneEntry('payment-recovery', scope, approved.payment_id),
  ));
  return completed;
}

/** Logs and swallows a failure of a step that runs after the commit and has its own recovery. */
export function afterCommit(step: string, paymentId: string) {
  return (error: unknown): void => logger.error(`${step} failed after the payment committed`, { payment_id: paymentId, error: error as Error });
}
