/**
 * Saved payment methods against the local DynamoDB emulator: what is stored (never the number
 * or the CVV), defaults, changes, and paying with one (a saved 4000000000000002 still declines).
 */
import { describe, expect, it } from 'vitest';
import { parsePaymentMethod } from '../../../shared/flows/checkout/checks';
import { paymentMethodInput } from '../../../shared/modules/payments/payment-schemas';
import { testGateway } from '../../../shared/modules/payments/test-gateway';
import { paymentMethodUpdate } from '../../../shared/modules/payment-methods/payment-method-schemas';
import { changedPaymentMethod, findCustomerPaymentMethod, listPaymentMethods, storePaymentMethod, updatePaymentMethod } from '../../../shared/modules/payment-methods/payment-methods';
import { parseInput } from '../../../shared/rest/validate';
import { parseCard } from '../payments/fixtures/cards';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { systemClock } from '../../../shared/platform/adapters/system-clock';

const harness = new Harness();
const scope = { accountId: 'ACCT', mode: 'test' as const };
const NOW = Date.parse('2026-11-21T12:00:00Z');
const card = (number: string) => parseCard({ number, exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee', billing_address: { postal_code: '94107' } }, 'data', NOW);
/** The bodies as the pipeline hands them over: validated by their schemas. */
const change = (body: unknown) => parseInput(paymentMethodUpdate, body);
const method = (body: unknown) => parseInput(paymentMethodInput, body, 'payment_method');

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
    const next = changedPaymentMethod(current, change({ is_default: true, data: { exp_year: '28' } }), NOW);
    expect(next.data.exp_year).toBe(2028);
    await updatePaymentMethod(scope, 'C3', current.payment_method_id, change({ is_default: true, data: { exp_year: '28' } }), systemClock);
    expect((await listPaymentMethods(scope, 'C3')).map((m) => m.is_default)).toEqual([true, false]);
  });

  it('refuses an expired or malformed change, and a new number', () => {
    const base = { payment_method_id: 'PM', customer_id: 'C', card: { kind: 'saved', brand: 'Visa', last4: '4242', numberLength: 16, expMonth: 12, expYear: 2031, cardholderName: null, billingAddress: null, testBehaviour: 'approve' }, data: { label: 'Visa 4242' }, is_default: false, modified_ms: 1 } as never;
    expect(() => changedPaymentMethod(base, change({ data: { exp_year: 2020 } }), NOW)).toThrow(/expired/);
    expect(() => change({ data: { exp_month: 13 } })).toThrowError(expect.objectContaining({ meta: { property: 'data.exp_month', reason: 'invalid' } }));
    expect(() => change({ exp_year: '1e3' })).toThrowError(expect.objectContaining({ meta: { property: 'exp_year', reason: 'invalid' } }));
    expect(() => change({ data: { number: '4242424242424242' } })).toThrowError(expect.objectContaining({ meta: { property: 'data.number', reason: 'read_only' } }));
    expect(() => change({ data: { cvv: '123' } })).toThrowError(expect.objectContaining({ meta: { property: 'data.cvv', reason: 'read_only' } }));
    expect(() => change({ is_default: 'yes' })).toThrowError(expect.objectContaining({ meta: { property: 'is_default', reason: 'invalid' } }));
    // A method posted back as it was read (its masked data, brand as `type`) changes nothing it cannot.
    const echoed = changedPaymentMethod(base, change({ type: 'credit_card', is_default: false, data: { type: 'Visa', mask: '************4242', last4: '4242', exp_month: 12, exp_year: 2031, label: 'Visa 4242' } }), NOW);
    expect(echoed.card).toMatchObject({ expMonth: 12, expYear: 2031, last4: '4242' });
  });

  it('pays with a saved method of the customer only; a saved 4000000000000002 still declines', async () => {
    const bad = await storePaymentMethod(scope, 'C4', card('4000000000000002'), undefined, NOW);
    const parsed = await parsePaymentMethod(method({ payment_method_id: bad.payment_method_id }), NOW, scope, 'C4');
    expect(parsed).toMatchObject({ paymentMethodId: bad.payment_method_id, fingerprint: `payment_method:${bad.payment_method_id}`, save: false });
    const result = await testGateway(systemClock).charge({ amount: 10, currency: 'USD', card: parsed.card, billingPostalCode: null, ignoreBadCvv: false, ignoreBadAvs: false });
    expect(result.outcome).toBe('declined');
    await expect(parsePaymentMethod(method({ payment_method_id: bad.payment_method_id }), NOW, scope, 'C5')).rejects.toMatchObject({ status: 400 });
    await expect(parsePaymentMethod(method({ payment_method_id: bad.payment_method_id }), NOW, scope, null)).rejects.toMatchObject({ status: 400 });
    expect(() => method({ type: 'paypal', payment_method_id: bad.payment_method_id })).toThrowError(expect.objectContaining({ meta: { property: 'payment_method.type', reason: 'invalid' } }));
    expect(() => method({ payment_method_id: bad.payment_method_id, save: 'yes' })).toThrowError(expect.objectContaining({ meta: { property: 'payment_method.save', reason: 'invalid' } }));
    expect(() => method({ type: 'credit_card' })).toThrowError(expect.objectContaining({ meta: { property: 'payment_method.data', reason: 'required' } }));
  });

  it('takes a pm_ token only where Stripe may charge it; live mode without a gateway leaves the answer to check 8 (409)', async () => {
    const tokenMethod = method({ type: 'credit_card', data: { token: 'pm_card_visa' } });
    await expect(parsePaymentMethod(tokenMethod, NOW, scope, null, { gateway: 'test', allowRawCardData: false }))
      .rejects.toMatchObject({ status: 400, meta: { property: 'payment_method.data.token', reason: 'not_allowed' } });
    expect((await parsePaymentMethod(tokenMethod, NOW, scope, null, { gateway: 'stripe', allowRawCardData: false })).card).toEqual({ kind: 'token', token: 'pm_card_visa' });
    // No gateway (live without stripe_live): the method is well formed; the sale answers feature_not_enabled after the duplicate check.
    expect((await parsePaymentMethod(tokenMethod, NOW, scope, null, { gateway: 'none', allowRawCardData: false })).card).toEqual({ kind: 'token', token: 'pm_card_visa' });
  });
});
