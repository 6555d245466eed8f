import { describe, expect, it } from 'vitest';
import { isCurrencyCode, minorUnits, roundMoney } from '../../shared/rest/money';

describe('minor units from Intl', () => {
  it('knows 0, 2, 3 and 4 digit currencies', () => {
    expect(minorUnits('JPY')).toBe(0);
    expect(minorUnits('KRW')).toBe(0);
    expect(minorUnits('USD')).toBe(2);
    expect(minorUnits('EUR')).toBe(2);
    expect(minorUnits('BHD')).toBe(3);
    expect(minorUnits('KWD')).toBe(3);
    expect(minorUnits('CLF')).toBe(4);
  });

  it('is case-insensitive', () => {
    expect(minorUnits('jpy')).toBe(0);
    expect(minorUnits('bhd')).toBe(3);
  });

  it('rejects a malformed code with RangeError', () => {
    expect(() => minorUnits('US')).toThrow(RangeError);
    expect(() => minorUnits('US$')).toThrow(RangeError);
  });
});

describe('rounding half away from zero (commerce §1.2)', () => {
  it('rounds halves away from zero in both directions', () => {
    expect(roundMoney(2.5, 'JPY')).toBe(3);
    expect(roundMoney(-2.5, 'JPY')).toBe(-3);
    expect(roundMoney(0.125, 'USD')).toBe(0.13);
    expect(roundMoney(-0.125, 'USD')).toBe(-0.13);
    expect(roundMoney(1.0005, 'BHD')).toBe(1.001);
    expect(roundMoney(-1.0005, 'BHD')).toBe(-1.001);
  });

  it('rounds below half toward zero', () => {
    expect(roundMoney(2.4999, 'JPY')).toBe(2);
    expect(roundMoney(-2.4999, 'JPY')).toBe(-2);
    expect(roundMoney(19.994, 'USD')).toBe(19.99);
    expect(roundMoney(1.0004, 'BHD')).toBe(1);
  });

  it('rounds the decimal the number stands for, not its binary approximation', () => {
    // 1.005 is stored as 1.00499999999999989…, 2.675 as 2.67499999999999982…
    expect(roundMoney(1.005, 'USD')).toBe(1.01);
    expect(roundMoney(-1.005, 'USD')).toBe(-1.01);
    expect(roundMoney(2.675, 'USD')).toBe(2.68);
    expect(roundMoney(1.0000000001, 'USD')).toBe(1);
    expect(roundMoney(0.1 + 0.2, 'USD')).toBe(0.3);
    expect(roundMoney(0.1 * 3, 'EUR')).toBe(0.3);
    expect(roundMoney(1.15 * 100, 'JPY')).toBe(115);
    expect(roundMoney(8.345, 'USD')).toBe(8.35);
    expect(roundMoney(10.235, 'USD')).toBe(10.24);
    expect(roundMoney(1.2345, 'BHD')).toBe(1.235);
  });

  it('leaves amounts that already fit alone', () => {
    expect(roundMoney(19.99, 'USD')).toBe(19.99);
    expect(roundMoney(1234.5, 'EUR')).toBe(1234.5);
    expect(roundMoney(1500, 'JPY')).toBe(1500);
    expect(roundMoney(1e21, 'USD')).toBe(1e21);
    expect(roundMoney(123456789.12, 'USD')).toBe(123456789.12);
  });

  it('handles tiny amounts and zero, never returning -0', () => {
    expect(roundMoney(0.005, 'USD')).toBe(0.01);
    expect(roundMoney(-0.005, 'USD')).toBe(-0.01);
    expect(Object.is(roundMoney(-0.004, 'USD'), 0)).toBe(true);
    expect(Object.is(roundMoney(-0, 'USD'), 0)).toBe(true);
    expect(Object.is(roundMoney(-0.4, 'JPY'), 0)).toBe(true);
    expect(roundMoney(1e-7, 'USD')).toBe(0);
    expect(roundMoney(5e-324, 'USD')).toBe(0);
  });

  it('passes non-finite values through', () => {
    expect(roundMoney(Number.NaN, 'USD')).toBeNaN();
    expect(roundMoney(Number.POSITIVE_INFINITY, 'USD')).toBe(Number.POSITIVE_INFINITY);
  });

  it('agrees with Intl half-expand rounding across many amounts', () => {
    // ICU also rounds the shortest decimal representation; it serves as an independent oracle.
    const oracles = new Map(
      [0, 2, 3].map((digits) => [
        digits,
        new Intl.NumberFormat('en-US', { maximumFractionDigits: digits, useGrouping: false, roundingMode: 'halfExpand' }),
      ]),
    );
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      // Amounts with 3–5 decimals hit exact halves often; the sign alternates.
      const decimals = 3 + (i % 3);
      const amount = (i % 2 ? -1 : 1) * Number((random() * 10_000).toFixed(decimals));
      for (const [currency, digits] of [['JPY', 0], ['USD', 2], ['BHD', 3]] as const) {
        const expected = Number(oracles.get(digits)!.format(amount)) || 0;
        expect(roundMoney(amount, currency), `${amount} ${currency}`).toBe(expected);
      }
    }
  });
});

describe('currency codes', () => {
  it('accepts ISO 4217 codes in any case', () => {
    for (const code of ['USD', 'EUR', 'JPY', 'BHD', 'usd', 'Eur']) expect(isCurrencyCode(code), code).toBe(true);
  });

  it('rejects unknown, malformed and non-currency codes', () => {
    for (const code of ['ABC', 'XXX', 'US', 'USDD', 'U$D', '', ' USD', 'ÜSD']) expect(isCurrencyCode(code), code).toBe(false);
  });
});
