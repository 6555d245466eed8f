/**
 * Validation of promotion writes (commerce.md §11, conventions.md §4, §13, §15): the declared
 * bodies (required fields, code format, numbers that may come as plain decimal strings, strict
 * booleans) and the operation over the parsed value (discount fields per type, enabled
 * currencies, `expires` shorthands in the zone in effect, partial updates and posted-back
 * objects). Pure: no store.
 */
import { describe, expect, it } from 'vitest';
import { promotionCreate, promotionUpdate } from '../../../shared/modules/promotions/promotion-schemas';
import { promotionFields as applyFields, type PromotionFields, type PromotionInputContext } from '../../../shared/modules/promotions/promotions';
import { parseInput } from '../../../shared/rest/validate';
import { paymentSettings } from '../pricing/fixtures';

const NOW = Date.parse('2026-11-21T14:05:09Z');
const context: PromotionInputContext = { payment: paymentSettings({ currencies: ['USD', 'EUR'] }), zone: 'UTC', now: NOW };
const valid = { name: 'Spring sale', code: 'SPRING10', discount_type: 'percent', discount_percent: 0.1 };

/** A body as the pipeline hands it on (parsed by the create or update schema), applied to `current`. */
function promotionFields(body: Record<string, unknown>, current: PromotionFields | undefined, input: PromotionInputContext): PromotionFields {
  return applyFields(parseInput(current ? promotionUpdate : promotionCreate, body), current, input);
}

function errorOf(run: () => unknown): { status: number; code: string; meta: unknown } {
  try {
    run();
  } catch (error) {
    return error as { status: number; code: string; meta: unknown };
  }
  throw new Error('expected a validation error');
}

describe('creating', () => {
  it('fills the defaults', () => {
    expect(promotionFields(valid, undefined, context)).toEqual({
      name: 'Spring sale',
      code: 'SPRING10',
      active: true,
      discount_type: 'percent',
      discount_percent: 0.1,
      discount_amounts: [],
      product_ids: [],
      expires_ms: null,
      max_uses: null,
      meta: null,
    });
  });

  it.each([
    [{ ...valid, name: undefined }, 'name', 'required'],
    [{ ...valid, name: '   ' }, 'name', 'required'],
    [{ ...valid, code: undefined }, 'code', 'required'],
    [{ ...valid, code: 'SPRING 10' }, 'code', 'invalid'],
    [{ ...valid, code: 'ÉTÉ' }, 'code', 'invalid'],
    [{ ...valid, code: 'X'.repeat(51) }, 'code', 'too_long'],
    [{ ...valid, code: 10 }, 'code', 'invalid'],
    [{ ...valid, type: 'gift_card' }, 'type', 'invalid'],
    [{ ...valid, discount_type: undefined }, 'discount_type', 'required'],
    [{ ...valid, discount_type: 'bogo' }, 'discount_type', 'invalid'],
    [{ ...valid, discount_percent: undefined }, 'discount_percent', 'required'],
    [{ ...valid, discount_percent: 0 }, 'discount_percent', 'out_of_range'],
    [{ ...valid, discount_percent: 1.5 }, 'discount_percent', 'out_of_range'],
    [{ ...valid, discount_percent: -0.1 }, 'discount_percent', 'out_of_range'],
    [{ ...valid, discount_percent: '1e-1' }, 'discount_percent', 'invalid'],
    [{ ...valid, discount_percent: 'two' }, 'discount_percent', 'invalid'],
    [{ ...valid, discount_percent: '0.1 ' }, 'discount_percent', 'invalid'],
    [{ ...valid, discount_percent: '1.5' }, 'discount_percent', 'out_of_range'],
    [{ ...valid, discount_percent: [0.1] }, 'discount_percent', 'invalid'],
    [{ ...valid, discount_type: 'amount' }, 'discount_amounts', 'required'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [] }, 'discount_amounts', 'required'],
    [{ ...valid, discount_type: 'amount', discount_amounts: { currency: 'USD', amount: 5 } }, 'discount_amounts', 'invalid'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ amount: 5 }] }, 'discount_amounts[0].currency', 'required'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'GBP', amount: 5 }] }, 'discount_amounts[0].currency', 'invalid'],
    [
      { ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 5 }, { currency: 'usd', amount: 6 }] },
      'discount_amounts[1].currency',
      'conflict',
    ],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 0 }] }, 'discount_amounts[0].amount', 'out_of_range'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: '1e3' }] }, 'discount_amounts[0].amount', 'invalid'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 'five' }] }, 'discount_amounts[0].amount', 'invalid'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: {} }] }, 'discount_amounts[0].amount', 'invalid'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 1_000_000_000_000 }] }, 'discount_amounts[0].amount', 'out_of_range'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: '1000000000000' }] }, 'discount_amounts[0].amount', 'out_of_range'],
    [{ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: -5 }] }, 'discount_amounts[0].amount', 'out_of_range'],
    [{ ...valid, product_ids: 'ebook' }, 'product_ids', 'invalid'],
    [{ ...valid, product_ids: ['ebook', 'no spaces'] }, 'product_ids[1]', 'invalid'],
    [{ ...valid, expires: 'next tuesday' }, 'expires', 'invalid'],
    [{ ...valid, expires: 1_800_000_000 }, 'expires', 'invalid'],
    [{ ...valid, max_uses: 0 }, 'max_uses', 'out_of_range'],
    [{ ...valid, max_uses: 2.5 }, 'max_uses', 'invalid'],
    [{ ...valid, max_uses: '2.5' }, 'max_uses', 'invalid'],
    [{ ...valid, max_uses: 'ten' }, 'max_uses', 'invalid'],
    [{ ...valid, active: 'yes' }, 'active', 'invalid'],
    [{ ...valid, active: 1 }, 'active', 'invalid'],
    [{ ...valid, name: 7 }, 'name', 'invalid'],
    [{ ...valid, meta: true }, 'meta', 'invalid'],
    [{ ...valid, meta: 'x'.repeat(2100) }, 'meta', 'too_long'],
  ])('refuses %j (400 invalid_input on %s, %s)', (body, property, reason) => {
    const error = errorOf(() => promotionFields(body, undefined, context));
    expect(error).toMatchObject({ status: 400, code: 'invalid_input', meta: { property, reason } });
  });

  it('accepts amounts per currency, uppercased, and de-duplicates product ids', () => {
    const fields = promotionFields(
      { ...valid, discount_type: 'amount', discount_percent: 0.5, discount_amounts: [{ currency: 'eur', amount: 4.5 }], product_ids: ['a', 'b', 'a'] },
      undefined,
      context,
    );
    expect(fields).toMatchObject({ discount_type: 'amount', discount_percent: null, discount_amounts: [{ currency: 'EUR', amount: 4.5 }], product_ids: ['a', 'b'] });
  });

  it('takes plain decimal strings where numbers are expected, as forms post them (conventions.md §4)', () => {
    expect(promotionFields({ ...valid, discount_percent: '0.25', max_uses: '3' }, undefined, context)).toMatchObject({ discount_percent: 0.25, max_uses: 3 });
    const amounts = promotionFields({ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'usd', amount: '5' }, { currency: 'EUR', amount: '4.50' }] }, undefined, context);
    expect(amounts.discount_amounts).toEqual([{ currency: 'USD', amount: 5 }, { currency: 'EUR', amount: 4.5 }]);
    expect(promotionFields({ ...valid, discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 999_999_999_999 }] }, undefined, context).discount_amounts).toEqual([
      { currency: 'USD', amount: 999_999_999_999 },
    ]);
  });
});

describe('expires', () => {
  const expires = (value: unknown, zone = 'UTC') => promotionFields({ ...valid, expires: value }, undefined, { ...context, zone }).expires_ms;

  it('reads a date-only value as the end of that day in the zone in effect', () => {
    expect(expires('2026-12-31')).toBe(Date.parse('2026-12-31T23:59:59.999Z'));
    expect(expires('2026-12-31', 'America/New_York')).toBe(Date.parse('2027-01-01T04:59:59.999Z'));
  });

  it('takes a full timestamp exactly, and its own offset over the zone', () => {
    expect(expires('2026-12-01T10:00:00+02:00', 'America/New_York')).toBe(Date.parse('2026-12-01T08:00:00Z'));
  });

  it('resolves shorthands against the platform clock', () => {
    expect(expires('today')).toBe(Date.parse('2026-11-21T23:59:59.999Z'));
    expect(expires('+7')).toBe(Date.parse('2026-11-28T23:59:59.999Z'));
    expect(expires('this_month')).toBe(Date.parse('2026-11-30T23:59:59.999Z'));
  });

  it('clears with null or an empty string', () => {
    expect(expires(null)).toBeNull();
    expect(expires('')).toBeNull();
  });
});

describe('updating', () => {
  const current: PromotionFields = {
    name: 'Spring sale',
    code: 'SPRING10',
    active: true,
    discount_type: 'amount',
    discount_percent: null,
    discount_amounts: [{ currency: 'USD', amount: 5 }],
    product_ids: ['ebook'],
    expires_ms: Date.parse('2026-12-31T23:59:59.999Z'),
    max_uses: 10,
    meta: { campaign: 'spring' },
  };

  it('changes only what is sent, and null clears', () => {
    expect(promotionFields({ active: false, max_uses: null }, current, context)).toEqual({ ...current, active: false, max_uses: null });
    expect(promotionFields({ expires: null, meta: null, product_ids: null }, current, context)).toEqual({ ...current, expires_ms: null, meta: null, product_ids: [] });
  });

  it('accepts the whole object posted back, ignoring read-only properties', () => {
    const posted = {
      object: 'promotion',
      promotion_id: 'spring',
      type: 'coupon',
      ...current,
      expires: '2026-12-31T23:59:59Z',
      uses: 99,
      deleted: true,
      url: 'https://api.example.test/api/v1/promotions/spring',
      date_created: '2026-11-01T00:00:00Z',
    };
    expect(promotionFields(posted, current, context)).toEqual({ ...current, expires_ms: Date.parse('2026-12-31T23:59:59Z') });
  });

  it('asks for the discount of a new type, and drops the old one', () => {
    expect(errorOf(() => promotionFields({ discount_type: 'percent' }, current, context))).toMatchObject({ meta: { property: 'discount_percent', reason: 'required' } });
    expect(promotionFields({ discount_type: 'percent', discount_percent: 0.2 }, current, context)).toMatchObject({
      discount_type: 'percent',
      discount_percent: 0.2,
      discount_amounts: [],
    });
  });

  it('refuses to blank a required property', () => {
    expect(errorOf(() => promotionFields({ name: null }, current, context))).toMatchObject({ meta: { property: 'name', reason: 'required' } });
    expect(errorOf(() => promotionFields({ code: '' }, current, context))).toMatchObject({ meta: { property: 'code', reason: 'required' } });
    expect(errorOf(() => promotionFields({ discount_amounts: [] }, current, context))).toMatchObject({ meta: { property: 'discount_amounts', reason: 'required' } });
  });
});
