/**
 * Recovery of a refund whose process died after reserving it, against the real local DynamoDB
 * emulator: one the gateway made is completed once (the totals grow once, nothing refunded
 * again); one it never made is failed after its key is closed, and its reservation given back
 * so the money is refundable again; running recovery twice changes nothing more.
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/core/access/principal';
import { recoverRefund } from '../../../shared/flows/refunds/recover-refund';
import { refundPayment } from '../../../shared/flows/refunds/refund-payment';
import { newPaymentRecord, type PaymentRecord } from '../../../shared/modules/payments/payment-records';
import { chargeKey, initiatedEntry, payments } from '../../../shared/modules/payments/payment-store';
import { listCharges } from '../../../shared/modules/payments/gateway-charge-store';
import { findRefund, refundKey } from '../../../shared/modules/refunds/refund-store';
import { writeOne } from '../../../shared/store/transact';
import { findDue, listDue } from '../../../shared/work/due-work-store';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { testPlatform } from '../../support/platform';
import { ManualClock } from '../../../infra/local/manual-clock';
import type { PaymentGateway } from '../../../shared/platform/ports';

const harness = new Harness();
const scope = { accountId: 'ACCT', mode: 'test' as const };
const T0 = Date.parse('2026-11-21T12:00:00Z');
const clock = new ManualClock(T0);
const platform = testPlatform({ clock });
const gateway = platform.gateway;
const principal = { accountId: scope.accountId, mode: scope.mode, kind: 'secret' } as unknown as Principal;
const card = { kind: 'new' as const, number: '4242424242424242', expMonth: 12, expYear: 2031, cvv: '123', cardholderName: null, billingAddress: null };

useEmulatedTable(harness);

/** A completed direct payment of 10.00, charged at the gateway under its key. */
async function paidPayment(paymentId: string): Promise<PaymentRecord> {
  const payment = newPaymentRecord(scope, paymentId, {
    status: 'completed', currency: 'USD', subtotal: 10, shipping: 0, tax: 0, total: 10,
    settlement_currency: 'USD', settlement_subtotal: 10, settlement_shipping: 0, settlement_tax: 0, settlement_total: 10,
    total_refunded: 0, reference: null, description: null, referrer: null, payment_method: null,
    response_data: { authorization_code: null, avs_match: null, cvv_match: null, message: null },
    gateway_transaction_id: 'test_tx', error_code: null, ip_address: null, customer_id: null, cart_id: null, order_id: null, meta: null, fingerprint: null,
  }, clock.nowMs());
  await writeOne(initiatedEntry(payment));
  await gateway.charge({ key: chargeKey(scope, paymentId), amount: 10, currency: 'USD', card, billingPostalCode: null, ignoreBadCvv: false, ignoreBadAvs: false });
  return payment;
}

/** A gateway that dies (rejects) before refunding, or right after refunding. */
function dying(when: 'before' | 'after'): PaymentGateway {
  return {
    ...gateway,
    async refund(request) {
      if (when === 'after') await gateway.refund(request);
      throw new Error('the process died');
    },
  };
}

/** The pending refund the crashed request left (the only one of the payment). */
async function crashedRefund(paymentId: string, when: 'before' | 'after'): Promise<string> {
  platform.gateway = dying(when);
  try {
    await expect(refundPayment(platform, { principal, target: { paymentId }, body: { total: 4 } })).rejects.toThrow('the process died');
  } finally {
    platform.gateway = gateway;
  }
  const ledger = (await payments.get(scope, paymentId)).refund_ledger;
  expect(ledger?.reserved.total).toBe(4);
  const due = await listDue('refund-recovery', clock.nowMs() + 86_400_000, 100);
  const mine = [];
  for (const record of due) if ((await findRefund(scope, record.ref))?.payment_id === paymentId) mine.push(record.ref);
  expect(mine).toHaveLength(1);
  return mine[0]!;
}

describe('refund recovery', () => {
  it('completes a refund the gateway made before the process died: totals grow once, nothing refunded again', async () => {
    await paidPayment('PAYREF1');
    const refundId = await crashedRefund('PAYREF1', 'after');
    expect(await recoverRefund(platform, scope, refundId)).toBe('still-running');
    clock.set(clock.nowMs() + 61_000);
    expect(await recoverRefund(platform, scope, refundId)).toBe('completed');
    expect(await findRefund(scope, refundId)).toMatchObject({ status: 'completed', total: 4 });
    expect(await payments.get(scope, 'PAYREF1')).toMatchObject({ status: 'completed', total_refunded: 4 });
    expect(await recoverRefund(platform, scope, refundId)).toBe('not-pending');
    expect(await findDue('refund-recovery', scope, refundId)).toBeUndefined();
    const refunds = (await listCharges()).filter((entry) => entry.charge_key === chargeKey(scope, 'PAYREF1'));
    expect(refunds).toHaveLength(1);
  });

  it('fails a refund the gateway never made, closes its key and gives the money back', async () => {
    await paidPayment('PAYREF2');
    const refundId = await crashedRefund('PAYREF2', 'before');
    clock.set(clock.nowMs() + 61_000);
    expect(await recoverRefund(platform, scope, refundId)).toBe('failed');
    expect(await findRefund(scope, refundId)).toMatchObject({ status: 'failed', error_code: 'transaction_failure' });
    const payment = await payments.get(scope, 'PAYREF2');
    expect(payment).toMatchObject({ status: 'completed', total_refunded: 0 });
    expect(payment.refund_ledger?.reserved.total).toBe(0);
    // A late refund with the closed key moves nothing.
    expect(await gateway.refund({ key: refundKey(scope, refundId), chargeKey: chargeKey(scope, 'PAYREF2'), amount: 4, currency: 'USD' })).toMatchObject({ outcome: 'refused' });
    // The whole payment is refundable again.
    const full = await refundPayment(platform, { principal, target: { paymentId: 'PAYREF2' }, body: {} });
    expect(full).toMatchObject({ status: 'completed', refund: { total: 10 } });
    expect(await payments.get(scope, 'PAYREF2')).toMatchObject({ status: 'refunded', total_refunded: 10 });
  });
});
