import { afterEach, describe, expect, it } from 'vitest';
import {
  DeleteItemCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  PutItemCommand,
  UpdateItemCommand,
  type ConditionalCheckFailedException,
} from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../../infra/local/dynamo/emulator';
import { tableDefinition } from '../../../shared/store/table';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

const harness = new Harness();
afterEach(() => harness.cleanup());

async function failure(promise: Promise<unknown>): Promise<Error & Partial<ConditionalCheckFailedException>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Partial<ConditionalCheckFailedException>;
  }
  throw new Error('expected the call to fail');
}

describe('ensureTable', () => {
  it('creates the table with its three GSIs and TTL, and is idempotent', async () => {
    const { client, doc } = await harness.startWithTable();
    const table = (await client.send(new DescribeTableCommand({ TableName: TABLE }))).Table!;
    expect(table.TableStatus).toBe('ACTIVE');
    expect(table.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    const indexes = (table.GlobalSecondaryIndexes ?? []).map((index) => ({
      name: index.IndexName,
      keys: index.KeySchema?.map((key) => key.AttributeName),
      projection: index.Projection?.ProjectionType,
      status: index.IndexStatus,
    }));
    expect(indexes.sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual([
      { name: 'gsi1', keys: ['gsi1pk', 'gsi1sk'], projection: 'ALL', status: 'ACTIVE' },
      { name: 'gsi2', keys: ['gsi2pk', 'gsi2sk'], projection: 'ALL', status: 'ACTIVE' },
      { name: 'gsi3', keys: ['gsi3pk', 'gsi3sk'], projection: 'ALL', status: 'ACTIVE' },
    ]);
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: TABLE }));
    expect(ttl.TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'ttl' });

    await ensureTable(client, TABLE, tableDefinition);
    await ensureTable(client, TABLE, tableDefinition);

    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'p', sk: 's', gsi3pk: 'due', gsi3sk: '2024', kept: true } }));
    const due = await doc.send(new QueryCommand({ TableName: TABLE, IndexName: 'gsi3', KeyConditionExpression: 'gsi3pk = :due', ExpressionAttributeValues: { ':due': 'due' } }));
    expect(due.Items).toEqual([{ pk: 'p', sk: 's', gsi3pk: 'due', gsi3sk: '2024', kept: true }]);
  });

  it('refuses a table that lacks an index of the definition', async () => {
    const { client } = await harness.startWithTable();
    const wider = { ...tableDefinition, indexes: [...tableDefinition.indexes, { name: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk' }] };
    await expect(ensureTable(client, TABLE, wider as unknown as typeof tableDefinition)).rejects.toThrow(/index gsi4 is missing/);
  });
});

describe('persistence', () => {
  it('keeps items, tables and TTL settings across a stop and start', async () => {
    const first = await harness.startWithTable();
    for (let index = 0; index < 50; index++) {
      await first.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: `item-${index}`, sk: 'a', index } }));
    }
    await first.emulator.stop();

    const emulator = await harness.start({ dataDir: first.dataDir });
    const { client, doc } = harness.connect(emulator.endpoint);
    for (let index = 0; index < 50; index++) {
      const item = await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: `item-${index}`, sk: 'a' } }));
      expect(item.Item).toEqual({ pk: `item-${index}`, sk: 'a', index });
    }
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: TABLE }));
    expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toBe('ENABLED');
  });

  it('refuses a second emulator on a data dir in use, without disturbing the first', async () => {
    const first = await harness.startWithTable();
    await expect(harness.start({ dataDir: first.dataDir })).rejects.toThrow(/is another emulator using it/);
    await first.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'still', sk: 'fine' } }));
  });

  it('finishes an in-flight transaction before stopping', async () => {
    const dataDir = await harness.dataDir();
    let stopping: Promise<void> | undefined;
    const setup = await harness.startWithTable(dataDir);
    await setup.emulator.stop();
    // Stop is requested in the middle of a transaction; the transaction must still complete.
    const emulator = await harness.start({ dataDir, onTransactionStep: (step) => (stopping ??= step === 0 ? emulator.stop() : undefined) });
    const { doc } = harness.connect(emulator.endpoint);
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk: 'first', sk: 'a' } } },
          { Put: { TableName: TABLE, Item: { pk: 'second', sk: 'a' } } },
        ],
      }),
    );
    expect(stopping).toBeDefined();
    await stopping;

    const again = await harness.start({ dataDir });
    const reopened = harness.connect(again.endpoint).doc;
    expect((await reopened.send(new GetCommand({ TableName: TABLE, Key: { pk: 'second', sk: 'a' } }))).Item).toEqual({ pk: 'second', sk: 'a' });
  });
});

describe('ReturnValuesOnConditionCheckFailure', () => {
  it('returns the stored item on a failed conditional PutItem, UpdateItem and DeleteItem', async () => {
    const { client } = await harness.startWithTable();
    const key = { pk: { S: 'idem' }, sk: { S: 'a' } };
    const stored = { ...key, status: { S: 'INPROGRESS' }, expiry: { N: '123' } };
    await client.send(new PutItemCommand({ TableName: TABLE, Item: stored }));

    const put = await failure(
      client.send(
        new PutItemCommand({
          TableName: TABLE,
          Item: { ...key, status: { S: 'NEW' } },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(put.name).toBe('ConditionalCheckFailedException');
    expect(put.message).toBe('The conditional request failed');
    expect(put.Item).toEqual(stored);

    const update = await failure(
      client.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: key,
          UpdateExpression: 'SET #s = :done',
          ConditionExpression: '#s = :new',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':done': { S: 'DONE' }, ':new': { S: 'NEW' } },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(update.Item).toEqual(stored);

    const remove = await failure(
      client.send(new DeleteItemCommand({ TableName: TABLE, Key: key, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })),
    );
    expect(remove.Item).toEqual(stored);

    const without = await failure(client.send(new PutItemCommand({ TableName: TABLE, Item: key, ConditionExpression: 'attribute_not_exists(pk)' })));
    expect(without.name).toBe('ConditionalCheckFailedException');
    expect(without.Item).toBeUndefined();

    const none = await failure(
      client.send(new PutItemCommand({ TableName: TABLE, Item: key, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'NONE' })),
    );
    expect(none.Item).toBeUndefined();

    // The failed writes changed nothing; a passing one with ALL_OLD behaves as usual.
    await client.send(
      new PutItemCommand({ TableName: TABLE, Item: { ...key, status: { S: 'DONE' } }, ConditionExpression: 'attribute_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    );
  });

  it('rejects an unknown ReturnValuesOnConditionCheckFailure', async () => {
    const { client } = await harness.startWithTable();
    const error = await failure(
      client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'x' }, sk: { S: 'a' } }, ReturnValuesOnConditionCheckFailure: 'EVERYTHING' as never })),
    );
    expect(error.name).toBe('ValidationException');
  });
});
