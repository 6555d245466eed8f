/** Product changes record their events in the same transaction (commerce.md §14), against the emulator. */
import { describe, expect, it } from 'vitest';
import { createProduct, productFields, saveProduct } from '../../../shared/modules/catalog/products';
import { queryItems } from '../../../shared/store/query';
import { Harness, TABLE, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { paymentSettings } from '../pricing/fixtures';
import { systemClock } from '../../../shared/platform/adapters/system-clock';

const harness = new Harness();
const scope = { accountId: 'ACCT', mode: 'live' as const };

useEmulatedTable(harness);

describe('product events', () => {
  it('records product:created, product:modified and product:deleted with each change', async () => {
    const payment = paymentSettings();
    const created = await createProduct(scope, { product_id: 'p1', name: 'One', type: 'digital', prices: [{ currency: 'USD', price: 1 }] }, payment, systemClock);
    const renamed = await saveProduct(created, productFields({ name: 'Uno' }, created, payment, 'live'), false, systemClock);
    await saveProduct(renamed, renamed, true, systemClock);
    const events = await queryItems({
      TableName: TABLE,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': 'ACCT#live#occurrences' },
    });
    expect(events.map((event) => [event.type, event.data_id])).toEqual([
      ['product:created', 'p1'],
      ['product:modified', 'p1'],
      ['product:deleted', 'p1'],
    ]);
  });

  it('records nothing when the create fails (a taken id)', async () => {
    const payment = paymentSettings();
    await createProduct(scope, { product_id: 'p2', name: 'Two', type: 'digital', prices: [{ currency: 'USD', price: 1 }] }, payment, systemClock);
    await expect(createProduct(scope, { product_id: 'p2', name: 'Again', type: 'digital', prices: [{ currency: 'USD', price: 1 }] }, payment, systemClock)).rejects.toMatchObject({ code: 'in_use' });
    const events = await queryItems({ TableName: TABLE, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': 'ACCT#live#occurrences' } });
    expect(events.filter((event) => event.data_id === 'p2')).toHaveLength(1);
  });
});
