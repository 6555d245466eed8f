import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../shared/platform/ports';
import { InvalidInputError } from '../../../shared/http/errors';
import { luhnValid } from '../../../shared/modules/payments';
import { cardBody, luhnNumber, NOW, parseCard } from './fixtures/cards';

/** The `meta` of the invalid_input error `run` throws. */
function failure(run: () => unknown): Record<string, unknown> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    const apiError = error as InvalidInputError;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('invalid_input');
    return apiError.meta ?? {};
  }
  throw new Error('expected invalid_input');
}

const parse = (overrides: Record<string, unknown> = {}, now = NOW) => parseCard(cardBody(overrides), undefined, now);

describe('Luhn check', () => {
  it('accepts valid numbers and refuses a changed digit', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4444555566661111')).toBe(true);
    expect(luhnValid('378282246310005')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('4242424242424243')).toBe(false);
  });

  it('refuses anything that is not digits', () => {
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4242 4242 4242 4242')).toBe(false);
  });
});

describe('card number (§4.2)', () => {
  it('removes spaces and dashes', () => {
    expect(parse({ number: '4242 4242 4242 4242' }).number).toBe('4242424242424242');
    expect(parse({ number: '4242-4242-4242-4242' }).number).toBe('4242424242424242');
    expect(parse({ number: ' 4242-4242 4242-4242 ' }).number).toBe('4242424242424242');
  });

  it('accepts 12 to 19 digits', () => {
    for (const length of [12, 13, 15, 16, 19]) {
      const number = luhnNumber('4', length);
      expect(parse({ number }).number).toBe(number);
    }
  });

  it('refuses 11 and 20 digits even when Luhn-valid', () => {
    for (const length of [11, 20]) {
      const number = luhnNumber('4', length);
      expect(luhnValid(number)).toBe(true);
      expect(failure(() => parse({ number }))).toEqual({ property: 'payment_method.data.number', reason: 'invalid' });
    }
  });

  it('refuses a number failing the Luhn check', () => {
    expect(failure(() => parse({ number: '4242424242424241' }))).toEqual({ property: 'payment_method.data.number', reason: 'invalid' });
  });

  it('refuses letters, other separators and JSON numbers', () => {
    for (const number of ['4242x24242424242', '4242.4242.4242.4242', '4242/4242/4242/4242', 4242424242424242]) {
      expect(failure(() => parse({ number }))).toEqual({ property: 'payment_method.data.number', reason: 'invalid' });
    }
  });

  it('requires the number', () => {
    for (const number of [undefined, null, '']) {
      expect(failure(() => parse({ number }))).toEqual({ property: 'payment_method.data.number', reason: 'required' });
    }
  });
});

describe('expiry (§4.2)', () => {
  const nov2026 = { exp_month: 11, exp_year: 2026 };

  it('is valid through the last instant of the expiry month (UTC)', () => {
    expect(parse(nov2026, Date.parse('2026-11-30T23:59:59Z'))).toMatchObject({ expMonth: 11, expYear: 2026 });
    expect(parse(nov2026, Date.parse('2026-11-30T23:59:59.999Z'))).toMatchObject({ expMonth: 11, expYear: 2026 });
  });

  it('expires on the first instant of the next month', () => {
    expect(failure(() => parse(nov2026, Date.parse('2026-12-01T00:00:00Z')))).toEqual({
      property: 'payment_method.data.exp_month',
      reason: 'expired',
    });
  });

  it('rolls a December expiry into January', () => {
    const dec = { exp_month: 12, exp_year: 2026 };
    expect(parse(dec, Date.parse('2026-12-31T23:59:59Z')).expMonth).toBe(12);
    expect(failure(() => parse(dec, Date.parse('2027-01-01T00:00:00Z'))).reason).toBe('expired');
  });

  it('names exp_year when the year itself is past', () => {
    expect(failure(() => parse({ exp_month: 12, exp_year: 2025 }))).toEqual({ property: 'payment_method.data.exp_year', reason: 'expired' });
  });

  it('decides by the reading of the platform clock it is handed', () => {
    let at = Date.parse('2031-01-01T00:00:00Z');
    const clock: Clock = { nowMs: () => at };
    expect(failure(() => parseCard(cardBody({ exp_month: 12, exp_year: 2030 }), undefined, clock.nowMs()))).toMatchObject({ reason: 'expired' });
    at = Date.parse('2030-12-31T23:59:59Z');
    expect(parseCard(cardBody({ exp_month: 12, exp_year: 2030 }), undefined, clock.nowMs()).expYear).toBe(2030);
  });
});

describe('exp_month and exp_year values', () => {
  it('reads two-digit years as 20xx', () => {
    expect(parse({ exp_year: 30 }).expYear).toBe(2030);
    expect(parse({ exp_year: '30' }).expYear).toBe(2030);
    expect(parse({ exp_year: 99 }).expYear).toBe(2099);
    // Two digits always mean this century, so 05 is long expired.
    expect(failure(() => parse({ exp_year: '05' }))).toMatchObject({ property: 'payment_method.data.exp_year', reason: 'expired' });
  });

  it('accepts plain decimal strings as well as JSON numbers (conventions.md §4), then applies the rules as to a number', () => {
    expect(parse({ exp_month: '07', exp_year: '2030' })).toMatchObject({ expMonth: 7, expYear: 2030 });
    expect(parse({ exp_month: '7', exp_year: 2030 })).toMatchObject({ expMonth: 7, expYear: 2030 });
    expect(parse({ exp_month: 1 }).expMonth).toBe(1);
    expect(parse({ exp_month: '007', exp_year: '2030.0' })).toMatchObject({ expMonth: 7, expYear: 2030 });
  });

  it('refuses decimals, signs, blanks and other text', () => {
    for (const exp_month of ['12.5', 12.5, '-1', -1, ' 7', '7 ', '+7', 'July', '1e1', true, [12], {}]) {
      expect(failure(() => parse({ exp_month }))).toEqual({ property: 'payment_method.data.exp_month', reason: 'invalid' });
    }
    for (const exp_year of ['2030.5', 2030.5, '-30', 'twenty', '2e3', true]) {
      expect(failure(() => parse({ exp_year }))).toEqual({ property: 'payment_method.data.exp_year', reason: 'invalid' });
    }
  });

  it('refuses months outside 1–12', () => {
    for (const exp_month of [0, 13, '00', '13', '013.0']) {
      expect(failure(() => parse({ exp_month }))).toEqual({ property: 'payment_method.data.exp_month', reason: 'invalid' });
    }
  });

  it('refuses years of three or five digits', () => {
    for (const exp_year of [203, '203', 20300, '20300']) {
      expect(failure(() => parse({ exp_year }))).toEqual({ property: 'payment_method.data.exp_year', reason: 'invalid' });
    }
  });

  it('requires both', () => {
    expect(failure(() => parse({ exp_month: undefined }))).toEqual({ property: 'payment_method.data.exp_month', reason: 'required' });
    expect(failure(() => parse({ exp_year: '' }))).toEqual({ property: 'payment_method.data.exp_year', reason: 'required' });
  });
});

describe('cvv', () => {
  it('accepts 3 or 4 digits, kept as entered', () => {
    expect(parse({ cvv: '123' }).cvv).toBe('123');
    expect(parse({ cvv: '0123' }).cvv).toBe('0123');
    expect(parse({ cvv: '000' }).cvv).toBe('000');
  });

  it('is required for a new card', () => {
    for (const cvv of [undefined, null, '']) {
      expect(failure(() => parse({ cvv }))).toEqual({ property: 'payment_method.data.cvv', reason: 'required' });
    }
  });

  it('refuses other lengths, letters and JSON numbers', () => {
    for (const cvv of ['12', '12345', '12a', ' 123', 123]) {
      expect(failure(() => parse({ cvv }))).toEqual({ property: 'payment_method.data.cvv', reason: 'invalid' });
    }
  });
});

describe('cardholder_name and billing_address', () => {
  it('are optional', () => {
    expect(parse()).toMatchObject({ cardholderName: null, billingAddress: null });
    expect(parse({ cardholder_name: '', billing_address: null })).toMatchObject({ cardholderName: null, billingAddress: null });
  });

  it('keep a name up to 100 characters', () => {
    expect(parse({ cardholder_name: 'Ada Lee' }).cardholderName).toBe('Ada Lee');
    expect(parse({ cardholder_name: 'a'.repeat(100) }).cardholderName).toHaveLength(100);
    expect(failure(() => parse({ cardholder_name: 'a'.repeat(101) }))).toEqual({ property: 'payment_method.data.cardholder_name', reason: 'too_long' });
    expect(failure(() => parse({ cardholder_name: 7 }))).toEqual({ property: 'payment_method.data.cardholder_name', reason: 'invalid' });
  });

  it('keep the address fields and drop unknown ones', () => {
    const card = parse({ billing_address: { postal_code: '94107', country: 'us', colour: 'red' } });
    expect(card.billingAddress).toMatchObject({ postal_code: '94107', country: 'US', city: null });
    expect(card.billingAddress).not.toHaveProperty('colour');
  });

  it('refuse a malformed address with the nested property', () => {
    expect(failure(() => parse({ billing_address: 'Main St' }))).toEqual({ property: 'payment_method.data.billing_address', reason: 'invalid' });
    expect(failure(() => parse({ billing_address: { postal_code: true } }))).toEqual({
      property: 'payment_method.data.billing_address.postal_code',
      reason: 'invalid',
    });
    expect(failure(() => parse({ billing_address: { country: 'XX' } }))).toEqual({ property: 'payment_method.data.billing_address.country', reason: 'invalid' });
  });

  it('take a postal code sent as a number as its decimal string (conventions.md §4)', () => {
    expect(parse({ billing_address: { postal_code: 94107 } }).billingAddress).toMatchObject({ postal_code: '94107' });
  });
});

describe('the data object', () => {
  it('is required and must be an object', () => {
    expect(failure(() => parseCard(undefined, undefined, NOW))).toEqual({ property: 'payment_method.data', reason: 'required' });
    expect(failure(() => parseCard('4242424242424242', undefined, NOW))).toEqual({ property: 'payment_method.data', reason: 'invalid' });
    expect(failure(() => parseCard([cardBody()], undefined, NOW))).toEqual({ property: 'payment_method.data', reason: 'invalid' });
  });

  it('uses the given property prefix', () => {
    expect(failure(() => parseCard(cardBody({ cvv: '1' }), 'card', NOW))).toEqual({ property: 'card.cvv', reason: 'invalid' });
  });

  it('reports the first failure: shapes in field order, then the Luhn check, then expiry', () => {
    expect(failure(() => parse({ number: '1', exp_month: 13, cvv: 'x' })).property).toBe('payment_method.data.number');
    expect(failure(() => parse({ exp_month: 13, cvv: 'x' })).property).toBe('payment_method.data.exp_month');
    // The Luhn check and expiry follow the schema (the request's shape is checked first).
    expect(failure(() => parse({ number: '4242424242424241', cvv: 'x' })).property).toBe('payment_method.data.cvv');
    expect(failure(() => parse({ number: '4242424242424241', exp_year: 2020 })).property).toBe('payment_method.data.number');
    expect(failure(() => parse({ exp_year: 2020, cvv: 'x' })).property).toBe('payment_method.data.cvv');
    expect(failure(() => parse({ exp_year: 2020 })).reason).toBe('expired');
  });

  it('returns the parsed card', () => {
    expect(parse({ cardholder_name: 'Ada Lee' })).toEqual({
      kind: 'new',
      number: '4242424242424242',
      expMonth: 12,
      expYear: 2030,
      cvv: '123',
      cardholderName: 'Ada Lee',
      billingAddress: null,
    });
  });

  it('never serialises the number or the CVV', () => {
    const card = parse({ cvv: '987' });
    const json = JSON.stringify({ card });
    expect(json).not.toContain('4242424242424242');
    expect(json).not.toContain('987');
    expect(json).toContain('************4242');
  });
});
