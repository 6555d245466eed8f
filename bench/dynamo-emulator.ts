import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import dynalite from 'dynalite';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { startDynamoEmulator, type DynamoEmulator } from '../infra/local/dynamo/emulator';
import { localClientOptions } from '../shared/store/client';

/**
 * What the local DynamoDB emulator's front (body buffering, readers-writer lock, in-memory
 * hand-off to dynalite, transactions) adds to calls made through the SDK, against the same
 * dynalite without it. Interleaved calls, so machine noise hits both sides alike.
 *
 *   npm run bench:dynamo
 */
// Measures what the emulator's front (body buffering, lock, in-memory hand-off to dynalite)
// adds to a GetItem made through the SDK, against the same dynalite without the front.
const TABLE = 'latency-table';
const rounds = 1_000;
let root: string;
let raw: Server;
let emulator: DynamoEmulator;
let rawClient: DynamoDBClient;
let wrappedClient: DynamoDBClient;

async function prepare(client: DynamoDBClient): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
  while ((await client.send(new DescribeTableCommand({ TableName: TABLE }))).Table?.TableStatus !== 'ACTIVE') {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'item' }, name: { S: 'x'.repeat(200) }, count: { N: '1' } } }));
}

async function time(call: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await call();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

async function setUp(): Promise<void> {
  root = await mkdtemp(join(tmpdir(), 'cartwheel-dynamo-latency-'));
  raw = dynalite({ path: join(root, 'raw'), createTableMs: 0 });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  emulator = await startDynamoEmulator({ dataDir: join(root, 'wrapped'), port: 0 });
  rawClient = new DynamoDBClient({ region: 'us-east-1', ...localClientOptions(`http://127.0.0.1:${(raw.address() as AddressInfo).port}`) });
  wrappedClient = new DynamoDBClient({ region: 'us-east-1', ...localClientOptions(emulator.endpoint) });
  await prepare(rawClient);
  await prepare(wrappedClient);
}

async function tearDown(): Promise<void> {
  rawClient.destroy();
  wrappedClient.destroy();
  await emulator.stop();
  raw.closeAllConnections();
  await new Promise((resolve) => raw.close(resolve));
  await rm(root, { recursive: true, force: true });
}

async function reads(): Promise<void> {
  {
    const get = new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'item' } } });
    const rawSamples: number[] = [];
    const wrappedSamples: number[] = [];
    for (let index = 0; index < 300; index++) {
      await rawClient.send(get);
      await wrappedClient.send(get);
    }
    // Interleaved, so machine load drifts affect both sides alike.
    for (let index = 0; index < rounds; index++) {
      rawSamples.push(await time(() => rawClient.send(get)));
      wrappedSamples.push(await time(() => wrappedClient.send(get)));
    }
    const rawP50 = percentile(rawSamples, 0.5);
    const wrappedP50 = percentile(wrappedSamples, 0.5);
    const line = (name: string, samples: number[]) =>
      `${name}: p50 ${percentile(samples, 0.5).toFixed(3)} ms, p90 ${percentile(samples, 0.9).toFixed(3)} ms, p99 ${percentile(samples, 0.99).toFixed(3)} ms`;
    console.log(
      [
        `GetItem via SDK, ${rounds} sequential calls each:`,
        line('  plain dynalite ', rawSamples),
        line('  emulator front ', wrappedSamples),
        `  difference at p50: ${((wrappedP50 - rawP50) * 1000).toFixed(0)} µs`,
      ].join('\n'),
    );
  }
}

async function writes(): Promise<void> {
  {
    const put = (index: number) => new PutItemCommand({ TableName: TABLE, Item: { pk: { S: `put-${index % 50}` }, n: { N: String(index) } } });
    const transact = (index: number) =>
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk: { S: `a-${index % 50}` }, n: { N: String(index) } } } },
          { Update: { TableName: TABLE, Key: { pk: { S: 'item' } }, UpdateExpression: 'ADD #c :one', ExpressionAttributeNames: { '#c': 'count' }, ExpressionAttributeValues: { ':one': { N: '1' } } } },
        ],
      });
    const rawPuts: number[] = [];
    const wrappedPuts: number[] = [];
    const transactions: number[] = [];
    for (let index = 0; index < 300; index++) {
      rawPuts.push(await time(() => rawClient.send(put(index))));
      wrappedPuts.push(await time(() => wrappedClient.send(put(index))));
      transactions.push(await time(() => wrappedClient.send(transact(index))));
    }
    console.log(
      [
        'Writes via SDK, 300 sequential calls each (p50):',
        `  PutItem, plain dynalite:            ${percentile(rawPuts, 0.5).toFixed(3)} ms`,
        `  PutItem, emulator front:            ${percentile(wrappedPuts, 0.5).toFixed(3)} ms`,
        `  TransactWriteItems (2 ops), front:  ${percentile(transactions, 0.5).toFixed(3)} ms`,
      ].join('\n'),
    );
  }
}

await setUp();
try {
  await reads();
  await writes();
} finally {
  await tearDown();
}
