import { describe, expect, it } from 'vitest';
import { savedCardRef, testBehaviourOf, testGateway } from '../../../shared/modules/payments';
import type { ChargeRequest, ChargeResult, NewCard, SavedCardRef } from '../../../shared/platform/ports';
import { cardBody, luhnNumber, NOW, parseCard } from './fixtures/cards';

// Cards are parsed at a fixed instant; the gateway reads the platform clock it is built on, pinned to it too.
const gateway = testGateway({ nowMs: () => NOW });

function card(number: string, overrides: Record<string, unknown> = {}): NewCard {
  return parseCard(cardBody({ number, ...overrides }), undefined, NOW);
}

function charge(chargedCard: NewCard | SavedCardRef, options: Partial<ChargeRequest> = {}): Promise<ChargeResult> {
  return gateway.charge({
    amount: 41.8,
    currency: 'USD',
    card: chargedCard,
    billingPostalCode: null,
    ignoreBadCvv: false,
    ignoreBadAvs: false,
    ...options,
  });
}

describe('the §4.4 table', () => {
  for (const number of ['4444555566661111', '4242424242424242']) {
    it(`approves ${number}`, async () => {
      const result = await charge(card(number), { billingPostalCode: '94107' });
      expect(result.outcome).toBe('approved');
      expect(result.transactionId).toMatch(/^test_[0-9A-Z]{16}$/);
      expect(result.responseData).toEqual({ authorization_code: expect.stringMatching(/^[0-9A-Z]{6}$/), avs_match: true, cvv_match: true, message: 'Approved.' });
    });
  }

  it('declines 4000000000000002', async () => {
    const result = await charge(card('4000000000000002'));
    expect(result.outcome).toBe('declined');
    expect(result.transactionId).toMatch(/^test_/);
    expect(result.responseData).toEqual({ authorization_code: null, avs_match: null, cvv_match: null, message: 'The card was declined.' });
  });

  it('fails 4000000000000119 with a processor error', async () => {
    const result = await charge(card('4000000000000119'));
    expect(result).toEqual({
      outcome: 'error',
      transactionId: null,
      responseData: { authorization_code: null, avs_match: null, cvv_match: null, message: 'Processor error.' },
    });
  });

  it('answers 4000000000000127 with a timeout at once', async () => {
    const started = performance.now();
    const result = await charge(card('4000000000000127'));
    expect(result.outcome).toBe('timeout');
    expect(result.transactionId).toBeNull();
    // "At once": no real waiting, whatever the machine's speed.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('rejects cvv 000 on an approving number', async () => {
    const result = await charge(card('4242424242424242', { cvv: '000' }));
    expect(result.outcome).toBe('invalid_cvv');
    expect(result.responseData).toMatchObject({ authorization_code: null, cvv_match: false });
  });

  it('approves cvv 000 with ignoreBadCvv, reporting cvv_match false', async () => {
    const result = await charge(card('4242424242424242', { cvv: '000' }), { ignoreBadCvv: true });
    expect(result.outcome).toBe('approved');
    expect(result.responseData).toMatchObject({ cvv_match: false, authorization_code: expect.any(String) });
  });

  it('fails the address check on postal code 00000', async () => {
    const result = await charge(card('4444555566661111'), { billingPostalCode: '00000' });
    expect(result.outcome).toBe('invalid_avs');
    expect(result.responseData).toMatchObject({ authorization_code: null, avs_match: false, cvv_match: true });
  });

  it('approves postal code 00000 with ignoreBadAvs, reporting avs_match false', async () => {
    const result = await charge(card('4444555566661111'), { billingPostalCode: '00000', ignoreBadAvs: true });
    expect(result.outcome).toBe('approved');
    expect(result.responseData).toMatchObject({ avs_match: false, cvv_match: true });
  });

  it('approves any other Luhn-valid card with a future expiry', async () => {
    for (const number of ['5555555555554444', '378282246310005', luhnNumber('9', 16), luhnNumber('4', 19)]) {
      expect((await charge(card(number, { cvv: '1234' }))).outcome, number).toBe('approved');
    }
  });

  it('leaves avs_match null when no postal code is known', async () => {
    const result = await charge(card('4242424242424242'));
    expect(result.responseData.avs_match).toBeNull();
  });

  it('gives every transaction its own id', async () => {
    const first = await charge(card('4242424242424242'));
    const second = await charge(card('4242424242424242'));
    expect(first.transactionId).not.toBe(second.transactionId);
  });
});

describe('check order: number, then cvv, then postal code', () => {
  it('declines a declining number with cvv 000 and postal code 00000', async () => {
    const result = await charge(card('4000000000000002', { cvv: '000' }), { billingPostalCode: '00000' });
    expect(result.outcome).toBe('declined');
  });

  it('reports processor errors and timeouts before the cvv', async () => {
    expect((await charge(card('4000000000000119', { cvv: '000' }))).outcome).toBe('error');
    expect((await charge(card('4000000000000127', { cvv: '000' }), { billingPostalCode: '00000' })).outcome).toBe('timeout');
  });

  it('rejects the cvv before the postal code', async () => {
    const result = await charge(card('4242424242424242', { cvv: '000' }), { billingPostalCode: '00000' });
    expect(result.outcome).toBe('invalid_cvv');
    expect(result.responseData.avs_match).toBeNull();
  });

  it('checks the postal code once a bad cvv is ignored', async () => {
    const result = await charge(card('4242424242424242', { cvv: '000' }), { billingPostalCode: '00000', ignoreBadCvv: true });
    expect(result.outcome).toBe('invalid_avs');
    expect(result.responseData).toMatchObject({ cvv_match: false, avs_match: false });
  });

  it('approves with both checks ignored', async () => {
    const result = await charge(card('4242424242424242', { cvv: '000' }), { billingPostalCode: '00000', ignoreBadCvv: true, ignoreBadAvs: true });
    expect(result.outcome).toBe('approved');
    expect(result.responseData).toMatchObject({ cvv_match: false, avs_match: false });
  });
});

describe('saved cards', () => {
  it('record the behaviour of their number, not the number', () => {
    expect(savedCardRef(card('4000000000000002'))).toEqual({
      kind: 'saved',
      brand: 'Visa',
      last4: '0002',
      numberLength: 16,
      expMonth: 12,
      expYear: 2030,
      cardholderName: null,
      billingAddress: null,
      testBehaviour: 'decline',
    });
    expect(savedCardRef(card('4000000000000119')).testBehaviour).toBe('error');
    expect(savedCardRef(card('4000000000000127')).testBehaviour).toBe('timeout');
    expect(savedCardRef(card('4242424242424242')).testBehaviour).toBe('approve');
  });

  it('keep the outcome of their number', async () => {
    expect((await charge(savedCardRef(card('4000000000000002')))).outcome).toBe('declined');
    expect((await charge(savedCardRef(card('4000000000000119')))).outcome).toBe('error');
    expect((await charge(savedCardRef(card('4000000000000127')))).outcome).toBe('timeout');
    expect((await charge(savedCardRef(card('4444555566661111')))).outcome).toBe('approved');
  });

  it('skip the cvv rule, since no cvv is kept', async () => {
    const result = await charge(savedCardRef(card('4242424242424242', { cvv: '000' })));
    expect(result.outcome).toBe('approved');
    expect(result.responseData.cvv_match).toBeNull();
  });

  it('still face the postal code check', async () => {
    const saved = savedCardRef(card('4242424242424242'));
    expect((await charge(saved, { billingPostalCode: '00000' })).outcome).toBe('invalid_avs');
    expect((await charge(saved, { billingPostalCode: '00000', ignoreBadAvs: true })).responseData.avs_match).toBe(false);
  });

  it('decline once expired', async () => {
    const saved = savedCardRef(card('4242424242424242', { exp_month: 6, exp_year: 2026 }));
    expect((await charge(saved)).outcome).toBe('approved');
    const result = await testGateway({ nowMs: () => Date.UTC(2026, 6, 1) }).charge({ amount: 5, currency: 'USD', card: saved, billingPostalCode: null, ignoreBadCvv: false, ignoreBadAvs: false });
    expect(result.outcome).toBe('declined');
    expect(result.responseData.message).toBe('The card has expired.');
  });
});

describe('testBehaviourOf', () => {
  it('classes the table numbers, with or without separators', () => {
    expect(testBehaviourOf('4000 0000 0000 0002')).toBe('decline');
    expect(testBehaviourOf('4000-0000-0000-0119')).toBe('error');
    expect(testBehaviourOf('4000000000000127')).toBe('timeout');
    expect(testBehaviourOf('4242424242424242')).toBe('approve');
    expect(testBehaviourOf('4444555566661111')).toBe('approve');
  });

  it('declines numbers that are not valid cards', () => {
    expect(testBehaviourOf('4242424242424241')).toBe('decline');
    expect(testBehaviourOf(luhnNumber('4', 11))).toBe('decline');
    expect(testBehaviourOf('')).toBe('decline');
  });
});
