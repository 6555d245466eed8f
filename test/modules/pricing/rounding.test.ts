import { describe, expect, it } from 'vitest';
import { computeSale } from '../../../shared/modules/pricing';
import { line, paymentSettings, sale, taxSettings } from './fixtures';

const settledIn = (currency: string) => paymentSettings({ settlement_currency: currency });

describe('currency minor units (commerce §1.2)', () => {
  it('rounds JPY to whole yen, half away from zero', () => {
    const tax = taxSettings([{ country: 'JP', state_prov: null, rate: 0.1 }]);
    const totals = computeSale(
      sale({
        currency: 'JPY',
        payment: settledIn('JPY'),
        tax,
        taxLocation: { country: 'JP', stateProv: null },
        lines: [line({ productId: 'a', unitPriceOriginal: 25 }), line({ productId: 'b', unitPriceOriginal: 333, quantity: 3, discount: 100 })],
      }),
    );
    // 25 × 0.1 = 2.5 → 3.
    expect(totals.items[0]).toMatchObject({ subtotal: 25, tax: 3, total: 28 });
    // 999 − 100 = 899; price 899 / 3 = 299.67 → 300; tax 89.9 → 90; original tax 99.9 → 100.
    expect(totals.items[1]).toMatchObject({ subtotal_original: 999, subtotal: 899, price: 300, price_original: 333, tax: 90, tax_original: 100, total: 989, total_original: 1099 });
    expect(totals).toMatchObject({ subtotal: 924, tax: 93, total: 1017, settlement_total: 1017 });
  });

  it('rounds BHD to three decimals', () => {
    const tax = taxSettings([{ country: 'BH', state_prov: null, rate: 0.05 }]);
    const totals = computeSale(
      sale({
        currency: 'BHD',
        payment: settledIn('BHD'),
        tax,
        taxLocation: { country: 'BH', stateProv: null },
        lines: [line({ productId: 'a', unitPriceOriginal: 1.234 }), line({ productId: 'b', unitPriceOriginal: 0.333, quantity: 3 })],
      }),
    );
    // 1.234 × 0.05 = 0.0617 → 0.062; 0.999 × 0.05 = 0.04995 → 0.050.
    expect(totals.items[0]).toMatchObject({ subtotal: 1.234, tax: 0.062, total: 1.296 });
    expect(totals.items[1]).toMatchObject({ subtotal: 0.999, price: 0.333, tax: 0.05, total: 1.049 });
    expect(totals).toMatchObject({ subtotal: 2.233, tax: 0.112, total: 2.345 });
  });

  it('accepts a lowercase sale currency and answers in uppercase', () => {
    expect(computeSale(sale({ currency: 'usd', lines: [line({ unitPriceOriginal: 1 })] }))).toMatchObject({ currency: 'USD', total: 1.1 });
  });
});

describe('lines first, totals as sums (commerce §1.2)', () => {
  it('sums rounded line taxes instead of rounding the sale tax', () => {
    // Each 0.05 line holds 0.005 tax → 0.01; rounding the sale's 0.01 tax would give 0.01, not 0.02.
    const totals = computeSale(sale({ lines: [line({ productId: 'a', unitPriceOriginal: 0.05 }), line({ productId: 'b', unitPriceOriginal: 0.05 })] }));
    expect(totals.items.map((item) => item.tax)).toEqual([0.01, 0.01]);
    expect(totals).toMatchObject({ subtotal: 0.1, tax: 0.02, total: 0.12 });
  });

  it('rounds half away from zero on the decimal value, not the binary one', () => {
    // 1.15 × 0.1 is 0.11499999999999999 in binary; the decimal product 0.115 rounds to 0.12.
    const totals = computeSale(sale({ lines: [line({ unitPriceOriginal: 1.15 })] }));
    expect(totals.items[0]).toMatchObject({ tax: 0.12, total: 1.27 });
  });
});

describe('no binary drift', () => {
  it('prices 3 × 0.10 at exactly 0.3', () => {
    const totals = computeSale(sale({ tax: taxSettings(), lines: [line({ unitPriceOriginal: 0.1, quantity: 3 })] }));
    expect(totals.items[0]?.subtotal_original).toBe(0.3);
    expect(totals.items[0]?.subtotal).toBe(0.3);
    expect(totals.items[0]?.total).toBe(0.3);
    expect(totals.total).toBe(0.3);
  });

  it('sums 0.10 + 0.20 to exactly 0.3', () => {
    const totals = computeSale(sale({ tax: taxSettings(), lines: [line({ productId: 'a', unitPriceOriginal: 0.1 }), line({ productId: 'b', unitPriceOriginal: 0.2 })] }));
    expect(totals.subtotal).toBe(0.3);
    expect(totals.total).toBe(0.3);
  });

  it('keeps every amount of a busy sale on the currency grid', () => {
    const totals = computeSale(
      sale({
        lines: [
          line({ productId: 'a', unitPriceOriginal: 0.1, quantity: 7, discount: 0.07 }),
          line({ productId: 'b', unitPriceOriginal: 19.99, quantity: 3, discount: 5.99 }),
          line({ productId: 'c', unitPriceOriginal: 0.7, quantity: 9 }),
        ],
        shipping: { methodId: 'ship', name: 'Ship', priceOriginal: 4.35 },
      }),
    );
    const amounts = [
      ...totals.items.flatMap((item) => [item.price, item.subtotal, item.subtotal_original, item.discount, item.tax, item.tax_original, item.total, item.total_original]),
      totals.subtotal,
      totals.subtotal_original,
      totals.discount,
      totals.tax,
      totals.tax_original,
      totals.total,
      totals.total_original,
      totals.shipping,
    ];
    for (const amount of amounts) expect(Number(amount.toFixed(2))).toBe(amount);
    // Line taxes 0.06 (0.063) + 5.40 (5.398) + 0.63, plus 0.44 (0.435) on shipping.
    expect(totals.items.map((item) => item.tax)).toEqual([0.06, 5.4, 0.63]);
    expect(totals).toMatchObject({ subtotal: 60.91, subtotal_original: 66.97, discount: 6.06, tax: 6.53, tax_original: 7.14, total: 71.79, total_original: 78.46 });
  });
});
