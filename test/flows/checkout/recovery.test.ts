/**
 * Recovery of a checkout whose process died between the charge and the completion, against
 * the real local DynamoDB emulator: an approved payment is finished (one order, nothing
 * charged again), an unknown one is failed and the cart released; running it twice changes
 * nothing more.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { recoverPayment } from '../../../shared/flows/checkout/recover-payment';
import type { CartRecord } from '../../../shared/modules/carts/types';
import { computeSale } from '../../../shared/modules/pricing';
import { newPaymentRecord, paymentDeclaration, type PaymentRecord } from '../../../shared/modules/payments/payment-records';
import { orderDeclaration } from '../../../shared/modules/orders/orders';
import { orders } from '../../../shared/modules/orders/order-store';
import { payments, updatePayment } from '../../../shared/modules/payments/payment-store';
import { emptyAddress } from '../../../shared/rest/addresses';
import { db } from '../../../shared/store/client';
import { findRecord, recordKey } from '../../../shared/store/records';
import { queryItems } from '../../../shared/store/query';
import { measureCost } from '../../../shared/store/request-cost';
import { Harness, TABLE, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { outboxEmail } from '../../../infra/local/outbox';
import { runQueued, testPlatform } from '../../support/platform';
import { consumer as notificationsWorker } from '../../../handlers/queues/event-notifications';
import { EVENT_QUEUE } from '../../../shared/work/relay';
import { paymentSettings, taxSettings } from '../../modules/pricing/fixtures';
import { ManualClock } from '../../../infra/local/manual-clock';

const harness = new Harness();
const scope = { accountId: 'ACCT', mode: 'test' as const };
const T0 = Date.parse('2026-11-21T12:00:00Z');
const clock = new ManualClock(T0);
const outbox = mkdtempSync(join(tmpdir(), 'cartwheel-recovery-outbox-'));
const platform = testPlatform({ clock, email: outboxEmail({ dir: outbox, from: 'shop@example.test', clock: clock }) });

useEmulatedTable(harness);

/** The notifications queue's worker runs what was queued since the last call (the confirmation emails). */
let queuedFrom = 0;
const worker = notificationsWorker(platform) as unknown as Parameters<typeof runQueued>[2];
async function runNotifications(): Promise<void> {
  queuedFrom = await runQueued(platform, EVENT_QUEUE, worker, queuedFrom);
}

/** A cart locked by `paymentId` since T0 (lock until T0 + 60 s), and its initiated payment. */
async function crashedCheckout(cartId: string, paymentId: string, approved: boolean): Promise<CartRecord> {
  const totals = computeSale({
    currency: 'USD',
    lines: [{ itemId: 'ebook', productId: 'ebook', name: 'E-book', type: 'digital', quantity: 1, unitPriceOriginal: 19, taxCode: null }],
    shipping: null,
    taxLocation: { country: 'US', stateProv: null },
    customerTaxExempt: false,
    payment: paymentSettings(),
    tax: taxSettings(),
  });
  const cart: CartRecord = {
    cart_id: cartId, account_id: scope.accountId, mode: scope.mode, open: true, payment_status: 'unpaid', currency: 'USD',
    customer: { customer_id: null, name: 'Ada', email: 'ada@example.test', company_name: null, phone: null, tax_number: null, username: null, billing_address: { ...emptyAddress(), country: 'US' }, shipping_address: emptyAddress() },
    customer_tax_exempt: false,
    items: [{ item_id: 'ebook', product_id: 'ebook', name: 'E-book', type: 'digital', quantity: 1, meta: { gift: true }, tax_code: null, subscription_plan: null, unit_price_original: 19 }],
    shipping_method_id: null, promotion_code: null, promotion_id: null, referrer: null, affiliate_id: null, customer_ip_address: null, customer_ip_country: null, meta: null,
    totals, order_id: null, payment_lock: { payment_id: paymentId, until_ms: T0 + 60_000 },
    created_ms: T0, modified_ms: T0,
  };
  const payment: PaymentRecord = {
    ...newPaymentRecord(scope, paymentId, {
      status: 'initiated', currency: 'USD', subtotal: 19, shipping: 0, tax: 0, total: 19, settlement_currency: 'USD', settlement_subtotal: 19, settlement_shipping: 0,
      settlement_tax: 0, settlement_total: 19, total_refunded: 0, reference: null, description: null, referrer: null, payment_method: null,
      response_data: { authorization_code: approved ? 'A1B2C3' : null, avs_match: null, cvv_match: null, message: null },
      gateway_transaction_id: approved ? 'test_tx' : null, error_code: null, ip_address: null, customer_id: null, cart_id: cartId, order_id: null, meta: null, fingerprint: null,
    }, platform.clock.nowMs()),
    ...(approved ? { gateway_outcome: 'approved' as const } : {}),
  };
  await db().send(new PutCommand({ TableName: TABLE, Item: { ...cart, ...recordKey({ collection: 'carts', scope: 'mode' }, scope, cartId), gsi1pk: 'x', gsi1sk: 'x', gsi2pk: 'x', gsi2sk: 'x' } }));
  await db().send(new PutCommand({ TableName: TABLE, Item: payments.itemOf(payment) }));
  return cart;
}

const readCart = async (cartId: string) => (await findRecord({ name: 'cart', collection: 'carts', scope: 'mode', idField: 'cart_id' } as never, scope, cartId)) as CartRecord;
const ordersOf = async (cartId: string) =>
  (await queryItems({ TableName: TABLE, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': `${scope.accountId}#${scope.mode}#orders` } })).filter((order) => order.cart_id === cartId);

describe('recoverPayment', () => {
  it('leaves a payment alone while its lock holds', async () => {
    const cart = await crashedCheckout('CARTHOLD', 'PAYHOLD', true);
    expect(await recoverPayment(platform, scope, 'PAYHOLD')).toBe('still-running');
    expect((await readCart('CARTHOLD')).payment_lock?.payment_id).toBe('PAYHOLD');
    expect(await ordersOf('CARTHOLD')).toHaveLength(0);
  });

  it('finishes an approved payment once the lock lapsed: one order, the cart paid, the email sent', async () => {
    clock.set(T0 + 61_000);
    await crashedCheckout('CARTOK', 'PAYOK', true);
    expect(await recoverPayment(platform, scope, 'PAYOK')).toBe('completed');
    await runNotifications();
    const orders = await ordersOf('CARTOK');
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ payment_id: 'PAYOK', payment_status: 'completed' });
    expect((orders[0]!.items as Array<{ meta: unknown }>)[0]!.meta).toEqual({ gift: true });
    expect(await readCart('CARTOK')).toMatchObject({ open: false, payment_status: 'completed', payment_lock: null, order_id: orders[0]!.order_id });
    expect(await findRecord(paymentDeclaration, scope, 'PAYOK')).toMatchObject({ status: 'completed', order_id: orders[0]!.order_id });
    expect(readdirSync(outbox).some((name) => name.endsWith('.json'))).toBe(true);
    // Running again (a second retrying shopper) makes nothing more.
    expect(await recoverPayment(platform, scope, 'PAYOK')).toBe('not-initiated');
    expect(await ordersOf('CARTOK')).toHaveLength(1);
    expect(await findRecord(orderDeclaration, scope, orders[0]!.order_id as string)).toBeDefined();
  });

  it('fails a payment with no recorded outcome and releases the cart for a new attempt', async () => {
    clock.set(T0 + 120_000);
    await crashedCheckout('CARTLOST', 'PAYLOST', false);
    expect(await recoverPayment(platform, scope, 'PAYLOST')).toBe('failed');
    expect(await readCart('CARTLOST')).toMatchObject({ open: true, payment_lock: null });
    expect(await findRecord(paymentDeclaration, scope, 'PAYLOST')).toMatchObject({ status: 'failed', error_code: 'bank_network_timeout' });
    expect(await ordersOf('CARTLOST')).toHaveLength(0);
  });
});

describe('sweepConfirmationEmails', () => {
  it('sends a confirmation the paying request did not, once the grace period passed, and only once', async () => {
    const { orderFromCart } = await import('../../../shared/modules/orders/orders');
    const { confirmationDueWrite, sweepConfirmationEmails, CONFIRMATION_GRACE_MS } = await import('../../../shared/flows/checkout/confirmation');
    const start = T0 + 10 * 60_000;
    clock.set(start);
    const cart = await crashedCheckout('CARTMAIL', 'PAYMAIL', true);
    const order = orderFromCart(scope, 'ORDERMAIL', { ...cart, open: false }, 'PAYMAIL', 'CUSTMAIL', start);
    await db().send(new PutCommand({ TableName: TABLE, Item: orders.itemOf(order) }));
    await db().send(new PutCommand({ TableName: TABLE, Item: confirmationDueWrite(order).item.Put!.Item }));
    const sentBefore = readdirSync(outbox).filter((name) => name.endsWith('.json')).length;

    expect(await sweepConfirmationEmails(platform, start + 60_000)).toBe(0);
    expect(await sweepConfirmationEmails(platform, start + CONFIRMATION_GRACE_MS + 1000)).toBe(1);
    await runNotifications();
    expect(readdirSync(outbox).filter((name) => name.endsWith('.json')).length).toBe(sentBefore + 1);
    expect(await findRecord(orderDeclaration, scope, 'ORDERMAIL')).toMatchObject({ confirmation_email: 'sent' });
    expect(await sweepConfirmationEmails(platform, start + CONFIRMATION_GRACE_MS + 60_000)).toBe(0);
    await runNotifications();
    expect(readdirSync(outbox).filter((name) => name.endsWith('.json')).length).toBe(sentBefore + 1);
  });

  it('reads the order and its cart in one batch when the due record names the cart, and one after the other when it does not', async () => {
    const { orderFromCart } = await import('../../../shared/modules/orders/orders');
    const { confirmationDueWrite, sweepConfirmationEmails, CONFIRMATION_GRACE_MS } = await import('../../../shared/flows/checkout/confirmation');
    const start = T0 + 20 * 60_000;
    clock.set(start);
    const sent = () => readdirSync(outbox).filter((name) => name.endsWith('.json')).length;
    for (const [cartId, orderId, named] of [['CARTPAIR', 'ORDERPAIR', true], ['CARTOLD', 'ORDEROLD', false]] as const) {
      const cart = await crashedCheckout(cartId, `PAY${cartId}`, true);
      const order = orderFromCart(scope, orderId, { ...cart, open: false }, `PAY${cartId}`, 'CUSTPAIR', start);
      await db().send(new PutCommand({ TableName: TABLE, Item: orders.itemOf(order) }));
      const due = { ...confirmationDueWrite(order).item.Put!.Item } as Record<string, unknown>;
      expect(due.related).toEqual({ cart_id: cartId });
      // A record written before due work named related records.
      if (!named) delete due.related;
      await db().send(new PutCommand({ TableName: TABLE, Item: due }));
    }
    const before = sent();
    expect(await sweepConfirmationEmails(platform, start + CONFIRMATION_GRACE_MS + 1000)).toBe(2);
    const { cost } = await measureCost(runNotifications);
    expect(sent()).toBe(before + 2);
    // Named: order and cart in one BatchGetItem; the old record: the order, then its cart.
    expect(cost.byOperation.BatchGetItem).toBe(1);
    for (const orderId of ['ORDERPAIR', 'ORDEROLD']) expect(await findRecord(orderDeclaration, scope, orderId)).toMatchObject({ confirmation_email: 'sent' });
  });
});

describe('the due-work sweep settles payments nobody finished (no shopper retry needed)', () => {
  it('completes a payment the gateway charged but whose process died before recording it: one order, one email', async () => {
    const { job } = await import('../../../handlers/jobs/due-work');
    const { dueEntry } = await import('../../../shared/work/due-work-store');
    const { writeOne } = await import('../../../shared/store/transact');
    const { chargeKey } = await import('../../../shared/modules/payments/payment-store');
    const start = T0 + 60 * 60_000;
    clock.set(start);
    const cart = await crashedCheckout('CARTSWEPT', 'PAYSWEPT', false);
    // (The fixture's lock lapsed long ago; the recovery is due two minutes from now.)
    await writeOne(dueEntry('payment-recovery', scope, 'PAYSWEPT', start + 120_000, start));
    // The gateway took the money; the process died before the platform heard back.
    const card = { kind: 'new' as const, number: '4242424242424242', expMonth: 12, expYear: 2031, cvv: '123', cardholderName: null, billingAddress: null };
    const charged = await platform.gateway.charge({ key: chargeKey(scope, 'PAYSWEPT'), amount: 19, currency: 'USD', card, billingPostalCode: null, ignoreBadCvv: false, ignoreBadAvs: false });
    expect(charged.outcome).toBe('approved');
    const mails = () => readdirSync(outbox).filter((name) => name.endsWith('.json')).length;
    const before = mails();
    // Not before it is due.
    clock.set(start + 30_000);
    await job(platform);
    expect(await ordersOf('CARTSWEPT')).toHaveLength(0);
    clock.set(start + 121_000);
    await job(platform);
    await runNotifications();
    const orders = await ordersOf('CARTSWEPT');
    expect(orders).toHaveLength(1);
    expect(await findRecord(paymentDeclaration, scope, 'PAYSWEPT')).toMatchObject({ status: 'completed', gateway_transaction_id: charged.transactionId });
    expect(mails()).toBe(before + 1);
    // A second sweep and a late charge with the same key change nothing and take nothing more.
    await job(platform);
    await runNotifications();
    const again = await platform.gateway.charge({ key: chargeKey(scope, 'PAYSWEPT'), amount: 19, currency: 'USD', card, billingPostalCode: null, ignoreBadCvv: false, ignoreBadAvs: false });
    expect(again.transactionId).toBe(charged.transactionId);
    expect(await ordersOf('CARTSWEPT')).toHaveLength(1);
    expect(mails()).toBe(before + 1);
  });

  it('fails a payment that was never charged, releases the cart and voids the charge key so a late charge is refused', async () => {
    const { job } = await import('../../../handlers/jobs/due-work');
    const { dueEntry } = await import('../../../shared/work/due-work-store');
    const { writeOne } = await import('../../../shared/store/transact');
    const { chargeKey } = await import('../../../shared/modules/payments/payment-store');
    const start = T0 + 2 * 60 * 60_000;
    clock.set(start);
    const cart = await crashedCheckout('CARTVOID', 'PAYVOID', false);
    await writeOne(dueEntry('payment-recovery', scope, 'PAYVOID', start, start));
    expect(cart.payment_lock!.until_ms).toBeLessThan(start);
    await job(platform);
    expect(await findRecord(paymentDeclaration, scope, 'PAYVOID')).toMatchObject({ status: 'failed', error_code: 'bank_network_timeout' });
    expect(await readCart('CARTVOID')).toMatchObject({ open: true, payment_lock: null });
    const card = { kind: 'new' as const, number: '4242424242424242', expMonth: 12, expYear: 2031, cvv: '123', cardholderName: null, billingAddress: null };
    const late = await platform.gateway.charge({ key: chargeKey(scope, 'PAYVOID'), amount: 19, currency: 'USD', card, billingPostalCode: null, ignoreBadCvv: false, ignoreBadAvs: false });
    expect(late.outcome).toBe('declined');
    expect(await platform.gateway.lookup(chargeKey(scope, 'PAYVOID'))).toBeUndefined();
  });
});

describe('an outcome written over a client\'s change (issue 21 note: listing position)', () => {
  it('keeps what a client changed while the payment ran, and its place in the date_modified listing', async () => {
    // Later than every earlier test's clock: the checkout's lock and the recovery delay are counted from it.
    const start = clock.nowMs() + 1_000;
    clock.set(start);
    await crashedCheckout('CARTEDIT', 'PAYEDIT', true);
    const raw = async () => (await db().send(new GetCommand({ TableName: TABLE, Key: recordKey({ collection: 'payments', scope: 'mode' }, scope, 'PAYEDIT') }))).Item!;
    const initiatedAt = (await raw()).gsi2sk;
    clock.set(start + 30_000);
    await updatePayment(scope, 'PAYEDIT', (current) => ({ next: { ...current, meta: { note: 'client' }, reference: 'R-1', modified_ms: clock.nowMs() } }));
    const changedAt = (await raw()).gsi2sk;
    expect(changedAt).not.toBe(initiatedAt);
    clock.set(start + 61_000);
    expect(await recoverPayment(platform, scope, 'PAYEDIT')).toBe('completed');
    const item = await raw();
    expect(item).toMatchObject({ status: 'completed', meta: { note: 'client' }, reference: 'R-1', gsi2sk: changedAt });
    expect(item.gateway_outcome).toBeUndefined();
    expect(item.order_id).toBeTruthy();
  });
});
