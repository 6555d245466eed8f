import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TransactGetItemsCommand, TransactWriteItemsCommand, type TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

const harness = new Harness();
let doc: DynamoDBDocumentClient;

beforeEach(async () => {
  ({ doc } = await harness.startWithTable());
});
afterEach(() => harness.cleanup());

async function get(pk: string, sk = 'a'): Promise<Record<string, unknown> | undefined> {
  return (await doc.send(new GetCommand({ TableName: TABLE, Key: { pk, sk }, ConsistentRead: true }))).Item;
}

async function put(item: Record<string, unknown>): Promise<void> {
  await doc.send(new PutCommand({ TableName: TABLE, Item: { sk: 'a', ...item } }));
}

async function failure(promise: Promise<unknown>): Promise<Error & Partial<TransactionCanceledException>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Partial<TransactionCanceledException>;
  }
  throw new Error('expected the call to fail');
}

describe('TransactWriteItems', () => {
  it('applies Put, Update (SET and ADD), Delete and ConditionCheck together', async () => {
    await put({ pk: 'counter', count: 1, tags: new Set(['a']) });
    await put({ pk: 'doomed', note: 'bye' });
    await put({ pk: 'guard', state: 'open' });

    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk: 'new', sk: 'a', name: 'fresh' }, ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Update: {
              TableName: TABLE,
              Key: { pk: 'counter', sk: 'a' },
              UpdateExpression: 'SET #label = :label ADD #count :one, tags :more',
              ConditionExpression: '#count = :expected',
              ExpressionAttributeNames: { '#label': 'label', '#count': 'count' },
              ExpressionAttributeValues: { ':label': 'two', ':one': 1, ':more': new Set(['b']), ':expected': 1 },
            },
          },
          { Delete: { TableName: TABLE, Key: { pk: 'doomed', sk: 'a' }, ConditionExpression: 'attribute_exists(pk)' } },
          {
            ConditionCheck: {
              TableName: TABLE,
              Key: { pk: 'guard', sk: 'a' },
              ConditionExpression: '#state = :open',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ':open': 'open' },
            },
          },
        ],
      }),
    );

    expect(await get('new')).toEqual({ pk: 'new', sk: 'a', name: 'fresh' });
    expect(await get('counter')).toEqual({ pk: 'counter', sk: 'a', count: 2, label: 'two', tags: new Set(['a', 'b']) });
    expect(await get('doomed')).toBeUndefined();
    expect(await get('guard')).toEqual({ pk: 'guard', sk: 'a', state: 'open' });
  });

  it('leaves no item behind for a passing ConditionCheck on a missing item', async () => {
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: TABLE, Key: { pk: 'ghost', sk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: TABLE, Item: { pk: 'real', sk: 'a' } } },
        ],
      }),
    );
    expect(await get('ghost')).toBeUndefined();
    expect(await get('real')).toEqual({ pk: 'real', sk: 'a' });
  });

  it('cancels everything when a condition fails, with reasons in request order', async () => {
    await put({ pk: 'counter', count: 5 });
    await put({ pk: 'keep', note: 'still here' });

    const error = await failure(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: TABLE, Item: { pk: 'new', sk: 'a' } } },
            { Update: { TableName: TABLE, Key: { pk: 'counter', sk: 'a' }, UpdateExpression: 'ADD #c :one', ExpressionAttributeNames: { '#c': 'count' }, ExpressionAttributeValues: { ':one': 1 } } },
            { Delete: { TableName: TABLE, Key: { pk: 'keep', sk: 'a' } } },
            // Fails last, after three operations that succeeded on their own.
            { ConditionCheck: { TableName: TABLE, Key: { pk: 'counter', sk: 'b' }, ConditionExpression: 'attribute_exists(pk)' } },
          ],
        }),
      ),
    );

    expect(error.name).toBe('TransactionCanceledException');
    expect(error.message).toBe('Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, None, ConditionalCheckFailed]');
    expect(error.CancellationReasons?.map((reason) => reason.Code)).toEqual(['None', 'None', 'None', 'ConditionalCheckFailed']);
    expect(error.CancellationReasons?.[3]?.Message).toBe('The conditional request failed');
    expect(await get('new')).toBeUndefined();
    expect(await get('counter')).toEqual({ pk: 'counter', sk: 'a', count: 5 });
    expect(await get('keep')).toEqual({ pk: 'keep', sk: 'a', note: 'still here' });
  });

  it('reports every failing condition and returns the old item when asked (ALL_OLD)', async () => {
    await put({ pk: 'taken', owner: 'someone' });
    await put({ pk: 'other', owner: 'else' });

    const error = await failure(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: TABLE, Item: { pk: 'taken', sk: 'a', owner: 'me' }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
            { Put: { TableName: TABLE, Item: { pk: 'free', sk: 'a' } } },
            { Delete: { TableName: TABLE, Key: { pk: 'other', sk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      ),
    );

    expect(error.name).toBe('TransactionCanceledException');
    expect(error.CancellationReasons?.map((reason) => reason.Code)).toEqual(['ConditionalCheckFailed', 'None', 'ConditionalCheckFailed']);
    expect(error.CancellationReasons?.[0]?.Item).toEqual({ pk: { S: 'taken' }, sk: { S: 'a' }, owner: { S: 'someone' } });
    expect(error.CancellationReasons?.[2]?.Item).toBeUndefined();
    expect(await get('taken')).toEqual({ pk: 'taken', sk: 'a', owner: 'someone' });
    expect(await get('free')).toBeUndefined();
    expect(await get('other')).toEqual({ pk: 'other', sk: 'a', owner: 'else' });
  });

  it('cancels with a ValidationError reason when an update does not fit the stored item', async () => {
    await put({ pk: 'text', value: 'not a number' });
    const error = await failure(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: TABLE, Item: { pk: 'new', sk: 'a' } } },
            { Update: { TableName: TABLE, Key: { pk: 'text', sk: 'a' }, UpdateExpression: 'ADD #v :one', ExpressionAttributeNames: { '#v': 'value' }, ExpressionAttributeValues: { ':one': 1 } } },
          ],
        }),
      ),
    );
    expect(error.name).toBe('TransactionCanceledException');
    expect(error.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'ValidationError', Message: 'An operand in the update expression has an incorrect data type' },
    ]);
    expect(await get('new')).toBeUndefined();
  });

  it('rejects two operations on one item', async () => {
    const error = await failure(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: TABLE, Item: { pk: 'same', sk: 'a', n: 1 } } },
            { Update: { TableName: TABLE, Key: { pk: 'same', sk: 'a' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 2 } } },
          ],
        }),
      ),
    );
    expect(error.name).toBe('ValidationException');
    expect(error.message).toBe('Transaction request cannot include multiple operations on one item');
    expect(await get('same')).toBeUndefined();
  });

  it('validates the request like DynamoDB, applying nothing', async () => {
    const low = (input: unknown) => failure(doc.send(new TransactWriteItemsCommand(input as never)));
    const empty = await low({ TransactItems: [] });
    expect(empty.name).toBe('ValidationException');
    expect(empty.message).toContain('Member must have length greater than or equal to 1');

    const tooMany = await low({
      TransactItems: Array.from({ length: 101 }, (_, index) => ({ Put: { TableName: TABLE, Item: { pk: { S: `p${index}` }, sk: { S: 'a' } } } })),
    });
    expect(tooMany.name).toBe('ValidationException');
    expect(tooMany.message).toContain('Member must have length less than or equal to 100');

    const two = await low({
      TransactItems: [{ Put: { TableName: TABLE, Item: { pk: { S: 'x' }, sk: { S: 'a' } } }, Delete: { TableName: TABLE, Key: { pk: { S: 'y' }, sk: { S: 'a' } } } }],
    });
    expect(two.name).toBe('ValidationException');
    expect(two.message).toBe('TransactItems can only contain one of Check, Put, Update or Delete');

    const noKey = await low({ TransactItems: [{ Put: { TableName: TABLE, Item: { pk: { S: 'x' } } } }] });
    expect(noKey.message).toBe('One or more parameter values were invalid: Missing the key sk in the item');

    // A broken expression in the last operation: the earlier Put must be undone.
    const badExpression = await low({
      TransactItems: [
        { Put: { TableName: TABLE, Item: { pk: { S: 'early' }, sk: { S: 'a' } } } },
        { Update: { TableName: TABLE, Key: { pk: { S: 'late' }, sk: { S: 'a' } }, UpdateExpression: 'SET = oops' } },
      ],
    });
    expect(badExpression.name).toBe('ValidationException');
    expect(badExpression.message).toContain('Invalid UpdateExpression');
    expect(await get('early')).toBeUndefined();
    expect(await get('late')).toBeUndefined();

    const missingTable = await low({ TransactItems: [{ Put: { TableName: 'no-such-table', Item: { pk: { S: 'x' } } } }] });
    expect(missingTable.name).toBe('ResourceNotFoundException');
  });

  it('treats a repeated ClientRequestToken as a retry of the committed transaction', async () => {
    await put({ pk: 'counter', count: 0 });
    const increment = (by: number) =>
      new TransactWriteCommand({
        ClientRequestToken: 'retry-token-1',
        TransactItems: [
          { Update: { TableName: TABLE, Key: { pk: 'counter', sk: 'a' }, UpdateExpression: 'ADD #c :by', ExpressionAttributeNames: { '#c': 'count' }, ExpressionAttributeValues: { ':by': by } } },
        ],
      });
    await doc.send(increment(1));
    await doc.send(increment(1));
    expect(await get('counter')).toEqual({ pk: 'counter', sk: 'a', count: 1 });
    const mismatch = await failure(doc.send(increment(5)));
    expect(mismatch.name).toBe('IdempotentParameterMismatchException');
    expect(await get('counter')).toEqual({ pk: 'counter', sk: 'a', count: 1 });
  });

  it('serializes concurrent transactions: 30 increments and 30 creations all land', async () => {
    await put({ pk: 'counter', count: 0 });
    await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: { TableName: TABLE, Key: { pk: 'counter', sk: 'a' }, UpdateExpression: 'ADD #c :one', ExpressionAttributeNames: { '#c': 'count' }, ExpressionAttributeValues: { ':one': 1 } } },
              { Put: { TableName: TABLE, Item: { pk: `unique-${index}`, sk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' } },
            ],
          }),
        ),
      ),
    );
    expect(await get('counter')).toEqual({ pk: 'counter', sk: 'a', count: 30 });
    for (let index = 0; index < 30; index++) expect(await get(`unique-${index}`)).toBeDefined();
  });

  it('lets exactly one of 10 racing transactions create the same item', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: TABLE, Item: { pk: 'contested', sk: 'a', winner: index }, ConditionExpression: 'attribute_not_exists(pk)' } },
              { Put: { TableName: TABLE, Item: { pk: `attempt-${index}`, sk: 'a' } } },
            ],
          }),
        ),
      ),
    );
    const won = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
    expect(won).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect((outcome.reason as Error).name).toBe('TransactionCanceledException');
    }
    expect((await get('contested'))?.winner).toBe(won[0]);
    for (let index = 0; index < 10; index++) {
      expect(await get(`attempt-${index}`)).toEqual(index === won[0] ? { pk: `attempt-${index}`, sk: 'a' } : undefined);
    }
  });

  it('never shows a reader half a transaction', async () => {
    // Two items of one partition always move together; every kind of read must agree.
    await put({ pk: 'pair', sk: 'left', version: 0 });
    await put({ pk: 'pair', sk: 'right', version: 0 });
    let writing = true;
    const writer = (async () => {
      for (let version = 1; version <= 40; version++) {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: ['left', 'right'].map((sk) => ({
              Update: { TableName: TABLE, Key: { pk: 'pair', sk }, UpdateExpression: 'SET version = :v', ExpressionAttributeValues: { ':v': version } },
            })),
          }),
        );
      }
      writing = false;
    })();
    const seen: Array<[unknown, unknown]> = [];
    const reader = async () => {
      while (writing) {
        const query = await doc.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'pair' } }));
        seen.push([query.Items?.[0]?.version, query.Items?.[1]?.version]);
        const pair = await doc.send(new TransactGetCommand({ TransactItems: ['left', 'right'].map((sk) => ({ Get: { TableName: TABLE, Key: { pk: 'pair', sk } } })) }));
        seen.push([pair.Responses?.[0]?.Item?.version, pair.Responses?.[1]?.Item?.version]);
        const batch = await doc.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: [{ pk: 'pair', sk: 'left' }, { pk: 'pair', sk: 'right' }] } } }));
        const versions = (batch.Responses?.[TABLE] ?? []).map((item) => item.version);
        seen.push([versions[0], versions[1]]);
      }
    };
    await Promise.all([writer, reader(), reader(), reader()]);
    expect(seen.length).toBeGreaterThan(0);
    for (const [left, right] of seen) expect(left).toBe(right);
  });
});

describe('TransactGetItems', () => {
  it('returns items in request order and an empty object for a missing one', async () => {
    await put({ pk: 'one', name: 'first', secret: 'x' });
    await put({ pk: 'two', name: 'second' });
    const result = await doc.send(
      new TransactGetCommand({
        TransactItems: [
          { Get: { TableName: TABLE, Key: { pk: 'two', sk: 'a' } } },
          { Get: { TableName: TABLE, Key: { pk: 'missing', sk: 'a' } } },
          { Get: { TableName: TABLE, Key: { pk: 'one', sk: 'a' }, ProjectionExpression: '#n', ExpressionAttributeNames: { '#n': 'name' } } },
        ],
      }),
    );
    expect(result.Responses).toEqual([{ Item: { pk: 'two', sk: 'a', name: 'second' } }, {}, { Item: { name: 'first' } }]);
  });

  it('rejects bad requests as DynamoDB does', async () => {
    const low = (input: unknown) => failure(doc.send(new TransactGetItemsCommand(input as never)));
    expect((await low({ TransactItems: [] })).name).toBe('ValidationException');
    const duplicate = await low({
      TransactItems: [
        { Get: { TableName: TABLE, Key: { pk: { S: 'x' }, sk: { S: 'a' } } } },
        { Get: { TableName: TABLE, Key: { pk: { S: 'x' }, sk: { S: 'a' } } } },
      ],
    });
    expect(duplicate.message).toBe('Transaction request cannot include multiple operations on one item');
    const wrongKey = await low({ TransactItems: [{ Get: { TableName: TABLE, Key: { pk: { S: 'x' } } } }] });
    expect(wrongKey.name).toBe('ValidationException');
    expect((await low({ TransactItems: [{ Get: { TableName: 'nope-table', Key: { pk: { S: 'x' } } } }] })).name).toBe('ResourceNotFoundException');
  });
});
