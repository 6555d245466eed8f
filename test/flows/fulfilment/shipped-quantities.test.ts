/**
 * The order side of shipments against the real local DynamoDB emulator (commerce.md §5.5, §8):
 * the shipped-quantities entry holds only over the order as read and never ships past an item's
 * quantity, and a license outcome computed before a shipment committed is refused and computed
 * again, so the order's `fulfilled` never goes stale whichever of the two writes first.
 */
import { describe, expect, it } from 'vitest';
import { createOrderEntry, findOrder, licenseItemEntry, shippedQuantitiesEntry, type OrderItemRecord, type OrderRecord } from '../../../shared/modules/orders';
import { TransactionRejectedError, VersionConflictError } from '../../../shared/store/errors';
import { transact } from '../../../shared/store/transact';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';

useEmulatedTable(new Harness());

const scope = { accountId: 'ACCT1', mode: 'test' as const };

function item(item_id: string, type: OrderItemRecord['type'], quantity: number, pending = false): OrderItemRecord {
  return { item_id, product_id: item_id, name: item_id, type, quantity, fulfilled: type === 'service' || (type === 'digital' && !pending), license: null, license_pending: pending, meta: null } as unknown as OrderItemRecord;
}

async function newOrder(orderId: string, items: OrderItemRecord[]): Promise<OrderRecord> {
  const licensed = items.filter((line) => line.license_pending).length;
  const order = {
    order_id: orderId, account_id: scope.accountId, mode: scope.mode, payment_status: 'completed', fulfilled: items.every((line) => line.fulfilled), items,
    customer_id: 'C1', payment_id: 'P1', confirmation_email: 'held', created_ms: 1_000, modified_ms: 1_000,
    ...(licensed ? { licenses_outstanding: licensed, licenses_failed: 0 } : {}),
  } as unknown as OrderRecord;
  await transact([createOrderEntry(order)]);
  return (await findOrder(scope, orderId))!;
}

/** The license of `itemId` completing over `order` as read. */
const licenseDone = (order: OrderRecord, itemId: string) =>
  licenseItemEntry({ order, itemId, license: 'L1', licensePending: false, outstanding: 0, failed: 0, confirmationEmail: 'pending', modifiedMs: 5_000 });

describe('shipped quantities on the order', () => {
  it('are written over the order as read, and a stale write is a lost race', async () => {
    const read = await newOrder('O1', [item('mug', 'physical', 2), item('setup', 'service', 1)]);
    await transact([shippedQuantitiesEntry(read, new Map([['mug', 1]]), 2_000, 'ship')]);
    let order = (await findOrder(scope, 'O1'))!;
    expect(order.items[0]).toMatchObject({ shipped: 1, fulfilled: false });
    expect(order).toMatchObject({ fulfilled: false, shipment_writes: 1 });
    // The same decision made over the old read (a concurrent shipment of the last unit) is refused.
    await expect(transact([shippedQuantitiesEntry(read, new Map([['mug', 1]]), 2_000, 'ship')])).rejects.toBeInstanceOf(VersionConflictError);
    await transact([shippedQuantitiesEntry(order, new Map([['mug', 2]]), 3_000, 'ship')]);
    order = (await findOrder(scope, 'O1'))!;
    expect(order.items[0]).toMatchObject({ shipped: 2, fulfilled: true });
    expect(order).toMatchObject({ fulfilled: true, shipment_writes: 2 });
    expect(order.modified_ms).toBeGreaterThan(read.modified_ms);
    // Taking units back turns fulfilled back.
    await transact([shippedQuantitiesEntry(order, new Map([['mug', 0]]), 4_000, 'unship')]);
    expect((await findOrder(scope, 'O1'))!).toMatchObject({ fulfilled: false, items: [{ shipped: 0, fulfilled: false }, { fulfilled: true }] });
  });

  it('never go past the quantity ordered, even when asked to over a fresh read', async () => {
    const read = await newOrder('O2', [item('mug', 'physical', 1)]);
    await expect(transact([shippedQuantitiesEntry(read, new Map([['mug', 2]]), 2_000, 'ship')])).rejects.toBeInstanceOf(VersionConflictError);
    expect((await findOrder(scope, 'O2'))!.items[0]!.shipped).toBeUndefined();
  });

  it('refuse a new shipment of a refunded order, but still take one back', async () => {
    const read = await newOrder('O3', [item('mug', 'physical', 1)]);
    await transact([shippedQuantitiesEntry(read, new Map([['mug', 1]]), 2_000, 'ship')]);
    const shipped = (await findOrder(scope, 'O3'))!;
    const refunded = { ...shipped, payment_status: 'refunded' as const };
    await transact([createOrderEntry({ ...refunded, order_id: 'O3R' })]);
    const other = (await findOrder(scope, 'O3R'))!;
    await transact([shippedQuantitiesEntry(other, new Map([['mug', 0]]), 3_000, 'unship')]);
    const back = (await findOrder(scope, 'O3R'))!;
    await expect(transact([shippedQuantitiesEntry(back, new Map([['mug', 1]]), 4_000, 'ship')])).rejects.toBeInstanceOf(VersionConflictError);
  });

  it("keep fulfilled exact when a license completes around a shipment: the stale license write is refused and redone", async () => {
    const read = await newOrder('O4', [item('mug', 'physical', 1), item('fonts', 'digital', 1, true)]);
    // The license outcome was computed over `read`; the shipment commits first.
    await transact([shippedQuantitiesEntry(read, new Map([['mug', 1]]), 2_000, 'ship')]);
    expect((await findOrder(scope, 'O4'))!.fulfilled).toBe(false);
    const stale = await transact([licenseDone(read, 'fonts')]).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(TransactionRejectedError);
    expect((stale as TransactionRejectedError).refused('order.license-item')).toBe(true);
    // Read again (as record-outcome.ts does after that refusal): now every item is fulfilled.
    await transact([licenseDone((await findOrder(scope, 'O4'))!, 'fonts')]);
    expect((await findOrder(scope, 'O4'))!).toMatchObject({ fulfilled: true, items: [{ fulfilled: true }, { fulfilled: true }] });
  });

  it('keep fulfilled exact the other way round: a shipment decided before a license completed is read again', async () => {
    const read = await newOrder('O5', [item('mug', 'physical', 1), item('fonts', 'digital', 1, true)]);
    await transact([licenseDone(read, 'fonts')]);
    await expect(transact([shippedQuantitiesEntry(read, new Map([['mug', 1]]), 3_000, 'ship')])).rejects.toBeInstanceOf(VersionConflictError);
    await transact([shippedQuantitiesEntry((await findOrder(scope, 'O5'))!, new Map([['mug', 1]]), 3_000, 'ship')]);
    expect((await findOrder(scope, 'O5'))!.fulfilled).toBe(true);
  });
});
