/**
 * The per-request DynamoDB meter against the local emulator, through the shared client:
 * parallel calls share a round, awaited calls take one each, a failed call still settles, and
 * nothing is counted outside `measureCost`.
 */
import { describe, expect, it } from 'vitest';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../../shared/store/client';
import { currentCost, formatCost, measureCost, parseCost } from '../../shared/store/request-cost';
import { Harness, useEmulatedTable } from '../local/fixtures/dynamo-harness';

const harness = new Harness();
useEmulatedTable(harness);

const get = (sk: string) => db().send(new GetCommand({ TableName: table(), Key: { pk: 'cost', sk } }));
const put = (sk: string) => db().send(new PutCommand({ TableName: table(), Item: { pk: 'cost', sk } }));
const query = () => db().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'cost' } }));
const putNew = (sk: string) => db().send(new PutCommand({ TableName: table(), Item: { pk: 'cost', sk }, ConditionExpression: 'attribute_not_exists(pk)' }));

describe('measureCost', () => {
  it('counts calls issued together as one round', async () => {
    const { value, cost } = await measureCost(async () => {
      await Promise.all([get('a'), get('b'), query()]);
      return 'done';
    });
    expect(value).toBe('done');
    expect(cost).toMatchObject({ calls: 3, rounds: 1, inFlight: 0, byOperation: { GetItem: 2, Query: 1 } });
    expect(cost.roundOperations.map((round) => [...round].sort())).toEqual([['GetItem', 'GetItem', 'Query']]);
  });

  it('counts each awaited call as its own round', async () => {
    const { cost } = await measureCost(async () => {
      await put('a');
      await get('a');
      await Promise.all([get('a'), put('b')]);
      await query();
    });
    expect(cost).toMatchObject({ calls: 5, rounds: 4, inFlight: 0, byOperation: { PutItem: 2, GetItem: 2, Query: 1 } });
    expect(cost.roundOperations.map((round) => [...round].sort())).toEqual([['PutItem'], ['GetItem'], ['GetItem', 'PutItem'], ['Query']]);
  });

  it('settles a call that fails, so the next one starts a new round', async () => {
    await put('taken');
    const { cost } = await measureCost(async () => {
      await expect(putNew('taken')).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
      expect(currentCost()).toMatchObject({ calls: 1, rounds: 1, inFlight: 0 });
      await get('taken');
    });
    expect(cost).toMatchObject({ calls: 2, rounds: 2, inFlight: 0, byOperation: { PutItem: 1, GetItem: 1 } });
  });

  it('counts nothing outside a context, and keeps concurrent contexts apart', async () => {
    expect(currentCost()).toBeUndefined();
    await get('a'); // no context: must not throw nor count anywhere
    const [first, second] = await Promise.all([
      measureCost(async () => {
        await get('a');
        await get('b');
      }),
      measureCost(() => query()),
      get('c'),
    ]);
    expect(first.cost).toMatchObject({ calls: 2, rounds: 2, byOperation: { GetItem: 2 } });
    expect(second.cost).toMatchObject({ calls: 1, rounds: 1, byOperation: { Query: 1 } });
  });

  it('reports the cost as of when the work settled, not what it left running', async () => {
    let leftRunning: Promise<unknown> | undefined;
    const { cost } = await measureCost(async () => {
      await get('a');
      leftRunning = get('b');
    });
    await leftRunning;
    expect(cost).toMatchObject({ calls: 1, rounds: 1, byOperation: { GetItem: 1 } });
    expect(cost.roundOperations).toEqual([['GetItem']]);
  });
});

describe('the cost header', () => {
  it('formats and parses calls, rounds and the operations of each round', () => {
    const cost = { calls: 3, rounds: 2, inFlight: 0, byOperation: { GetItem: 2, Query: 1 }, roundOperations: [['GetItem'], ['Query', 'GetItem']] };
    expect(formatCost(cost)).toBe('calls=3; rounds=2; ops=GetItem,Query+GetItem');
    expect(parseCost(formatCost(cost))).toEqual({ calls: 3, rounds: 2, roundOperations: cost.roundOperations, byOperation: cost.byOperation });
    expect(formatCost({ calls: 0, rounds: 0, inFlight: 0, byOperation: {}, roundOperations: [] })).toBe('calls=0; rounds=0');
    expect(parseCost('calls=0; rounds=0')).toEqual({ calls: 0, rounds: 0, roundOperations: [], byOperation: {} });
    expect(parseCost(null)).toBeUndefined();
    expect(parseCost('calls=x')).toBeUndefined();
  });
});
