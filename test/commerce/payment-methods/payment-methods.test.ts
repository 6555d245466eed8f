/**
 * Saved payment methods against the local DynamoDB emulator: what is stored (never the number
 * or the CVV), defaults, changes, and paying with one (a saved 4000000000000002 still declines).
 */
import { describe, expect, it } from 'vitest';
import { parsePaymentMethod } from '../../../shared/commerce/checkout/checks';
import { parseNewCard } from '../../../shared/commerce/payments/cards';
import { testGateway } from '../../../shared/commerce/payments/test-gateway';
import { changedPaymentMethod, findCustomerPaymentMethod, listPaymentMethods, storePaymentMethod, updatePaymentMethod } from '../../../shared/commerce/payment-methods/payment-methods';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';

const harness = new Harness();
const scope = { accountId: 'ACCT', mode: 'test' as const };
const NOW = Date.parse('2026-11-21T12:00:00Z');
const card = (number: string) => parseNewCard({ number, exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee', billing_address: { postal_code: '94107' } }, 'data', NOW);

useEmulatedTable(harness);

describe('saved payment methods', () => {
  it('stores the card reference and the masked data, never the number or the CVV', async () => {
    const saved = await storePaymentMethod(scope, 'C1', card('4242424242424242'), undefined, NOW);
    const stored = await findCustomerPaymentMethod(scope, 'C1', saved.payment_method_id);
    expect(stored).toMatchObject({ customer_id: 'C1', is_default: true, card: { kind: 'saved', last4: '4242', testBehaviour: 'approve' }, data: { mask: '************4242' } });
    expect(JSON.stringify(stored)).not.toContain('4242424242424242');
    expect(JSON.stringify(stored)).not.toContain('"123"');
    expect(await findCustomerPaymentMethod(scope, 'C2', saved.payment_method_id)).toBeUndefined();
  });

  it('keeps one default per customer', async () => {
    const first = await storePaymentMethod(scope, 'C3', card('4242424242424242'), undefined, NOW);
    const second = await storePaymentMethod(scope, 'C3', card('5555555555554444'), true, NOW + 1);
    const methods = await listPaymentMethods(scope, 'C3');
    expect(methods.map((m) => [m.payment_method_id, m.is_default])).toEqual([[first.payment_method_id, false], [second.payment_method_id, true]]);
    const current = methods[0]!;
    const next = changedPaymentMethod(current, { is_default: true, data: { exp_year: 28 } }, NOW);
    expect(next.data.exp_year).toBe(2028);
    await updatePaymentMethod(scope, current, next);
    expect((await listPaymentMethods(scope, 'C3')).map((m) => m.is_default)).toEqual([true, false]);
  });

  it('refuses an expired or malformed change, and a new number', () => {
    const base = { payment_method_id: 'PM', customer_id: 'C', card: { kind: 'saved', brand: 'Visa', last4: '4242', numberLength: 16, expMonth: 12, expYear: 2031, cardholderName: null, billingAddress: null, testBehaviour: 'approve' }, data: { label: 'Visa 4242' }, is_default: false, modified_ms: 1 } as never;
    expect(() => changedPaymentMethod(base, { data: { exp_year: 2020 } }, NOW)).toThrow(/expired/);
    expect(() => changedPaymentMethod(base, { data: { exp_month: 13 } }, NOW)).toThrow();
    expect(() => changedPaymentMethod(base, { data: { number: '4242424242424242' } }, NOW)).toThrow();
  });

  it('pays with a saved method of the customer only; a saved 4000000000000002 still declines', async () => {
    const bad = await storePaymentMethod(scope, 'C4', card('4000000000000002'), undefined, NOW);
    const parsed = await parsePaymentMethod({ payment_method_id: bad.payment_method_id }, NOW, scope, 'C4');
    expect(parsed).toMatchObject({ paymentMethodId: bad.payment_method_id, fingerprint: `payment_method:${bad.payment_method_id}`, save: false });
    const result = await testGateway.charge({ amount: 10, currency: 'USD', card: parsed.card, billingPostalCode: null, ignoreBadCvv: false, ignoreBadAvs: false });
    expect(result.outcome).toBe('declined');
    await expect(parsePaymentMethod({ payment_method_id: bad.payment_method_id }, NOW, scope, 'C5')).rejects.toMatchObject({ status: 400 });
    await expect(parsePaymentMethod({ payment_method_id: bad.payment_method_id }, NOW, scope, null)).rejects.toMatchObject({ status: 400 });
    await expect(parsePaymentMethod({ type: 'paypal', payment_method_id: bad.payment_method_id }, NOW, scope, 'C4')).rejects.toMatchObject({ status: 400 });
  });
});
