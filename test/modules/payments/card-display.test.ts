import { describe, expect, it } from 'vitest';
import { CARD_BRANDS } from '../../../shared/modules/accounts/settings';
import { cardBrand, cardFingerprint, maskedCard, savedCardRef } from '../../../shared/modules/payments';
import { cardBody, luhnNumber, NOW, parseCard } from './fixtures/cards';

describe('brand detection from the leading digits', () => {
  const cases: Record<string, string[]> = {
    Visa: ['4242424242424242', '4000000000000002', luhnNumber('4', 13)],
    Mastercard: ['5105105105105100', '5555555555554444', luhnNumber('51', 16), luhnNumber('2221', 16), luhnNumber('2720', 16), luhnNumber('2500', 16)],
    'American Express': ['378282246310005', '341111111111111'],
    Discover: ['6011111111111117', luhnNumber('644', 16), luhnNumber('649', 16), luhnNumber('65', 16)],
    JCB: ['3530111333300000', luhnNumber('3528', 16), luhnNumber('3589', 16)],
    'Diners Club': ['30569309025904', luhnNumber('300', 14), luhnNumber('305', 14), luhnNumber('36', 14), luhnNumber('38', 14)],
  };

  for (const [brand, numbers] of Object.entries(cases)) {
    it(`detects ${brand}`, () => {
      for (const number of numbers) expect(cardBrand(number), number).toBe(brand);
    });
  }

  it('returns null just outside every range', () => {
    for (const prefix of ['50', '56', '2220', '2721', '33', '35', '3527', '3590', '306', '6010', '6012', '643', '66', '1', '7', '9']) {
      expect(cardBrand(luhnNumber(prefix, 16)), prefix).toBeNull();
    }
  });

  it('ignores spaces and dashes', () => {
    expect(cardBrand('3782 822463 10005')).toBe('American Express');
    expect(cardBrand('6011-1111-1111-1117')).toBe('Discover');
  });

  it('uses the display names of CARD_BRANDS, all of them', () => {
    expect(new Set(Object.keys(cases))).toEqual(new Set(CARD_BRANDS));
  });
});

describe('masked payment_method.data (§4.2)', () => {
  it('shows brand, mask, last four and expiry of a new card', () => {
    const card = parseCard(cardBody({ cardholder_name: 'Ada Lee', exp_year: '30' }), undefined, NOW);
    expect(maskedCard(card)).toEqual({
      type: 'Visa',
      mask: '************4242',
      last4: '4242',
      exp_month: 12,
      exp_year: 2030,
      cardholder_name: 'Ada Lee',
      label: 'Visa 4242',
      billing_address: null,
    });
  });

  it('masks all but the last four digits whatever the length', () => {
    const amex = parseCard(cardBody({ number: '3782 822463 10005', cvv: '1234' }), undefined, NOW);
    expect(maskedCard(amex)).toMatchObject({ type: 'American Express', mask: '***********0005', label: 'American Express 0005' });
    const short = parseCard(cardBody({ number: luhnNumber('4', 12) }), undefined, NOW);
    expect(maskedCard(short).mask).toMatch(/^\*{8}\d{4}$/);
  });

  it('labels an unknown brand as Card', () => {
    const number = luhnNumber('9', 16);
    const data = maskedCard(parseCard(cardBody({ number }), undefined, NOW));
    expect(data.type).toBeNull();
    expect(data.label).toBe(`Card ${number.slice(-4)}`);
  });

  it('renders the billing address as an address object', () => {
    const card = parseCard(cardBody({ billing_address: { postal_code: '94107' } }), undefined, NOW);
    expect(maskedCard(card).billing_address).toMatchObject({ object: 'address', postal_code: '94107', country: null });
  });

  it('is the same for a saved card, which keeps no number', () => {
    const card = parseCard(cardBody({ number: '5555 5555 5555 4444', cardholder_name: 'Ada Lee', billing_address: { postal_code: '94107' } }), undefined, NOW);
    const saved = savedCardRef(card);
    expect(maskedCard(saved)).toEqual(maskedCard(card));
    expect(JSON.stringify(saved)).not.toContain('5555555555554444');
    expect(JSON.stringify(saved)).not.toContain('"123"');
  });

  it('never includes the full number or the cvv', () => {
    const card = parseCard(cardBody({ cvv: '987' }), undefined, NOW);
    const json = JSON.stringify(maskedCard(card));
    expect(json).not.toContain('4242424242424242');
    expect(json).not.toContain('987');
  });
});

describe('card fingerprint (§4.5)', () => {
  const number = '4242424242424242';

  it('is stable for one account and number', () => {
    expect(cardFingerprint(number, 'ACC1')).toBe(cardFingerprint(number, 'ACC1'));
    expect(cardFingerprint('4242 4242-4242 4242', 'ACC1')).toBe(cardFingerprint(number, 'ACC1'));
  });

  it('differs across accounts and numbers', () => {
    expect(cardFingerprint(number, 'ACC1')).not.toBe(cardFingerprint(number, 'ACC2'));
    expect(cardFingerprint(number, 'ACC1')).not.toBe(cardFingerprint('4444555566661111', 'ACC1'));
  });

  it('is a hash that shows neither the number nor the account', () => {
    const fingerprint = cardFingerprint(number, 'ACC1');
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint).not.toContain(number);
    expect(fingerprint).not.toContain('ACC1');
  });
});
