/**
 * The refund amount rules (commerce.md §7, §1.2): each part rounded half away from zero in
 * minor units; the final refund takes exactly what remains of every part (the remainder of
 * rounding); items refund their line's total over its quantity; amounts split in proportion
 * to the sale; and the refusals (422 once nothing is refundable, 400 above what remains).
 */
import { describe, expect, it } from 'vitest';
import { computeRefund, NO_PARTS, releasedLedger, share, type Refundable, type RefundAsk, type RefundParts } from '../../../shared/modules/refunds/refund-amounts';

const sale = (subtotal: number, shipping: number, tax: number, total = subtotal + shipping + tax): RefundParts => ({
  subtotal, shipping, tax, total, settlement_subtotal: subtotal, settlement_shipping: shipping, settlement_tax: tax, settlement_total: total,
});

/** An order of 3 × 3.33 (tax 1.00) with 5.00 shipping taxed 0.50: 16.49 in all. */
function order(): Refundable {
  return {
    currency: 'USD', settlementCurrency: 'USD', taxInclusive: false,
    sale: sale(9.99, 5, 1.5, 16.49),
    ledger: { seq: 0, reserved: { ...NO_PARTS }, lines: {} },
    lines: [{ item_id: 'odd', product_id: 'odd', name: 'Odd', quantity: 3, subtotal: 9.99, tax: 1, total: 10.99 }],
    shippingLine: { subtotal: 5, tax: 0.5 },
  };
}

/** Applies `asks` one after the other, as committed refunds would. */
function run(refundable: Refundable, asks: RefundAsk[]) {
  const out = [];
  let current = refundable;
  for (const ask of asks) {
    const computed = computeRefund(current, ask);
    out.push(computed);
    current = { ...current, ledger: computed.ledger };
  }
  return { out, current };
}

const cents = (values: number[]) => Math.round(values.reduce((sum, value) => sum + value * 100, 0));

describe('share', () => {
  it('rounds half away from zero, exactly, in minor units', () => {
    expect(share(1, 1099, 3)).toBe(366); // 366.33
    expect(share(1, 1, 2)).toBe(1); // 0.5 → 1
    expect(share(500, 380, 4180)).toBe(45); // 45.45
    expect(share(10 ** 14, 10 ** 14, 10 ** 14)).toBe(10 ** 14);
    expect(share(5, 3, 0)).toBe(0);
  });
});

describe('refunds by items', () => {
  it('refunds each unit as the line total over its quantity, the last unit taking the remainder', () => {
    const { out } = run(order(), [1, 2, 3].map(() => ({ kind: 'items', items: [{ item_id: 'odd', quantity: 1 }], shipping: false }) as RefundAsk));
    expect(out.map((refund) => refund.items[0]!.total)).toEqual([3.66, 3.66, 3.67]);
    expect(out.map((refund) => refund.items[0]!.tax)).toEqual([0.33, 0.33, 0.34]);
    expect(cents(out.map((refund) => refund.parts.total))).toBe(1099);
    expect(out.every((refund) => !refund.final)).toBe(true); // shipping is still refundable
  });

  it('adds the remaining shipping and its tax with shipping: true, and is final when nothing is left', () => {
    const { out } = run(order(), [{ kind: 'items', items: [{ item_id: 'odd', quantity: 3 }], shipping: true }]);
    expect(out[0]).toMatchObject({ final: true, parts: { subtotal: 9.99, shipping: 5, tax: 1.5, total: 16.49 }, shippingTaken: { subtotal: 5, tax: 0.5 } });
    expect(() => computeRefund({ ...order(), ledger: out[0]!.ledger }, { kind: 'full' })).toThrow(expect.objectContaining({ status: 422, code: 'invalid_state' }));
  });

  it('refuses an unknown item, a quantity above what is left, and items on a payment without an order', () => {
    expect(() => computeRefund(order(), { kind: 'items', items: [{ item_id: 'x', quantity: 1 }], shipping: false })).toThrow(expect.objectContaining({ status: 400, meta: expect.objectContaining({ property: 'items[0].item_id' }) }));
    const { current } = run(order(), [{ kind: 'items', items: [{ item_id: 'odd', quantity: 2 }], shipping: false }]);
    expect(() => computeRefund(current, { kind: 'items', items: [{ item_id: 'odd', quantity: 2 }], shipping: false })).toThrow(expect.objectContaining({ status: 400, meta: expect.objectContaining({ property: 'items[0].quantity', reason: 'out_of_range' }) }));
    const direct: Refundable = { currency: 'USD', settlementCurrency: 'USD', taxInclusive: false, sale: sale(10, 0, 0), ledger: { seq: 0, reserved: { ...NO_PARTS } } };
    expect(() => computeRefund(direct, { kind: 'items', items: [], shipping: true })).toThrow(expect.objectContaining({ status: 400, meta: expect.objectContaining({ property: 'items' }) }));
  });

  it('counts a tax-inclusive line total once (tax is inside it)', () => {
    const inclusive: Refundable = { ...order(), taxInclusive: true, sale: sale(12, 0, 2, 12), lines: [{ item_id: 'a', product_id: 'a', name: 'A', quantity: 2, subtotal: 12, tax: 2, total: 12 }], shippingLine: null };
    const first = computeRefund(inclusive, { kind: 'items', items: [{ item_id: 'a', quantity: 1 }], shipping: false });
    expect(first.parts).toMatchObject({ subtotal: 6, tax: 1, total: 6 });
  });
});

describe('refunds by amount and full', () => {
  it('splits an amount over subtotal, shipping and tax in proportion to the sale', () => {
    const refund = computeRefund(order(), { kind: 'amount', total: 5 });
    // shipping 5 × 5/16.49 = 1.516 → 1.52; tax 5 × 1.5/16.49 = 0.4548 → 0.45; subtotal the rest.
    expect(refund.parts).toMatchObject({ shipping: 1.52, tax: 0.45, subtotal: 3.03, total: 5 });
    expect(refund.final).toBe(false);
  });

  it('gives the final refund exactly what remains of every part, so the parts add up to the sale', () => {
    const { out, current } = run(order(), [{ kind: 'amount', total: 5 }, { kind: 'amount', total: 5 }, { kind: 'full' }]);
    expect(out[2]!.final).toBe(true);
    expect(out[2]!.parts.total).toBe(6.49);
    for (const part of ['subtotal', 'shipping', 'tax', 'total', 'settlement_total'] as const) {
      expect(cents(out.map((refund) => refund.parts[part])), part).toBe(Math.round(order().sale[part] * 100));
    }
    expect(current.ledger.reserved).toEqual(order().sale);
    expect(current.ledger.seq).toBe(3);
  });

  it('treats an amount equal to what remains as the final refund', () => {
    const { out } = run(order(), [{ kind: 'amount', total: 10 }, { kind: 'amount', total: 6.49 }]);
    expect(out[1]!.final).toBe(true);
  });

  it('refuses 0, too many decimals and more than remains (400), and anything once nothing remains (422)', () => {
    expect(() => computeRefund(order(), { kind: 'amount', total: 0 })).toThrow(expect.objectContaining({ status: 400, meta: expect.objectContaining({ reason: 'out_of_range' }) }));
    expect(() => computeRefund(order(), { kind: 'amount', total: 1.005 })).toThrow(expect.objectContaining({ status: 400, meta: expect.objectContaining({ reason: 'precision' }) }));
    expect(() => computeRefund(order(), { kind: 'amount', total: 16.5 })).toThrow(expect.objectContaining({ status: 400, meta: expect.objectContaining({ property: 'total', reason: 'out_of_range' }) }));
    const { current } = run(order(), [{ kind: 'full' }]);
    for (const ask of [{ kind: 'full' }, { kind: 'amount', total: 1 }] as RefundAsk[]) expect(() => computeRefund(current, ask)).toThrow(expect.objectContaining({ status: 422 }));
  });

  it('uses the currency minor units: JPY has none', () => {
    const yen: Refundable = { currency: 'JPY', settlementCurrency: 'USD', taxInclusive: false, sale: { ...sale(1000, 0, 100, 1100), settlement_subtotal: 6.67, settlement_tax: 0.67, settlement_total: 7.34 }, ledger: { seq: 0, reserved: { ...NO_PARTS } } };
    const { out } = run(yen, [{ kind: 'amount', total: 333 }, { kind: 'amount', total: 333 }, { kind: 'full' }]);
    expect(out.map((refund) => refund.parts.tax)).toEqual([30, 30, 40]);
    expect(cents(out.map((refund) => refund.parts.settlement_total))).toBe(734);
    expect(() => computeRefund(yen, { kind: 'amount', total: 1.5 })).toThrow(expect.objectContaining({ meta: expect.objectContaining({ reason: 'precision' }) }));
  });
});

describe('a refund that did not happen', () => {
  it('gives back its money, units and shipping', () => {
    const first = computeRefund(order(), { kind: 'items', items: [{ item_id: 'odd', quantity: 1 }], shipping: true });
    const back = releasedLedger(first.ledger, { parts: first.parts, items: first.items, shippingTaken: first.shippingTaken }, 'USD', 'USD');
    expect(back.reserved).toEqual(NO_PARTS);
    expect(back.lines?.odd).toEqual({ quantity: 0, subtotal: 0, tax: 0, total: 0 });
    expect(back.shipping).toEqual({ subtotal: 0, tax: 0 });
    expect(back.seq).toBe(2);
  });
});
