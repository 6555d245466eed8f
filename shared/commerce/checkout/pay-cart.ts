/**
 * Paying a cart (commerce.md §4.3, §5.1): the checkout's one multi-step write, written as
 * explicit steps with a recovery story.
 *
 *   1. checks, in the contract's order (nothing is stored when one fails); check 4 re-checks
 *      the cart's promotion code (commerce.md §4.3, §11);
 *   2. lock the cart (a conditional write: open, not locked, unchanged since read), so
 *      concurrent payments of one cart get 409 and at most one charge runs. A cart with a
 *      code reserves one use of it in the same transaction (`claimed_uses` below
 *      `max_uses`): a code that a concurrent sale used up answers 400 invalid_promotion_code
 *      `max_uses_reached` before anything is charged or stored;
 *   3. store the payment as `initiated`;
 *   4. charge through the gateway port;
 *   5a. failure: one transaction stores the failed payment, releases the lock, gives the
 *       reserved use back and records the event; the 402/502/504 error carries the payment;
 *   5b. success: one transaction completes the payment, closes the cart, creates the order
 *       and (for guests) the customer, marks the customer as paying, counts the promotion's
 *       use (§5.1 step 4), records the events and gives a limited token reach — conditional
 *       on this payment holding the lock, so a retried or redelivered completion can never
 *       make a second order;
 *   6. send the confirmation email (after the commit; the order records whether it went).
 * Why reserve before the charge rather than increment conditionally at completion: a
 * completion cancelled by a used-up code would leave money taken without an order. Reserving
 * first means the completion has no condition a concurrent sale can break.
 * Recovery: the approval is written on the payment (4b) before the completion. When a process
 * dies between the charge and the completion, the next payment attempt on the cart after
 * the lock lapsed (60 s) finishes an approved payment (order made, nothing charged again) or
 * marks an unknown one failed and releases the cart (`recoverLapsedPayment`).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { readPaymentSettingsCached } from '../../accounts/settings-cache';
import type { PaymentSettings } from '../../accounts/settings';
import { forgetToken } from '../../auth/authenticate';
import type { TransactItem } from '../../auth/auths';
import type { Principal } from '../../auth/principal';
import { assertReach, reachWrite } from '../../auth/reach';
import { nowMs } from '../../clock';
import { customerDeclaration, customerFromSale } from '../../customers/customers';
import { InUseError, InvalidStateError } from '../../http/errors';
import type { ApiResult } from '../../http/types';
import { newId } from '../../ids';
import { invalid, metaValue, objectValue } from '../../rest/input';
import { renderResource } from '../../rest/render';
import type { RenderContext } from '../../rest/render-context';
import { db, table } from '../../store/client';
import { queryItems } from '../../store/query';
import { findRecord, getRecord, recordKey, type RecordScope } from '../../store/records';
import type { CartRecord, SaleCustomer } from '../carts/types';
import { eventWrites } from '../events/emit';
import { orderDeclaration, orderFromCart } from '../orders/orders';
import { countUseWrite, InvalidPromotionCodeError, recheckSalePromotion, releaseUseWrite, reserveUseWrite } from '../promotions';
import { cardFingerprint, maskedCard, parseNewCard, type MaskedCard, type NewCard } from '../payments/cards';
import { findCustomerPaymentMethod, storePaymentMethod } from '../payment-methods/payment-methods';
import { DuplicatePaymentError, FeatureNotEnabledError, gatewayError, gatewayErrorCode } from '../payments/errors';
import type { ChargeResult, SavedCardRef } from '../payments/gateway';
import { duplicatePartition, newPaymentRecord, paymentDeclaration, type PaymentRecord } from '../payments/payment-records';
import { testGateway } from '../payments/test-gateway';
import { confirmationDueWrite, sendOrderConfirmation } from './confirmation';
import type { Platform } from '../../platform/ports';

/** Carts as the store keys them (the carts capability owns the declaration). */
const CARTS = { name: 'cart', collection: 'carts', scope: 'mode' as const, idField: 'cart_id' };
/** How long a payment may hold a cart before another attempt may take over. */
const LOCK_MS = 60_000;

/** Field paths each `customer_required_fields` token stands for (commerce.md §3.4). */
const REQUIRED_PATHS: Record<string, string[]> = {
  name: ['name'],
  email: ['email'],
  company_name: ['company_name'],
  phone: ['phone'],
  tax_number: ['tax_number'],
  country: ['billing_address.country'],
  postal_code: ['billing_address.postal_code'],
  full_address: ['billing_address.address_1', 'billing_address.city', 'billing_address.state_prov', 'billing_address.postal_code', 'billing_address.country'],
};

function valueAt(customer: SaleCustomer, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), customer);
}

/** Check 3: the required customer fields are present, and the billing country is not blocked. */
function checkCustomer(customer: SaleCustomer, payment: PaymentSettings): void {
  const tokens = new Set(['email', ...payment.customer_required_fields]);
  for (const token of tokens) {
    for (const path of REQUIRED_PATHS[token] ?? []) {
      const value = valueAt(customer, path);
      if (value === null || value === undefined || value === '') {
        invalid(`customer.${path}`, `The property customer.${path} is required to pay.`, 'required');
      }
    }
  }
  const country = customer.billing_address.country;
  if (country && payment.blocked_countries.includes(country)) {
    invalid('customer.billing_address.country', `Payments from ${country} are not accepted.`, 'not_allowed');
  }
}

/** A validated `payment_method`: a new card, or a saved method of the sale's customer. */
export interface ParsedPaymentMethod {
  card: NewCard | SavedCardRef;
  /** The saved method's id; null for a new card. */
  paymentMethodId: string | null;
  /** The masked `payment_method.data` the payment shows. */
  data: MaskedCard;
  /** The duplicate-detection fingerprint (§4.5): the card-number hash, or the saved method's id. */
  fingerprint: string;
  /** `save: true` was sent with a new card. */
  save: boolean;
}

/**
 * Check 6: the payment method (§4.2). A new card is validated; a `payment_method_id` must be a
 * saved method of `customerId` (the sale's linked customer), else 400 invalid_input
 * `not_found`.
 */
export async function parsePaymentMethod(value: unknown, now: number, scope: RecordScope, customerId: string | null): Promise<ParsedPaymentMethod> {
  const method = objectValue(value, 'payment_method');
  if (!method) invalid('payment_method', 'The property payment_method is required.', 'required');
  if (method.type !== undefined && method.type !== 'credit_card') invalid('payment_method.type', 'The property payment_method.type must be credit_card.');
  if (method.payment_method_id !== undefined && method.payment_method_id !== null) {
    const id = method.payment_method_id;
    const saved = typeof id === 'string' && customerId ? await findCustomerPaymentMethod(scope, customerId, id) : undefined;
    if (!saved) invalid('payment_method.payment_method_id', 'The payment method does not belong to the sale customer.', 'not_found');
    return { card: saved.card, paymentMethodId: saved.payment_method_id, data: saved.data, fingerprint: `payment_method:${saved.payment_method_id}`, save: false };
  }
  const card = parseNewCard(method.data, 'payment_method.data', now);
  return { card, paymentMethodId: null, data: maskedCard(card), fingerprint: cardFingerprint(card.number, scope.accountId), save: method.save === true };
}

/**
 * Saves the new card of a completed payment on its customer (§4.2 `save: true`, when
 * `allow_save_cards` is on) and records the method's id on the payment. Runs after the
 * completion committed; a failure here leaves the payment completed without a saved card.
 */
export async function saveCardAfterPayment(scope: RecordScope, method: ParsedPaymentMethod | undefined, payment: PaymentRecord, allowSaveCards: boolean): Promise<PaymentRecord> {
  if (!method || !method.save || !allowSaveCards || method.card.kind !== 'new' || !payment.customer_id || !payment.payment_method) return payment;
  try {
    const saved = await storePaymentMethod(scope, payment.customer_id, method.card, undefined);
    const next: PaymentRecord = { ...payment, payment_method: { ...payment.payment_method, payment_method_id: saved.payment_method_id } };
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: payment.pk, sk: payment.sk },
        UpdateExpression: 'SET payment_method.payment_method_id = :id',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':id': saved.payment_method_id },
      }),
    );
    return next;
  } catch (error) {
    console.error(JSON.stringify({ level: 'error', message: 'Saving the card of a completed payment failed', payment_id: payment.payment_id, error: (error as Error).message }));
    return payment;
  }
}

/** Check 7: no completed payment with the same card, currency and total inside the window. */
export async function assertNotDuplicate(scope: RecordScope, fingerprint: string, currency: string, total: number, windowSeconds: number, now: number): Promise<void> {
  if (windowSeconds <= 0) return;
  const since = new Date(now - windowSeconds * 1000).toISOString();
  const recent = await queryItems({
    TableName: table(),
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk >= :since',
    FilterExpression: '#status IN (:completed, :pending)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': duplicatePartition(scope, fingerprint, currency, total), ':since': since, ':completed': 'completed', ':pending': 'pending' },
  }, 1);
  if (recent[0]) throw new DuplicatePaymentError(recent[0].payment_id as string);
}

/**
 * Writes a transaction, retrying it while DynamoDB cancels it only for `TransactionConflict`
 * (a few times, with jitter). Payments with the same code all touch that promotion's item,
 * which concurrent transactions may conflict on; a cancelled transaction applied nothing, so
 * running it again is safe, and a racing payment then ends in its real outcome (paid, or
 * `max_uses_reached`) rather than in a spurious failure after its charge.
 */
async function transactRetryingConflicts(items: TransactItem[], attempts = 6): Promise<void> {
  for (let round = 1; ; round++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
      const conflictOnly = reasons.some((reason) => reason.Code === 'TransactionConflict') && !reasons.some((reason) => reason.Code === 'ConditionalCheckFailed');
      if (!conflictOnly || round >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * round));
    }
  }
}

/**
 * Step 2: takes the cart for this payment, and reserves a use of its promotion in the same
 * transaction; answers 422 for a paid cart, 409 while another payment runs, and 400
 * invalid_promotion_code `max_uses_reached` when the code is used up.
 */
async function lockCart(scope: RecordScope, cart: CartRecord, paymentId: string, now: number, promotionId: string | undefined): Promise<void> {
  const lock = {
    TableName: table(),
    Key: recordKey(CARTS, scope, cart.cart_id),
    UpdateExpression: 'SET payment_lock = :lock',
    ConditionExpression: '#open = :true AND modified_ms = :version AND (attribute_not_exists(payment_lock) OR payment_lock = :null OR payment_lock.until_ms < :now)',
    ExpressionAttributeNames: { '#open': 'open' },
    ExpressionAttributeValues: { ':lock': { payment_id: paymentId, until_ms: now + LOCK_MS }, ':true': true, ':version': cart.modified_ms, ':null': null, ':now': now },
  };
  try {
    if (promotionId === undefined) await db().send(new UpdateCommand(lock));
    else await transactRetryingConflicts([{ Update: lock }, reserveUseWrite(scope, promotionId)]);
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const reasons = error.CancellationReasons ?? [];
      if (reasons[0]?.Code !== 'ConditionalCheckFailed') {
        if (reasons[1]?.Code === 'ConditionalCheckFailed') throw new InvalidPromotionCodeError(cart.promotion_code ?? '', 'max_uses_reached');
        throw new InUseError('The cart changed while the payment started; review it and pay again.', { reason: 'conflict' });
      }
    } else if ((error as Error).name !== 'ConditionalCheckFailedException') {
      throw error;
    }
    const current = (await getRecord(CARTS as never, scope, cart.cart_id)) as CartRecord;
    if (!current.open) throw new InvalidStateError('The cart is already paid.', { reason: 'paid' });
    if (current.payment_lock && current.payment_lock.until_ms >= now) {
      throw new InUseError('A payment of this cart is already running.', { reason: 'in_progress' });
    }
    throw new InUseError('The cart changed while the payment started; review it and pay again.', { reason: 'conflict' });
  }
}

/** `POST /carts/{cart_id}/payments`. */
export async function payCart(platform: Platform, principal: Principal, cartId: string, body: Record<string, unknown>, render: RenderContext, ipAddress: string): Promise<ApiResult> {
  const scope: RecordScope = { accountId: principal.accountId, mode: principal.mode };
  assertReach(principal, `carts/${cartId}`, 'cart');
  let cart = (await getRecord(CARTS as never, scope, cartId)) as CartRecord;
  // A payment that died mid-way is finished or released first (see recoverLapsedPayment).
  if (cart.open && cart.payment_lock && cart.payment_lock.until_ms < nowMs()) {
    await recoverLapsedPayment(platform, scope, cart);
    cart = (await getRecord(CARTS as never, scope, cartId)) as CartRecord;
  }
  const now = nowMs();
  const settings = await readPaymentSettingsCached(scope.accountId);

  // 1–6: the checks, in the contract's order.
  if (!cart.open) throw new InvalidStateError('The cart is already paid.', { reason: 'paid' });
  if (cart.items.length === 0) invalid('items', 'The cart has no items to pay for.', 'required');
  checkCustomer(cart.customer, settings);
  const lines = cart.items.map((item) => ({ productId: item.product_id, quantity: item.quantity }));
  const promotion = await recheckSalePromotion(scope, cart, lines, now);
  if (cart.items.some((item) => item.type === 'physical') && (cart.shipping_quotes?.length ?? 0) > 0 && cart.totals.shipping_item === null) {
    invalid('shipping_method_id', 'Select a shipping method before paying.', 'required');
  }
  const total = cart.totals.total;
  const method = total > 0 ? await parsePaymentMethod(body.payment_method, now, scope, cart.customer.customer_id) : undefined;
  const card = method?.card;
  const meta = metaValue(body.meta);
  const fingerprint = method?.fingerprint ?? null;
  // 7–8: duplicates, then whether a gateway exists for this mode.
  if (fingerprint && body.allow_duplicate !== true) {
    await assertNotDuplicate(scope, fingerprint, cart.currency, total, settings.duplicate_payment_timeout, now);
  }
  if (scope.mode === 'live' && total > 0) {
    throw new FeatureNotEnabledError('Live card payments need a payment gateway integration, which this deployment does not have yet.', null);
  }

  const paymentId = newId();
  await lockCart(scope, cart, paymentId, now, promotion?.promotion_id);
  const initiated = newPaymentRecord(scope, paymentId, {
    status: 'initiated',
    currency: cart.currency,
    subtotal: cart.totals.subtotal,
    shipping: cart.totals.shipping,
    tax: cart.totals.tax,
    total,
    settlement_currency: cart.totals.settlement_currency,
    settlement_subtotal: cart.totals.settlement_subtotal,
    settlement_shipping: cart.totals.settlement_shipping,
    settlement_tax: cart.totals.settlement_tax,
    settlement_total: cart.totals.settlement_total,
    total_refunded: 0,
    reference: null,
    description: null,
    referrer: cart.referrer,
    payment_method: method ? { payment_method_id: method.paymentMethodId, type: 'credit_card', data: method.data } : null,
    response_data: { authorization_code: null, avs_match: null, cvv_match: null, message: null },
    gateway_transaction_id: null,
    error_code: null,
    ip_address: ipAddress,
    customer_id: cart.customer.customer_id,
    cart_id: cart.cart_id,
    order_id: null,
    meta,
    fingerprint,
  });
  await db().send(new PutCommand({ TableName: table(), Item: initiated, ConditionExpression: 'attribute_not_exists(pk)' }));

  // 4: the charge. Zero totals complete without one.
  const result: ChargeResult = card
    ? await testGateway.charge({
        amount: total,
        currency: cart.currency,
        card,
        billingPostalCode: (card.billingAddress?.postal_code as string | null | undefined) ?? cart.customer.billing_address.postal_code ?? null,
        ignoreBadCvv: settings.ignore_bad_cvv,
        ignoreBadAvs: settings.ignore_bad_avs,
      })
    : { outcome: 'approved', transactionId: null, responseData: { authorization_code: null, avs_match: null, cvv_match: null, message: 'Nothing to charge' } };

  if (result.outcome !== 'approved') {
    const failed: PaymentRecord = {
      ...initiated,
      status: 'failed',
      error_code: gatewayErrorCode(result.outcome),
      gateway_transaction_id: result.transactionId,
      response_data: result.responseData,
      modified_ms: nowMs(),
    };
    await transactRetryingConflicts([
      { Put: { TableName: table(), Item: failed } },
      {
        Update: {
          TableName: table(),
          Key: recordKey(CARTS, scope, cart.cart_id),
          UpdateExpression: 'SET payment_lock = :null',
          ConditionExpression: 'payment_lock.payment_id = :pid',
          ExpressionAttributeValues: { ':null': null, ':pid': paymentId },
        },
      },
      ...(promotion ? [releaseUseWrite(scope, promotion.promotion_id)] : []),
      ...eventWrites(scope, [{ type: 'payment:created_failure', resource: 'payment', id: paymentId }], failed.modified_ms),
    ]);
    throw gatewayError(result.outcome, { payment: await renderResource(paymentDeclaration, failed, render) });
  }

  // 4b: remember the approval before completing, so a crash here can be finished later.
  const approved: PaymentRecord = {
    ...initiated,
    gateway_outcome: 'approved',
    gateway_transaction_id: result.transactionId,
    response_data: result.responseData,
    modified_ms: nowMs(),
  };
  await db().send(
    new PutCommand({ TableName: table(), Item: approved, ConditionExpression: '#status = :initiated', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':initiated': 'initiated' } }),
  );

  // 5b: complete everything at once, or nothing.
  const { order, completed: committed } = await completeCartPayment(scope, cart, approved, promotion?.promotion_id, principal);
  const completed = await saveCardAfterPayment(scope, method, committed, settings.allow_save_cards);
  await sendOrderConfirmation(platform, order, cart, scope);
  return {
    status: 201,
    body: await renderResource(paymentDeclaration, completed, render),
    location: render.url(`payments/${paymentId}`),
  };
}

/**
 * Step 5b for an approved payment holding the cart's lock: one transaction completes the
 * payment, closes the cart, creates the order (and a guest's customer), counts the promotion
 * use, records the events and gives a limited payer reach. Also finishes a payment whose
 * process died after the approval (`recoverLapsedPayment`).
 */
async function completeCartPayment(
  scope: RecordScope,
  cart: CartRecord,
  approved: PaymentRecord,
  promotionId: string | undefined,
  principal: Principal | undefined,
): Promise<{ order: ReturnType<typeof orderFromCart>; completed: PaymentRecord }> {
  const paymentId = approved.payment_id;
  const completedAt = nowMs();
  const orderId = newId();
  const linkedCustomerId = cart.customer.customer_id;
  const customerId = linkedCustomerId ?? newId();
  const order = orderFromCart(scope, orderId, cart, paymentId, customerId, completedAt);
  const completed: PaymentRecord = {
    ...approved,
    status: 'completed',
    customer_id: customerId,
    order_id: orderId,
    modified_ms: completedAt,
  };
  const writes: TransactItem[] = [
    { Put: { TableName: table(), Item: completed, ConditionExpression: '#status = :initiated', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':initiated': 'initiated' } } },
    {
      Update: {
        TableName: table(),
        Key: recordKey(CARTS, scope, cart.cart_id),
        UpdateExpression: 'SET #open = :false, payment_status = :completed, order_id = :order, payment_lock = :null, modified_ms = :now, gsi2sk = :gsi2sk',
        ConditionExpression: 'payment_lock.payment_id = :pid AND #open = :true',
        ExpressionAttributeNames: { '#open': 'open' },
        ExpressionAttributeValues: {
          ':false': false, ':true': true, ':completed': 'completed', ':order': orderId, ':null': null, ':now': completedAt, ':pid': paymentId,
          ':gsi2sk': `${new Date(completedAt).toISOString()}#${cart.cart_id}`,
        },
      },
    },
    { Put: { TableName: table(), Item: order, ConditionExpression: 'attribute_not_exists(pk)' } },
    confirmationDueWrite(order),
    linkedCustomerId
      ? {
          Update: {
            TableName: table(),
            Key: recordKey(customerDeclaration, scope, linkedCustomerId),
            UpdateExpression: 'SET has_payments = :true',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':true': true },
          },
        }
      : { Put: { TableName: table(), Item: customerFromSale(scope, customerId, cart.customer, completedAt), ConditionExpression: 'attribute_not_exists(pk)' } },
    ...(promotionId ? [countUseWrite(scope, promotionId)] : []),
    ...eventWrites(
      scope,
      [
        { type: 'payment:created_success', resource: 'payment', id: paymentId },
        { type: 'payment:completed', resource: 'payment', id: paymentId },
        { type: 'cart:payment_completed', resource: 'cart', id: cart.cart_id },
        { type: 'order:created', resource: 'order', id: orderId },
        { type: 'order:payment_completed', resource: 'order', id: orderId },
      ],
      completedAt,
    ),
  ];
  const reachPaths = [`orders/${orderId}`, `payments/${paymentId}`, `customers/${customerId}`];
  const reach = principal ? reachWrite(principal, reachPaths) : undefined;
  if (reach) writes.push(reach);
  try {
    await transactRetryingConflicts(writes);
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      // Only a lost lock can cancel this: the cart was closed or taken over meanwhile. The use
      // reserved for this payment is given back (best effort: holding it only ever refuses).
      if (promotionId) await db().send(new UpdateCommand(releaseUseWrite(scope, promotionId).Update!)).catch(() => undefined);
      throw new InUseError('The cart was paid or changed by another request.', { reason: 'conflict' });
    }
    throw error;
  }
  if (reach && principal) {
    forgetToken(principal.tokenHash);
    // This answer may already expand what the payment gave the shopper (`expand=order`).
    principal.record = { ...principal.record, reach: [...(principal.record.reach ?? []), ...reachPaths] };
  }
  return { order, completed };
}

/**
 * Recovery of a payment whose process died between the charge and the completion (its lock
 * has lapsed): an approval recorded on the payment is completed now (order made, cart paid,
 * email sent); a payment without a recorded outcome is marked failed and its lock and
 * reserved promotion use are released, so the cart can be paid again. Idempotent: every
 * write is conditional on the payment still being `initiated` and holding the lock.
 * Returns whether the cart is now paid.
 */
export async function recoverLapsedPayment(platform: Platform, scope: RecordScope, cart: CartRecord): Promise<boolean> {
  const lock = cart.payment_lock;
  if (!cart.open || !lock || lock.until_ms >= nowMs()) return !cart.open;
  const payment = (await findRecord(paymentDeclaration, scope, lock.payment_id)) as PaymentRecord | undefined;
  try {
    if (payment?.status === 'initiated' && payment.gateway_outcome === 'approved') {
      const { order } = await completeCartPayment(scope, cart, payment, cart.promotion_id ?? undefined, undefined);
      await sendOrderConfirmation(platform, order, cart, scope);
      return true;
    }
    const writes: TransactItem[] = [
      {
        Update: {
          TableName: table(),
          Key: recordKey(CARTS, scope, cart.cart_id),
          UpdateExpression: 'SET payment_lock = :null',
          ConditionExpression: 'payment_lock.payment_id = :pid AND payment_lock.until_ms = :until',
          ExpressionAttributeValues: { ':null': null, ':pid': lock.payment_id, ':until': lock.until_ms },
        },
      },
      ...(cart.promotion_id ? [releaseUseWrite(scope, cart.promotion_id)] : []),
    ];
    if (payment?.status === 'initiated') {
      const abandoned: PaymentRecord = { ...payment, status: 'failed', error_code: 'bank_network_timeout', modified_ms: nowMs() };
      writes.push(
        { Put: { TableName: table(), Item: abandoned, ConditionExpression: '#status = :initiated', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':initiated': 'initiated' } } },
        ...eventWrites(scope, [{ type: 'payment:created_failure', resource: 'payment', id: payment.payment_id }], abandoned.modified_ms),
      );
    }
    await transactRetryingConflicts(writes);
  } catch (error) {
    // Someone else recovered it first (or the cart moved on): the stored cart tells the truth.
    if (!(error instanceof TransactionCanceledException) && !(error instanceof InUseError)) throw error;
    const now = (await findRecord(CARTS as never, scope, cart.cart_id)) as CartRecord | undefined;
    return now !== undefined && !now.open;
  }
  return false;
}

