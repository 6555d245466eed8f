/**
 * Renewals run exactly once per period against the real local DynamoDB emulator (issue 26):
 * 20 subscriptions through 6 periods with the renewal sweep started 10 times at once for each
 * period, and a gateway that dies right after charging (the process killed between the charge
 * and its record) for some runs: every period is charged once at the gateway (its ledger),
 * with one order per charge, and none is skipped.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../infra/local/manual-clock';
import { renewalPaymentId, subscriptionRenewalWork } from '../../../shared/flows/renewals/renew-subscription';
import { savedCardRef } from '../../../shared/modules/payments';
import { listCharges } from '../../../shared/modules/payments/gateway-charge-store';
import { orders } from '../../../shared/modules/orders';
import { createPaymentMethodEntry, savedMethodRecord } from '../../../shared/modules/payment-methods';
import { createSubscriptionEntry, findSubscription, newSubscription, RENEWAL_KIND } from '../../../shared/modules/subscriptions';
import { transact } from '../../../shared/store/transact';
import { dueEntry, findDue } from '../../../shared/work/due-work-store';
import { sweepDue } from '../../../shared/work/runner';
import type { PaymentGateway } from '../../../shared/platform/ports';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { testPlatform } from '../../support/platform';

const harness = new Harness();
useEmulatedTable(harness);

const scope = { accountId: 'RENEWALS', mode: 'test' as const };
const T0 = Date.parse('2027-01-31T08:00:00Z');
const DAY = 86_400_000;
const clock = new ManualClock(T0);
const platform = testPlatform({ clock });
const gateway = platform.gateway;
const card = savedCardRef({ kind: 'new', number: '4242424242424242', expMonth: 12, expYear: 2031, cvv: '123', cardholderName: null, billingAddress: null });

/** A gateway whose first `deaths` charges are taken and then the process "dies" before answering. */
function dyingAfterCharge(deaths: number): PaymentGateway {
  let left = deaths;
  return {
    ...gateway,
    async charge(request) {
      const result = await gateway.charge(request);
      if (left-- > 0) throw new Error('the process died after the charge');
      return result;
    },
  };
}

/** Starts the renewal sweep `times` times at once. */
async function sweepsAtOnce(times: number): Promise<void> {
  await Promise.all(Array.from({ length: times }, () => sweepDue(platform, [subscriptionRenewalWork])));
}

describe('renewals exactly once', () => {
  it('charges 20 subscriptions once per period through 6 periods with 10 sweeps at once and runs dying after the charge', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) {
      const customerId = `CUST${String(n).padStart(8, '0')}`;
      const method = savedMethodRecord(scope, customerId, card, true, T0, `PM${String(n).padStart(10, '0')}`);
      const subscription = newSubscription(scope, {
        orderId: `ORDER${String(n).padStart(7, '0')}`,
        paymentId: `PAY${String(n).padStart(9, '0')}`,
        customerId,
        currency: 'USD',
        paymentMethodId: method.payment_method_id,
        item: { item_id: 'box', product_id: 'box', name: 'Box', type: 'service', quantity: 2, price_original: 5, tax_code: null, meta: { n } },
        plan: { billing_interval: 1, billing_interval_unit: 'month', end_at_billing_count: null },
        createdMs: T0,
      });
      await transact([createPaymentMethodEntry(method), createSubscriptionEntry(subscription), dueEntry(RENEWAL_KIND, scope, subscription.subscription_id, subscription.next_billing_ms!, T0)]);
      ids.push(subscription.subscription_id);
    }

    const ends = ['2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31', '2027-06-30', '2027-07-31'].map((day) => Date.parse(`${day}T08:00:00Z`));
    for (const [index, end] of ends.entries()) {
      clock.set(end + 1000);
      // Period 2: five runs take the money and die before recording it; their leases lapse.
      if (index === 1) platform.gateway = dyingAfterCharge(5);
      await sweepsAtOnce(10);
      if (index === 1) {
        platform.gateway = gateway;
        const stuck = (await Promise.all(ids.map((id) => findSubscription(scope, id)))).filter((each) => each!.billing_count === index + 1);
        expect(stuck).toHaveLength(5);
        // Their records come back when the backoff (or the lease) has passed: the same keys are charged again, which takes nothing.
        clock.set(end + 3 * 60_000);
        await sweepsAtOnce(10);
      }
      for (const id of ids) {
        const subscription = (await findSubscription(scope, id))!;
        expect(subscription.billing_count, `${id} after period ${index + 1}`).toBe(index + 2);
        expect(subscription.period_start_ms).toBe(end);
        expect(subscription.next_billing_ms).toBe(ends[index + 1] ?? Date.parse('2027-08-31T08:00:00Z'));
        expect((await findDue(RENEWAL_KIND, scope, id))?.next_ms).toBe(subscription.next_billing_ms);
      }
    }

    // The ledger: one approved charge per subscription and period, under the renewal keys.
    const charges = (await listCharges()).filter((charge) => charge.key.startsWith(`${scope.accountId}#`));
    expect(charges).toHaveLength(20 * 6);
    expect(charges.every((charge) => charge.state === 'charged' && charge.result?.outcome === 'approved' && charge.amount === 10)).toBe(true);
    const expectedKeys = ids.flatMap((id) => [2, 3, 4, 5, 6, 7].map((billing) => `${scope.accountId}#test#${renewalPaymentId(scope, id, billing, 0)}`));
    expect(new Set(charges.map((charge) => charge.key))).toEqual(new Set(expectedKeys));
    // One order per charge, each naming its subscription and its payment.
    for (const id of ids) {
      const subscription = (await findSubscription(scope, id))!;
      expect(subscription.order_ids).toHaveLength(7);
      expect(new Set(subscription.order_ids).size).toBe(7);
      const found = await orders.findMany(scope, subscription.order_ids.slice(1));
      expect(found.size).toBe(6);
      for (const order of found.values()) {
        expect(order.subscription_id).toBe(id);
        expect(subscription.payment_ids).toContain(order.payment_id);
        expect(order.items[0]!.meta).toEqual(subscription.item.meta);
      }
    }
  }, 300_000);
});
