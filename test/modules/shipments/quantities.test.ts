/**
 * The quantity rules of shipments (commerce.md §5.5, §8): the default lines (every unshipped
 * physical unit), what is refused with 400 and what with 422, and the shipped quantities a
 * shipment and its deletion leave (never more than ordered, never below none).
 */
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../../shared/core/errors';
import type { OrderItemRecord, OrderRecord } from '../../../shared/modules/orders';
import { shipmentLines, shippedAfter, unshippedOf } from '../../../shared/modules/shipments';

function item(item_id: string, type: OrderItemRecord['type'], quantity: number, shipped?: number): OrderItemRecord {
  return { item_id, product_id: item_id, name: `Product ${item_id}`, type, quantity, fulfilled: type === 'service' || (type === 'physical' && shipped === quantity), ...(shipped === undefined ? {} : { shipped }) } as OrderItemRecord;
}

function order(items: OrderItemRecord[], payment_status: OrderRecord['payment_status'] = 'completed'): OrderRecord {
  return { order_id: 'O1', payment_status, items } as OrderRecord;
}

/** The API error `run` throws. */
function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}

const mixed = order([item('mug', 'physical', 3, 1), item('ebook', 'digital', 1), item('setup', 'service', 1), item('poster', 'physical', 2)]);

describe('shipment lines', () => {
  it('default to every unshipped physical unit, in the order of the items', () => {
    expect(shipmentLines(mixed)).toEqual([
      { item_id: 'mug', product_id: 'mug', name: 'Product mug', quantity: 2 },
      { item_id: 'poster', product_id: 'poster', name: 'Product poster', quantity: 2 },
    ]);
  });

  it('carry the requested quantities, up to what is left of each item', () => {
    expect(shipmentLines(mixed, [{ item_id: 'poster', quantity: 2 }, { item_id: 'mug', quantity: 2 }]).map((line) => [line.item_id, line.quantity])).toEqual([['poster', 2], ['mug', 2]]);
  });

  it('refuse more than is left of an item with 400 on its quantity', () => {
    const error = refusal(() => shipmentLines(mixed, [{ item_id: 'poster', quantity: 1 }, { item_id: 'mug', quantity: 3 }]));
    expect(error).toMatchObject({ status: 400, code: 'invalid_input', meta: { property: 'items[1].quantity', reason: 'out_of_range' } });
  });

  it.each([
    ['a digital item', [{ item_id: 'ebook', quantity: 1 }], 'items[0].item_id', 'not_allowed'],
    ['a service', [{ item_id: 'mug', quantity: 1 }, { item_id: 'setup', quantity: 1 }], 'items[1].item_id', 'not_allowed'],
    ['an item not in the order', [{ item_id: 'nope', quantity: 1 }], 'items[0].item_id', 'not_found'],
    ['an item named twice', [{ item_id: 'mug', quantity: 1 }, { item_id: 'mug', quantity: 1 }], 'items[1].item_id', 'conflict'],
  ])('refuse %s with 400 on its item_id', (_what, requested, property, reason) => {
    expect(refusal(() => shipmentLines(mixed, requested))).toMatchObject({ status: 400, code: 'invalid_input', meta: { property, reason } });
  });

  it('refuse with 422 invalid_state when nothing is left to ship: all shipped, or nothing physical', () => {
    const shipped = order([item('mug', 'physical', 3, 3), item('ebook', 'digital', 1)]);
    expect(refusal(() => shipmentLines(shipped))).toMatchObject({ status: 422, code: 'invalid_state' });
    expect(refusal(() => shipmentLines(shipped, [{ item_id: 'mug', quantity: 1 }]))).toMatchObject({ status: 422, code: 'invalid_state' });
    expect(refusal(() => shipmentLines(order([item('ebook', 'digital', 2)])))).toMatchObject({ status: 422, code: 'invalid_state' });
    // Naming a digital item stays a 400 about that item, even when nothing physical is left.
    expect(refusal(() => shipmentLines(shipped, [{ item_id: 'ebook', quantity: 1 }]))).toMatchObject({ status: 400, meta: { property: 'items[0].item_id' } });
  });

  it('refuse a fully refunded order with 422 invalid_state, whatever is left', () => {
    expect(refusal(() => shipmentLines(order([item('mug', 'physical', 3)], 'refunded')))).toMatchObject({ status: 422, code: 'invalid_state' });
  });
});

describe('shipped quantities', () => {
  it('count only physical units as shippable', () => {
    expect(mixed.items.map(unshippedOf)).toEqual([2, 0, 0, 2]);
  });

  it('grow by a shipment and shrink back by its deletion', () => {
    const lines = shipmentLines(mixed, [{ item_id: 'mug', quantity: 2 }, { item_id: 'poster', quantity: 1 }]);
    expect([...shippedAfter(mixed, lines, 1)]).toEqual([['mug', 3], ['poster', 1]]);
    const shipped = order([item('mug', 'physical', 3, 3), item('poster', 'physical', 2, 1)]);
    expect([...shippedAfter(shipped, lines, -1)]).toEqual([['mug', 1], ['poster', 0]]);
  });

  it('never go past the quantity ordered or below none (a stale read is a bug, not a client error)', () => {
    const line = { item_id: 'mug', product_id: 'mug', name: 'Mug', quantity: 3 };
    expect(() => shippedAfter(mixed, [line], 1)).toThrow(/4 of 3/);
    expect(() => shippedAfter(mixed, [line], -1)).toThrow(/-2 of 3/);
  });
});
