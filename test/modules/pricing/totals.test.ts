import { describe, expect, it } from 'vitest';
import { computeSale } from '../../../shared/modules/pricing';
import { inclusiveDe, line, sale, taxSettings } from './fixtures';

describe('tax-exclusive lines (commerce §1.3)', () => {
  it('prices the contract cart example: 2 × 19.00 at 10 %', () => {
    const totals = computeSale(sale({ lines: [line({ unitPriceOriginal: 19, quantity: 2, taxCode: 'ebook' })] }));
    expect(totals.items[0]).toMatchObject({
      item_id: 'prod_1',
      product_id: 'prod_1',
      name: 'Widget',
      type: 'digital',
      quantity: 2,
      tax_code: 'ebook',
      currency: 'USD',
      price: 19,
      price_original: 19,
      subtotal: 38,
      subtotal_original: 38,
      discount: 0,
      tax_rate: 0.1,
      tax: 3.8,
      tax_original: 3.8,
      total: 41.8,
      total_original: 41.8,
    });
    expect(totals).toMatchObject({
      currency: 'USD',
      subtotal: 38,
      subtotal_original: 38,
      shipping: 0,
      shipping_original: 0,
      discount: 0,
      tax: 3.8,
      tax_original: 3.8,
      total: 41.8,
      total_original: 41.8,
      tax_inclusive: false,
      discount_on_gross: false,
      shipping_item: null,
      items_count: 1,
      items_quantity: 2,
    });
  });

  it('charges no tax without a location or a matching rule', () => {
    const none = computeSale(sale({ lines: [line({ unitPriceOriginal: 19 })], taxLocation: { country: null, stateProv: null } }));
    expect(none).toMatchObject({ tax: 0, total: 19, tax_inclusive: false });
    expect(none.items[0]).toMatchObject({ tax_rate: 0, tax: 0, total: 19 });
    const unmatched = computeSale(sale({ lines: [line({ unitPriceOriginal: 19 })], taxLocation: { country: 'FR', stateProv: null } }));
    expect(unmatched).toMatchObject({ tax: 0, total: 19 });
  });

  it('uses the most specific rule for the lines', () => {
    const tax = taxSettings([
      { country: 'US', state_prov: null, rate: 0.05 },
      { country: 'US', state_prov: 'CA', rate: 0.0725 },
    ]);
    const totals = computeSale(sale({ lines: [line({ unitPriceOriginal: 100 })], tax, taxLocation: { country: 'US', stateProv: 'CA' } }));
    expect(totals.items[0]).toMatchObject({ tax_rate: 0.0725, tax: 7.25, total: 107.25 });
  });

  it('is empty for a sale without lines', () => {
    expect(computeSale(sale())).toMatchObject({ items: [], subtotal: 0, tax: 0, total: 0, items_count: 0, items_quantity: 0 });
  });
});

describe('tax-inclusive lines (commerce §1.3)', () => {
  it('takes the tax out of the price: 12.00 at 20 % holds 2.00', () => {
    const totals = computeSale(sale({ ...inclusiveDe(), currency: 'EUR', lines: [line({ unitPriceOriginal: 12 })] }));
    expect(totals.items[0]).toMatchObject({
      price: 12,
      price_original: 12,
      subtotal: 12,
      subtotal_original: 12,
      tax_rate: 0.2,
      tax: 2,
      tax_original: 2,
      total: 12,
      total_original: 12,
    });
    expect(totals).toMatchObject({ subtotal: 12, tax: 2, total: 12, total_original: 12, tax_inclusive: true, discount_on_gross: false });
  });

  it('rounds the contained tax per line: 3 × 9.99 at 19 %', () => {
    const tax = taxSettings([{ country: 'DE', state_prov: null, rate: 0.19 }], { tax_inclusive_countries: ['DE'] });
    const totals = computeSale(sale({ currency: 'EUR', tax, taxLocation: { country: 'DE', stateProv: null }, lines: [line({ unitPriceOriginal: 9.99, quantity: 3 })] }));
    // 29.97 × 0.19 / 1.19 = 4.78513…
    expect(totals.items[0]).toMatchObject({ subtotal: 29.97, tax: 4.79, total: 29.97 });
    expect(totals.total).toBe(29.97);
  });

  it('sets discount_on_gross for a listed gross-discount country', () => {
    const totals = computeSale(sale({ ...inclusiveDe({ gross_discount_countries: ['DE'] }), lines: [line({ unitPriceOriginal: 12 })] }));
    expect(totals).toMatchObject({ tax_inclusive: true, discount_on_gross: true });
  });

  it('never sets discount_on_gross in a tax-exclusive sale', () => {
    const totals = computeSale(sale({ tax: taxSettings([], { gross_discount_countries: ['US'] }), lines: [line({ unitPriceOriginal: 12 })] }));
    expect(totals).toMatchObject({ tax_inclusive: false, discount_on_gross: false });
  });
});

describe('tax-exempt customers (commerce §1.4)', () => {
  it('pay no tax in tax-exclusive sales', () => {
    const totals = computeSale(sale({ customerTaxExempt: true, lines: [line({ unitPriceOriginal: 19, quantity: 2 })] }));
    expect(totals.items[0]).toMatchObject({ price: 19, subtotal: 38, tax_rate: 0, tax: 0, tax_original: 0, total: 38, total_original: 38 });
    expect(totals).toMatchObject({ subtotal: 38, tax: 0, tax_original: 0, total: 38, total_original: 38 });
  });

  it('see tax-inclusive prices drop by their tax portion', () => {
    const totals = computeSale(sale({ ...inclusiveDe(), customerTaxExempt: true, lines: [line({ unitPriceOriginal: 12 })] }));
    expect(totals.items[0]).toMatchObject({
      price: 10,
      price_original: 10,
      subtotal: 10,
      subtotal_original: 10,
      discount: 0,
      tax_rate: 0,
      tax: 0,
      tax_original: 0,
      total: 10,
      total_original: 10,
    });
    expect(totals).toMatchObject({ subtotal: 10, tax: 0, total: 10, tax_inclusive: true });
  });

  it('pay what a taxed customer pays without the tax, line by line', () => {
    const lines = [line({ unitPriceOriginal: 10, quantity: 3 })];
    const taxed = computeSale(sale({ ...inclusiveDe(), lines }));
    const exempt = computeSale(sale({ ...inclusiveDe(), customerTaxExempt: true, lines }));
    expect(taxed.items[0]).toMatchObject({ subtotal: 30, tax: 5 });
    expect(exempt.items[0]).toMatchObject({ subtotal: 25, total: 25, price: 8.33, price_original: 8.33 });
  });

  it('keep the discount net of tax too', () => {
    const totals = computeSale(sale({ ...inclusiveDe(), customerTaxExempt: true, lines: [line({ unitPriceOriginal: 12, discount: 1.2 })] }));
    // Gross: 12.00 − 1.20 = 10.80 holding 1.80; originally 12.00 holding 2.00.
    expect(totals.items[0]).toMatchObject({ subtotal: 9, subtotal_original: 10, discount: 1, price: 9, price_original: 10, total: 9, total_original: 10 });
    expect(totals).toMatchObject({ subtotal: 9, subtotal_original: 10, discount: 1, total: 9, total_original: 10 });
  });
});

describe('the shipping line (commerce §1.3, §1.4)', () => {
  const physical = line({ unitPriceOriginal: 50, type: 'physical' });
  const shipping = { methodId: 'ship_std', name: 'Standard', priceOriginal: 10 };

  it('is taxed at the product rate with tax_shipping', () => {
    const totals = computeSale(sale({ lines: [physical], shipping }));
    expect(totals.shipping_item).toMatchObject({
      item_id: 'ship_std',
      name: 'Standard',
      quantity: 1,
      currency: 'USD',
      price: 10,
      price_original: 10,
      subtotal: 10,
      subtotal_original: 10,
      discount: 0,
      tax_rate: 0.1,
      tax: 1,
      tax_original: 1,
      total: 11,
      total_original: 11,
      settlement_currency: 'USD',
      settlement_total: 11,
    });
    expect(totals).toMatchObject({ subtotal: 50, shipping: 10, shipping_original: 10, tax: 6, tax_original: 6, total: 66, total_original: 66 });
  });

  it('is untaxed without tax_shipping', () => {
    const tax = taxSettings([{ country: 'US', state_prov: null, rate: 0.1 }], { tax_shipping: false });
    const totals = computeSale(sale({ lines: [physical], shipping, tax }));
    expect(totals.shipping_item).toMatchObject({ tax_rate: 0, tax: 0, total: 10 });
    expect(totals).toMatchObject({ shipping: 10, tax: 5, total: 65 });
  });

  it('contains its tax in tax-inclusive sales', () => {
    const totals = computeSale(sale({ ...inclusiveDe(), lines: [line({ unitPriceOriginal: 12, type: 'physical' })], shipping: { ...shipping, priceOriginal: 6 } }));
    expect(totals.shipping_item).toMatchObject({ subtotal: 6, tax: 1, total: 6 });
    expect(totals).toMatchObject({ subtotal: 12, shipping: 6, tax: 3, total: 18, total_original: 18 });
  });

  it('drops by its tax portion for exempt customers only when shipping is taxed', () => {
    const input = { ...inclusiveDe(), customerTaxExempt: true, lines: [line({ unitPriceOriginal: 12, type: 'physical' as const })], shipping: { ...shipping, priceOriginal: 6 } };
    expect(computeSale(sale(input))).toMatchObject({ subtotal: 10, shipping: 5, tax: 0, total: 15 });
    const untaxedShipping = { ...input, tax: { ...input.tax, tax_shipping: false } };
    expect(computeSale(sale(untaxedShipping))).toMatchObject({ subtotal: 10, shipping: 6, tax: 0, total: 16 });
  });

  it('is never discounted, and not counted as an item', () => {
    const totals = computeSale(sale({ lines: [{ ...physical, discount: 5 }], shipping }));
    expect(totals.shipping_item).toMatchObject({ discount: 0, subtotal: 10 });
    expect(totals).toMatchObject({ discount: 5, shipping: 10, shipping_original: 10, items_count: 1, items_quantity: 1 });
  });
});

describe('discounted lines (commerce §1.3, §11)', () => {
  it('keeps the undiscounted amounts in the _original twins', () => {
    const totals = computeSale(sale({ lines: [line({ unitPriceOriginal: 19, quantity: 2, discount: 3.8 })] }));
    expect(totals.items[0]).toMatchObject({
      price: 17.1,
      price_original: 19,
      subtotal: 34.2,
      subtotal_original: 38,
      discount: 3.8,
      tax: 3.42,
      tax_original: 3.8,
      total: 37.62,
      total_original: 41.8,
    });
    expect(totals).toMatchObject({ subtotal: 34.2, subtotal_original: 38, discount: 3.8, tax: 3.42, tax_original: 3.8, total: 37.62, total_original: 41.8 });
  });

  it('sums the discounts of several lines, leaving undiscounted lines alone', () => {
    const totals = computeSale(
      sale({
        lines: [line({ productId: 'a', unitPriceOriginal: 10, quantity: 3, discount: 1 }), line({ productId: 'b', unitPriceOriginal: 5 })],
      }),
    );
    // price = subtotal / quantity, rounded: 29 / 3.
    expect(totals.items[0]).toMatchObject({ subtotal: 29, price: 9.67, price_original: 10, discount: 1 });
    expect(totals.items[1]).toMatchObject({ subtotal: 5, price: 5, discount: 0, total: 5.5, total_original: 5.5 });
    expect(totals).toMatchObject({ subtotal: 34, subtotal_original: 35, discount: 1, tax: 3.4, tax_original: 3.5, total: 37.4, total_original: 38.5 });
  });

  it('deducts a discount from the gross price in tax-inclusive sales', () => {
    const totals = computeSale(sale({ ...inclusiveDe(), lines: [line({ unitPriceOriginal: 12, discount: 1.2 })] }));
    expect(totals.items[0]).toMatchObject({ subtotal: 10.8, subtotal_original: 12, discount: 1.2, tax: 1.8, tax_original: 2, total: 10.8, total_original: 12 });
  });

  it('caps a discount at the line subtotal', () => {
    const totals = computeSale(sale({ lines: [line({ unitPriceOriginal: 19, quantity: 2, discount: 50 })] }));
    expect(totals.items[0]).toMatchObject({ discount: 38, subtotal: 0, price: 0, tax: 0, total: 0, total_original: 41.8 });
  });

  it('rejects negative discounts, prices and quantities', () => {
    expect(() => computeSale(sale({ lines: [line({ unitPriceOriginal: 19, discount: -1 })] }))).toThrow(RangeError);
    expect(() => computeSale(sale({ lines: [line({ unitPriceOriginal: -1 })] }))).toThrow(RangeError);
    expect(() => computeSale(sale({ lines: [line({ unitPriceOriginal: 1, quantity: 1.5 })] }))).toThrow(RangeError);
    expect(() => computeSale(sale({ lines: [line({ unitPriceOriginal: Number.NaN })] }))).toThrow(RangeError);
  });
});

describe('item counts (commerce §1.3)', () => {
  it('counts product lines and sums their quantities', () => {
    const totals = computeSale(
      sale({
        lines: [
          line({ productId: 'a', unitPriceOriginal: 1, quantity: 2 }),
          line({ productId: 'b', unitPriceOriginal: 1, quantity: 3, type: 'physical' }),
          line({ productId: 'c', unitPriceOriginal: 1, quantity: 1, type: 'service' }),
        ],
        shipping: { methodId: 'ship', name: 'Ship', priceOriginal: 4 },
      }),
    );
    expect(totals).toMatchObject({ items_count: 3, items_quantity: 6 });
    expect(totals.items.map((item) => item.item_id)).toEqual(['a', 'b', 'c']);
  });

  it('prices a zero-quantity line at nothing, keeping its unit price', () => {
    const totals = computeSale(sale({ lines: [line({ unitPriceOriginal: 19, quantity: 0 })] }));
    expect(totals.items[0]).toMatchObject({ price: 19, price_original: 19, subtotal: 0, total: 0 });
    expect(totals).toMatchObject({ items_count: 1, items_quantity: 0, total: 0 });
  });
});
