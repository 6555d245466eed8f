import { describe, expect, it } from 'vitest';
import { computeSale } from '../../../shared/modules/pricing';
import { line, paymentSettings, sale, taxSettings } from './fixtures';

describe('settlement twins (commerce §1.1)', () => {
  it('equal the amounts when the sale is in the settlement currency', () => {
    const totals = computeSale(sale({ lines: [line({ unitPriceOriginal: 19, quantity: 2 })] }));
    expect(totals.settlement_currency).toBe('USD');
    expect(totals.items[0]).toMatchObject({ settlement_currency: 'USD', settlement_price: 19, settlement_subtotal: 38, settlement_tax: 3.8, settlement_total: 41.8 });
    expect(totals).toMatchObject({ settlement_subtotal: 38, settlement_tax: 3.8, settlement_total: 41.8, settlement_total_original: 41.8 });
  });

  it('convert and round each value on its own', () => {
    // USD sale settled in EUR at 0.92: 1.07 → 0.9844, tax 0.11 → 0.1012, total 1.18 → 1.0856.
    const totals = computeSale(sale({ payment: paymentSettings({ settlement_currency: 'EUR' }), lines: [line({ unitPriceOriginal: 1.07 })] }));
    expect(totals.items[0]).toMatchObject({
      currency: 'USD',
      subtotal: 1.07,
      tax: 0.11,
      total: 1.18,
      settlement_currency: 'EUR',
      settlement_price: 0.98,
      settlement_subtotal: 0.98,
      settlement_subtotal_original: 0.98,
      settlement_discount: 0,
      settlement_tax: 0.1,
      settlement_tax_original: 0.1,
      settlement_total: 1.09,
      settlement_total_original: 1.09,
    });
    // The parts (0.98 + 0.10) differ from the settled total by one cent, as §1.1 allows.
    expect(totals).toMatchObject({ settlement_currency: 'EUR', settlement_subtotal: 0.98, settlement_tax: 0.1, settlement_total: 1.09 });
  });

  it('convert the sale totals themselves, not the sum of settled lines', () => {
    const totals = computeSale(
      sale({
        payment: paymentSettings({ settlement_currency: 'EUR' }),
        tax: taxSettings(),
        lines: [line({ productId: 'a', unitPriceOriginal: 1.02 }), line({ productId: 'b', unitPriceOriginal: 5.55 })],
      }),
    );
    expect(totals.items.map((item) => item.settlement_subtotal)).toEqual([0.94, 5.11]);
    // 6.57 × 0.92 = 6.0444.
    expect(totals).toMatchObject({ subtotal: 6.57, settlement_subtotal: 6.04, settlement_total: 6.04 });
  });

  it('settle discounts, shipping and the _original twins', () => {
    const totals = computeSale(
      sale({
        currency: 'EUR',
        payment: paymentSettings({ settlement_currency: 'JPY' }),
        lines: [line({ unitPriceOriginal: 19.99, quantity: 2, discount: 4 })],
        shipping: { methodId: 'ship', name: 'Ship', priceOriginal: 4.99 },
      }),
    );
    // EUR → JPY is × 150 / 0.92. Subtotal 35.98, original 39.98, tax 3.60 / 4.00, shipping 4.99 + 0.50 tax.
    expect(totals).toMatchObject({
      subtotal: 35.98,
      subtotal_original: 39.98,
      discount: 4,
      shipping: 4.99,
      tax: 4.1,
      tax_original: 4.5,
      total: 45.07,
      total_original: 49.47,
      settlement_currency: 'JPY',
      settlement_subtotal: 5866, // 5866.30…
      settlement_subtotal_original: 6518, // 6518.47…
      settlement_discount: 652, // 652.17…
      settlement_shipping: 814, // 813.58…
      settlement_shipping_original: 814,
      settlement_tax: 668, // 668.47…
      settlement_tax_original: 734, // 733.69…
      settlement_total: 7348, // 7348.36…
      settlement_total_original: 8066, // 8065.76…
    });
    expect(totals.items[0]).toMatchObject({ settlement_price: 2933, settlement_discount: 652 }); // 17.99 → 2933.15…
    expect(totals.shipping_item).toMatchObject({ settlement_currency: 'JPY', settlement_price: 814, settlement_tax: 82, settlement_total: 895 }); // 0.50 → 81.52…, 5.49 → 895.10…
  });

  it('settle a JPY sale in a two-decimal currency', () => {
    const totals = computeSale(
      sale({
        currency: 'JPY',
        tax: taxSettings(),
        lines: [line({ unitPriceOriginal: 1999 })],
      }),
    );
    // 1999 / 150 = 13.3266…
    expect(totals).toMatchObject({ total: 1999, settlement_currency: 'USD', settlement_total: 13.33 });
  });
});
