/**
 * The promotion discount rules (commerce.md §11 "Application"): percent per line, fixed
 * amounts converted, capped and spread with the remainder on the largest line, the gross-up
 * of net amounts in tax-inclusive sales, and how `computeSale` prices the result.
 */
import { describe, expect, it } from 'vitest';
import { computeSale, taxLocationOf, taxTreatmentOf, type TaxTreatment } from '../../../shared/modules/pricing';
import { hasEligibleLine, promotionDiscounts, type PromotionTerms } from '../../../shared/modules/promotions';
import { inclusiveDe, line, paymentSettings, sale, taxSettings } from '../pricing/fixtures';

const payment = paymentSettings();
const exclusive: TaxTreatment = { country: 'US', rate: 0.1, locationRate: 0.1, tax_inclusive: false, discount_on_gross: false, tax_exempt: false };
const inclusive: TaxTreatment = { country: 'DE', rate: 0.2, locationRate: 0.2, tax_inclusive: true, discount_on_gross: false, tax_exempt: false };

const percent = (discount_percent: number, product_ids: string[] = []): PromotionTerms => ({
  discount_type: 'percent',
  discount_percent,
  discount_amounts: [],
  product_ids,
});
const amount = (amounts: Array<[string, number]>, product_ids: string[] = []): PromotionTerms => ({
  discount_type: 'amount',
  discount_percent: null,
  discount_amounts: amounts.map(([currency, value]) => ({ currency, amount: value })),
  product_ids,
});

describe('percent promotions', () => {
  it('discounts each eligible line by subtotal_original × percent, rounded per line', () => {
    const lines = [line({ productId: 'a', unitPriceOriginal: 19.99, quantity: 3 }), line({ productId: 'b', unitPriceOriginal: 0.05, quantity: 1 })];
    // 59.97 × 0.15 = 8.9955 → 9.00; 0.05 × 0.15 = 0.0075 → 0.01
    expect(promotionDiscounts(percent(0.15), lines, 'USD', payment, exclusive)).toEqual([9, 0.01]);
  });

  it('leaves lines outside product_ids undiscounted', () => {
    const lines = [line({ productId: 'a', unitPriceOriginal: 10 }), line({ productId: 'b', unitPriceOriginal: 20 })];
    expect(promotionDiscounts(percent(0.5, ['b']), lines, 'USD', payment, exclusive)).toEqual([0, 10]);
  });

  it('never grosses up: a percent of a gross price is already gross', () => {
    const lines = [line({ unitPriceOriginal: 12 })];
    expect(promotionDiscounts(percent(0.25), lines, 'EUR', payment, inclusive)).toEqual([3]);
  });

  it('rounds to the currency: none in JPY, three places in BHD', () => {
    expect(promotionDiscounts(percent(0.15), [line({ unitPriceOriginal: 999 })], 'JPY', payment, exclusive)).toEqual([150]);
    expect(promotionDiscounts(percent(0.1), [line({ unitPriceOriginal: 1.2345 })], 'BHD', payment, exclusive)).toEqual([0.124]);
  });

  it('gives 100 % as the whole subtotal', () => {
    expect(promotionDiscounts(percent(1), [line({ unitPriceOriginal: 7.33, quantity: 3 })], 'USD', payment, exclusive)).toEqual([21.99]);
  });
});

describe('amount promotions', () => {
  it('spreads the amount in proportion to subtotal_original', () => {
    const lines = [line({ productId: 'a', unitPriceOriginal: 30 }), line({ productId: 'b', unitPriceOriginal: 10 })];
    expect(promotionDiscounts(amount([['USD', 10]]), lines, 'USD', payment, exclusive)).toEqual([7.5, 2.5]);
  });

  it('gives the rounding remainder to the largest line', () => {
    const lines = [
      line({ productId: 'a', unitPriceOriginal: 10 }),
      line({ productId: 'b', unitPriceOriginal: 20 }),
      line({ productId: 'c', unitPriceOriginal: 10 }),
    ];
    // 10 / 40: 2.5 each for the small lines is exact; 1 over three equal lines leaves a cent.
    expect(promotionDiscounts(amount([['USD', 10]]), lines, 'USD', payment, exclusive)).toEqual([2.5, 5, 2.5]);
    const equal = [line({ productId: 'a', unitPriceOriginal: 10 }), line({ productId: 'b', unitPriceOriginal: 10 }), line({ productId: 'c', unitPriceOriginal: 10 })];
    // 0.3333… rounds to 0.33 for the others; the first of the equally large lines takes 0.34.
    expect(promotionDiscounts(amount([['USD', 1]]), equal, 'USD', payment, exclusive)).toEqual([0.34, 0.33, 0.33]);
    const uneven = [line({ productId: 'a', unitPriceOriginal: 1 }), line({ productId: 'b', unitPriceOriginal: 2 }), line({ productId: 'c', unitPriceOriginal: 4 })];
    // 1 × 1/7 = 0.142… → 0.14, 1 × 2/7 = 0.285… → 0.29, the largest takes 1 − 0.43 = 0.57.
    const shares = promotionDiscounts(amount([['USD', 1]]), uneven, 'USD', payment, exclusive);
    expect(shares).toEqual([0.14, 0.29, 0.57]);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('keeps every share between 0 and its line when many tiny shares round up', () => {
    const lines = Array.from({ length: 8 }, (_, index) => line({ productId: `p${index}`, unitPriceOriginal: 1 }));
    // 0.05 over eight equal lines: 0.625 cents each would round up to 7 cents for the others.
    const shares = promotionDiscounts(amount([['USD', 0.05]]), lines, 'USD', payment, exclusive);
    expect(shares.every((share) => share >= 0 && share <= 1)).toBe(true);
    expect(Math.round(shares.reduce((a, b) => a + b, 0) * 100)).toBe(5);
  });

  it('caps the amount at the eligible subtotal', () => {
    const lines = [line({ productId: 'a', unitPriceOriginal: 4 }), line({ productId: 'b', unitPriceOriginal: 6 }), line({ productId: 'x', unitPriceOriginal: 100 })];
    expect(promotionDiscounts(amount([['USD', 50]], ['a', 'b']), lines, 'USD', payment, exclusive)).toEqual([4, 6, 0]);
  });

  it('uses the sale currency entry, else converts the default-currency entry, else the first', () => {
    const lines = [line({ unitPriceOriginal: 100 })];
    expect(promotionDiscounts(amount([['USD', 10], ['EUR', 8]]), lines, 'EUR', payment, exclusive)).toEqual([8]);
    // 10 USD × 0.92 = 9.20 EUR
    expect(promotionDiscounts(amount([['JPY', 5000], ['USD', 10]]), lines, 'EUR', payment, exclusive)).toEqual([9.2]);
    // 1500 JPY / 150 × 0.92 = 9.20 EUR
    expect(promotionDiscounts(amount([['JPY', 1500]]), lines, 'EUR', payment, exclusive)).toEqual([9.2]);
    // 10 USD in JPY: 1500, no minor units
    expect(promotionDiscounts(amount([['USD', 10]]), [line({ unitPriceOriginal: 20000 })], 'JPY', payment, exclusive)).toEqual([1500]);
  });

  it('grosses a net amount up at the rate in tax-inclusive sales without discount_on_gross', () => {
    const lines = [line({ productId: 'a', unitPriceOriginal: 60 }), line({ productId: 'b', unitPriceOriginal: 60 })];
    // 10 net at 20 % is 12 gross, spread 6 / 6.
    expect(promotionDiscounts(amount([['EUR', 10]]), lines, 'EUR', payment, inclusive)).toEqual([6, 6]);
    // With discount_on_gross the amount is taken as gross.
    expect(promotionDiscounts(amount([['EUR', 10]]), lines, 'EUR', payment, { ...inclusive, discount_on_gross: true })).toEqual([5, 5]);
    // Tax-exclusive sales never gross up.
    expect(promotionDiscounts(amount([['EUR', 10]]), lines, 'EUR', payment, exclusive)).toEqual([5, 5]);
  });

  it('caps the grossed-up amount at the eligible subtotal', () => {
    expect(promotionDiscounts(amount([['EUR', 10]]), [line({ unitPriceOriginal: 11 })], 'EUR', payment, inclusive)).toEqual([11]);
  });

  it('gives nothing when no line is eligible', () => {
    const lines = [line({ productId: 'a', unitPriceOriginal: 10 })];
    expect(promotionDiscounts(amount([['USD', 5]], ['z']), lines, 'USD', payment, exclusive)).toEqual([0]);
    expect(hasEligibleLine({ product_ids: ['z'] }, lines)).toBe(false);
    expect(hasEligibleLine({ product_ids: [] }, lines)).toBe(true);
    expect(hasEligibleLine({ product_ids: [] }, [])).toBe(false);
  });
});

describe('priced by computeSale', () => {
  it('turns a percent discount into the §1.3 amounts and keeps the _original twins', () => {
    const input = sale({ lines: [line({ unitPriceOriginal: 19, quantity: 2 })] });
    const treatment = taxTreatmentOf(input.taxLocation, false, input.tax);
    const [discount] = promotionDiscounts(percent(0.1), input.lines, 'USD', payment, treatment);
    const totals = computeSale({ ...input, lines: [{ ...input.lines[0]!, discount: discount! }] });
    expect(totals).toMatchObject({ subtotal_original: 38, discount: 3.8, subtotal: 34.2, tax: 3.42, tax_original: 3.8, total: 37.62, total_original: 41.8 });
    expect(totals.items[0]).toMatchObject({ price: 17.1, price_original: 19, discount: 3.8 });
  });

  it('makes a net amount worth the same net in an inclusive sale', () => {
    const { taxLocation, tax } = inclusiveDe();
    const input = sale({ currency: 'EUR', taxLocation, tax, lines: [line({ unitPriceOriginal: 120 })] });
    const treatment = taxTreatmentOf(taxLocation, false, tax);
    const [discount] = promotionDiscounts(amount([['EUR', 10]]), input.lines, 'EUR', payment, treatment);
    const totals = computeSale({ ...input, lines: [{ ...input.lines[0]!, discount: discount! }] });
    // 120 gross (100 net); 10 net off → 12 gross off → 108 gross (90 net).
    expect(totals).toMatchObject({ discount: 12, subtotal: 108, tax: 18, total: 108, total_original: 120 });
  });

  it('gives a tax-exempt customer in an inclusive sale the net amount off the net price', () => {
    const { taxLocation, tax } = inclusiveDe();
    const input = sale({ currency: 'EUR', taxLocation, tax, customerTaxExempt: true, lines: [line({ unitPriceOriginal: 120 })] });
    const treatment = taxTreatmentOf(taxLocationOf({ hasPhysical: false, billingAddress: { country: 'DE' }, ipCountry: null }), true, tax);
    const [discount] = promotionDiscounts(amount([['EUR', 10]]), input.lines, 'EUR', payment, treatment);
    const totals = computeSale({ ...input, lines: [{ ...input.lines[0]!, discount: discount! }] });
    expect(totals).toMatchObject({ subtotal_original: 100, discount: 10, subtotal: 90, tax: 0, total: 90 });
  });

  it('takes an amount as gross in a gross-discount country', () => {
    const { taxLocation, tax } = inclusiveDe({ gross_discount_countries: ['DE'] });
    const input = sale({ currency: 'EUR', taxLocation, tax, lines: [line({ unitPriceOriginal: 120 })] });
    const treatment = taxTreatmentOf(taxLocation, false, tax);
    expect(treatment.discount_on_gross).toBe(true);
    const [discount] = promotionDiscounts(amount([['EUR', 10]]), input.lines, 'EUR', payment, treatment);
    expect(computeSale({ ...input, lines: [{ ...input.lines[0]!, discount: discount! }] })).toMatchObject({ discount: 10, subtotal: 110, discount_on_gross: true });
  });

  it('uses one rate for all lines when grossing up', () => {
    const tax = taxSettings([{ country: 'AT', state_prov: null, rate: 0.2 }], { tax_inclusive_countries: ['AT'] });
    const treatment = taxTreatmentOf({ country: 'AT', stateProv: null }, false, tax);
    const lines = [line({ productId: 'a', unitPriceOriginal: 24 }), line({ productId: 'b', unitPriceOriginal: 12 })];
    // 3 net → 3.60 gross, in proportion 2:1 → 2.40 / 1.20
    expect(promotionDiscounts(amount([['EUR', 3]]), lines, 'EUR', payment, treatment)).toEqual([2.4, 1.2]);
  });
});
