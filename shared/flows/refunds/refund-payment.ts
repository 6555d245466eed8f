/**
 * Refunding a payment (commerce.md §7): the first operation that moves money after the sale,
 * as explicit steps with a recovery story. An operation: plain inputs and the platform's ports
 * in, the settled refund out; no HTTP (refund-actions.ts renders it).
 *
 *   1. read the sale (the order and its payment, or a payment and its order, if any) and compute
 *      the refund against what its ledger says is refunded or reserved (refund-amounts.ts);
 *   2. one transaction: the payment's ledger (and the order's) written only over the ledger read,
 *      while the payment is `completed` and the reserved total within what was paid, the refund
 *      stored `pending`, and its recovery made due. Concurrent refunds of one sale refuse each
 *      other here: the loser reads again and computes again (or finds nothing left: 422), so no
 *      interleaving ever reserves more than was paid;
 *   3. refund through the gateway port, keyed by the refund (one refund per key, ever);
 *   4a. refunded: one transaction completes the refund, adds it to the payment's and order's
 *       `total_refunded` (each only over the amount read; `refunded` at the full amount), records
 *       the event and removes the recovery record;
 *   4b. refused: one transaction fails the refund, gives its reservation back, records the event.
 * A crash after step 2 leaves the recovery record due: the sweep (recover-refund.ts) asks the
 * gateway by the key whether the refund happened, closing the key first, and completes or fails
 * the refund exactly once; the gateway never refunds a key twice.
 */
import { refundSaleEntry } from '../../modules/reports';
import type { Principal } from '../../core/access/principal';
import { newId } from '../../core/ids';
import { InvalidInputError, InvalidStateError } from '../../http/errors';
import type { Platform, RefundResult } from '../../platform/ports';
import { roundMoney } from '../../rest/money';
import { retryOnConflict, type RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { transact, type TransactEntry } from '../../store/transact';
import { dueEntry, doneEntry } from '../../work/due-work-store';
import { eventEntries } from '../../modules/events';
import { orderRefundedAmountEntry, orderRefundLedgerEntry, orders, type OrderRecord } from '../../modules/orders';
import { refundAtGateway } from './gateway-refund';
import { payments, refundedAmountEntry, refundLedgerEntry, type PaymentRecord } from '../../modules/payments';
import { computeRefund, findRefund, NO_PARTS, pendingEntry, refundKey, releasedLedger, settledEntry, type RefundAsk, type RefundCreateInput, type Refundable, type RefundLedger, type RefundParts, type RefundRecord } from '../../modules/refunds';

/** How long a refund may take before recovery may settle it. */
export const REFUND_RECOVERY_DELAY_MS = 60_000;

/** Rounds of reading and reserving again after losing to a concurrent refund of the same sale. */
const RESERVE_ROUNDS = 120;

/** What a refund is of: an order (by items, amount or full) or a payment (by amount or full). */
export type RefundTarget = { orderId: string } | { paymentId: string };

/** What refunding needs. */
export interface RefundPaymentInput {
  principal: Principal;
  target: RefundTarget;
  /** The parsed body (`refundCreate`). */
  body: RefundCreateInput;
}

/** How a refund ended: completed, or refused by the gateway (stored `failed`). */
export type RefundOutcome = { status: 'completed' | 'failed'; refund: RefundRecord };

/** The form of the request: items, amount, or full. */
export function askOf(body: RefundCreateInput): RefundAsk {
  if (body.items !== undefined || body.shipping === true) return { kind: 'items', items: body.items ?? [], shipping: body.shipping === true };
  if (body.total !== undefined && body.total !== null) return { kind: 'amount', total: body.total };
  return { kind: 'full' };
}

/** A sale as one refund reads it: its payment and, for a cart payment, its order. */
interface Sale {
  payment: PaymentRecord;
  order: OrderRecord | undefined;
}

/** Reads the sale a refund targets, strongly consistent (404, or 400 when it is in the other mode). */
async function readSale(scope: RecordScope, target: RefundTarget): Promise<Sale> {
  if ('orderId' in target) {
    const order = await orders.get(scope, target.orderId);
    return { order, payment: await payments.get(scope, order.payment_id) };
  }
  const payment = await payments.get(scope, target.paymentId);
  return { payment, order: payment.order_id ? await orders.find(scope, payment.order_id) : undefined };
}

/** The sale's refund ledger and amounts, as the rules of refund-amounts.ts read them. */
export function refundableOf({ payment, order }: Sale): Refundable {
  const reserved = (payment.refund_ledger?.reserved ?? NO_PARTS) as RefundParts;
  const ledger: RefundLedger = { seq: payment.refund_ledger?.seq ?? 0, reserved: { ...NO_PARTS, ...reserved } };
  if (order) {
    ledger.lines = structuredClone(order.refund_ledger?.lines ?? {});
    if (order.refund_ledger?.shipping) ledger.shipping = { ...order.refund_ledger.shipping };
  }
  return {
    currency: payment.currency,
    settlementCurrency: payment.settlement_currency,
    taxInclusive: order?.totals.tax_inclusive ?? false,
    sale: {
      subtotal: payment.subtotal, shipping: payment.shipping, tax: payment.tax, total: payment.total,
      settlement_subtotal: payment.settlement_subtotal, settlement_shipping: payment.settlement_shipping, settlement_tax: payment.settlement_tax, settlement_total: payment.settlement_total,
    },
    ledger,
    ...(order
      ? {
          lines: order.items.map((item) => ({ item_id: item.item_id, product_id: item.product_id, name: item.name, quantity: item.quantity, subtotal: item.subtotal, tax: item.tax, total: item.total })),
          shippingLine: order.shipping_item ? { subtotal: order.shipping_item.subtotal, tax: order.shipping_item.tax } : null,
        }
      : {}),
  };
}

/** Refuses a sale that cannot be refunded at all: 422 `invalid_state` (§7). */
function assertRefundable({ payment, order }: Sale): void {
  if (payment.status === 'refunded' || order?.payment_status === 'refunded') throw new InvalidStateError('The payment is already fully refunded.', { reason: 'refunded' });
  if (payment.status !== 'completed') throw new InvalidStateError(`The payment is ${payment.status}; only a completed payment can be refunded.`, { status: payment.status });
  if (order && order.payment_status !== 'completed') throw new InvalidStateError(`The order's payment is ${order.payment_status}.`, { payment_status: order.payment_status });
}

/** Refunds an order or a payment: reserve, refund at the gateway, settle. */
export async function refundPayment(platform: Platform, input: RefundPaymentInput): Promise<RefundOutcome> {
  const scope: RecordScope = { accountId: input.principal.accountId, mode: input.principal.mode };
  const ask = askOf(input.body);
  if ('paymentId' in input.target && ask.kind === 'items') {
    // The contract refunds items through orders only, also for a payment that has an order.
    throw new InvalidInputError('Items are refunded through the order: POST /orders/{order_id}/refunds.', { property: 'items', reason: 'not_allowed' });
  }
  const pending = await reserve(platform, scope, input, ask);
  const result = await refundAtGateway(platform, scope, pending);
  return settle(platform, scope, pending, result);
}

/** Step 2: the reservation transaction, read and computed again after each lost race. */
async function reserve(platform: Platform, scope: RecordScope, input: RefundPaymentInput, ask: RefundAsk): Promise<RefundRecord> {
  const refundId = newId();
  return retryOnConflict(async () => {
    const sale = await readSale(scope, input.target);
    assertRefundable(sale);
    const computed = computeRefund(refundableOf(sale), ask);
    const now = platform.clock.nowMs();
    const { payment, order } = sale;
    const refund: RefundRecord = {
      refund_id: refundId,
      account_id: scope.accountId,
      mode: scope.mode,
      status: 'pending',
      reason: input.body.reason ?? null,
      currency: payment.currency,
      settlement_currency: payment.settlement_currency,
      ...computed.parts,
      items: computed.items,
      payment_id: payment.payment_id,
      order_id: order?.order_id ?? null,
      customer_id: payment.customer_id,
      meta: input.body.meta ?? null,
      gateway_refund_id: null,
      error_code: null,
      shipping_taken: computed.shippingTaken,
      created_ms: now,
      modified_ms: now,
    };
    const entries: TransactEntry[] = [
      refundLedgerEntry(payment, { seq: (payment.refund_ledger?.seq ?? 0) + 1, reserved: computed.ledger.reserved }, now, true),
      pendingEntry(refund),
      dueEntry('refund-recovery', scope, refundId, now + REFUND_RECOVERY_DELAY_MS, now),
    ];
    if (order) {
      entries.push(orderRefundLedgerEntry(order, {
        seq: (order.refund_ledger?.seq ?? 0) + 1,
        reserved: computed.ledger.reserved,
        ...(computed.ledger.lines ? { lines: computed.ledger.lines } : {}),
        ...(computed.ledger.shipping ? { shipping: computed.ledger.shipping } : {}),
      }, now, true));
    }
    await transact(entries);
    return refund;
  }, RESERVE_ROUNDS);
}

/**
 * Step 4: records what the gateway said of a pending refund: completed (the payment's and
 * order's totals grow) or failed (its reservation given back), with its event and the recovery
 * record removed, in one transaction. Used by the request and by recovery; whoever comes second
 * finds the refund settled and answers it as stored.
 */
export async function settle(platform: Platform, scope: RecordScope, pending: RefundRecord, result: RefundResult | undefined): Promise<RefundOutcome> {
  const refunded = result?.outcome === 'refunded';
  try {
    return await retryOnConflict(async () => {
      const now = platform.clock.nowMs();
      const payment = await payments.get(scope, pending.payment_id);
      const order = pending.order_id ? await orders.find(scope, pending.order_id) : undefined;
      const settled: RefundRecord = refunded
        ? { ...pending, status: 'completed', gateway_refund_id: result!.refundId, modified_ms: Math.max(now, pending.created_ms) }
        : { ...pending, status: 'failed', error_code: 'transaction_failure', modified_ms: Math.max(now, pending.created_ms) };
      const entries: TransactEntry[] = [settledEntry(settled)];
      if (refunded) {
        entries.push(refundedAmountEntry(payment, roundMoney(payment.total_refunded + pending.total, pending.currency), now));
        if (order) entries.push(orderRefundedAmountEntry(order, roundMoney(order.total_refunded + pending.total, pending.currency), now));
        // §12: a refund of an order counts in the sales report on its own date, in this transaction.
        if (order) entries.push(refundSaleEntry(scope, { createdMs: pending.created_ms, currency: pending.currency, settlementCurrency: pending.settlement_currency, total: pending.total, settlementTotal: pending.settlement_total }));
      } else {
        const back = { parts: pending as RefundParts, items: pending.items, shippingTaken: pending.shipping_taken };
        const { currency, settlement_currency: settlementCurrency } = pending;
        const paymentLedger = releasedLedger({ seq: payment.refund_ledger?.seq ?? 0, reserved: { ...NO_PARTS, ...(payment.refund_ledger?.reserved ?? {}) } as RefundParts }, back, currency, settlementCurrency);
        entries.push(refundLedgerEntry(payment, { seq: paymentLedger.seq, reserved: paymentLedger.reserved }, now, false));
        if (order) {
          const orderLedger = releasedLedger({ seq: order.refund_ledger?.seq ?? 0, reserved: { ...NO_PARTS, ...(order.refund_ledger?.reserved ?? {}) } as RefundParts, ...(order.refund_ledger?.lines ? { lines: order.refund_ledger.lines } : {}), ...(order.refund_ledger?.shipping ? { shipping: order.refund_ledger.shipping } : {}) }, back, currency, settlementCurrency);
          entries.push(orderRefundLedgerEntry(order, orderLedger, now, false));
        }
      }
      entries.push(
        ...eventEntries(scope, [{ type: refunded ? 'refund:created_success' : 'refund:created_failure', resource: 'refund', id: settled.refund_id, record: settled }], now),
        doneEntry('refund-recovery', scope, settled.refund_id),
      );
      await transact(entries);
      return { status: refunded ? 'completed' : 'failed', refund: settled };
    }, RESERVE_ROUNDS);
  } catch (error) {
    // Only a refund already settled refuses its own entry: whoever settled it first decided.
    if (!(error instanceof TransactionRejectedError) || !error.rejected.some((name) => name.startsWith('refund.'))) throw error;
    const stored = await findRefund(scope, pending.refund_id);
    if (!stored || stored.status === 'pending') throw error;
    return { status: stored.status === 'completed' ? 'completed' : 'failed', refund: stored };
  }
}
