/**
 * The local runtime's SDK transport to its own emulator (infra/local/dynamo/in-process.ts):
 * no socket, no signing, and the same answers as over HTTP: results, the typed errors the
 * platform relies on (a failed condition with the item, a cancelled transaction with its
 * reasons, validation), and the emulator's stop behaviour.
 */
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { inProcessClientOptions } from '../../../infra/local/dynamo/in-process';
import { localClientOptions } from '../../../shared/store/client';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

const harness = new Harness();
afterAll(() => harness.cleanup());

/** The same calls through HTTP and in process, answering what each side saw. */
async function both<T>(run: (doc: DynamoDBDocumentClient, side: string) => Promise<T>) {
  const { emulator, doc: http } = await harness.startWithTable();
  const client = new DynamoDBClient({ region: 'us-east-1', ...localClientOptions(emulator.endpoint), ...inProcessClientOptions(emulator) });
  const inProcess = DynamoDBDocumentClient.from(client);
  try {
    return { emulator, http: await run(http, 'http'), inProcess: await run(inProcess, 'in-process') };
  } finally {
    client.destroy();
  }
}

async function caught(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a failure');
}

describe('the in-process DynamoDB transport', () => {
  it('answers reads and writes as HTTP does, and the emulator counts them the same', async () => {
    const { emulator, http, inProcess } = await both(async (doc, side) => {
      await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: `p#${side}`, sk: 'record', gsi1pk: 'all', gsi1sk: side, n: 1, text: 'é ✓' } }));
      const got = await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: `p#${side}`, sk: 'record' }, ConsistentRead: true }));
      const listed = await doc.send(new QueryCommand({ TableName: TABLE, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :all', ExpressionAttributeValues: { ':all': 'all' } }));
      return { item: { ...got.Item, pk: undefined, gsi1sk: undefined }, count: listed.Count };
    });
    expect(inProcess.item).toEqual(http.item);
    expect(inProcess.item).toMatchObject({ n: 1, text: 'é ✓' });
    expect([http.count, inProcess.count]).toEqual([1, 2]);
    expect(emulator.calls()).toMatchObject({ PutItem: 2, GetItem: 2, Query: 2 });
  });

  it('sums each HTTP answer with a correct x-amz-crc32 (the emulator checksum, computed natively)', async () => {
    const { emulator } = await harness.startWithTable();
    const reply = await fetch(emulator.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.DescribeTable', authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0', 'x-amz-date': '20200101T000000Z' },
      body: JSON.stringify({ TableName: TABLE }),
    });
    const body = await reply.text();
    expect(reply.status, body).toBe(200);
    expect(JSON.parse(body).Table.TableName).toBe(TABLE);
    expect(reply.headers.get('x-amz-crc32')).toBe(String(crc32(body)));
  });

  it('gives the same typed errors: a failed condition with the item, a cancelled transaction with reasons, validation', async () => {
    const { http, inProcess } = await both(async (doc, side) => {
      const key = { pk: `c#${side}`, sk: 'record' };
      await doc.send(new PutCommand({ TableName: TABLE, Item: { ...key, v: 1 } }));
      const condition = await caught(
        doc.send(new PutCommand({ TableName: TABLE, Item: { ...key, v: 2 }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })),
      );
      const cancelled = await caught(
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: TABLE, Item: { pk: `t#${side}`, sk: 'record' } } },
              { ConditionCheck: { TableName: TABLE, Key: key, ConditionExpression: 'v = :two', ExpressionAttributeValues: { ':two': 2 } } },
            ],
          }),
        ),
      );
      const invalid = await caught(doc.send(new GetCommand({ TableName: TABLE, Key: { pk: 'only-half' } })));
      const untouched = await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: `t#${side}`, sk: 'record' }, ConsistentRead: true }));
      return {
        condition: [condition instanceof ConditionalCheckFailedException, { ...(condition.Item as object), pk: 'same' }],
        cancelled: [cancelled instanceof TransactionCanceledException, (cancelled as unknown as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)],
        invalid: [invalid.name, invalid.message],
        untouched: untouched.Item,
      };
    });
    expect(inProcess).toEqual(http);
    expect(inProcess.condition).toEqual([true, { pk: 'same', sk: { S: 'record' }, v: { N: '1' } }]);
    expect(inProcess.cancelled).toEqual([true, ['None', 'ConditionalCheckFailed']]);
    expect(inProcess.invalid[0]).toBe('ValidationException');
    expect(inProcess.untouched).toBeUndefined();
  });

  it('is refused once the emulator stops, as HTTP calls are', async () => {
    const { emulator } = await harness.startWithTable();
    const client = new DynamoDBClient({ region: 'us-east-1', maxAttempts: 1, ...localClientOptions(emulator.endpoint), ...inProcessClientOptions(emulator) });
    const doc = DynamoDBDocumentClient.from(client);
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'late', sk: 'record' } }));
    await emulator.stop();
    const refused = await caught(doc.send(new GetCommand({ TableName: TABLE, Key: { pk: 'late', sk: 'record' } })));
    expect(refused.name).toBe('ServiceUnavailableException');
    client.destroy();
  });
});
