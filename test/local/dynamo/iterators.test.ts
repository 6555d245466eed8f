/**
 * The local DynamoDB closes the LevelDB iterators behind its reads. dynalite 4.0.0 never
 * closed them (its streams call `iterator.return()`, which level 10 iterators lack): each
 * Query left two open, the runtime's memory grew without bound and compaction could not
 * delete table files an open iterator still pinned.
 */
import { readdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeleteTableCommand, CreateTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

/**
 * Counts the iterators dynalite's LevelDB attaches (opens) and detaches (closes), whoever
 * opens them, by wrapping the store dynalite builds; the emulator loads the same module.
 */
const require = createRequire(import.meta.url);
const dynaliteDb = require('dynalite/db') as { create: (options: Record<string, unknown>) => { db: Record<string, unknown> } };
const originalCreate = dynaliteDb.create;
const iterators = { opened: 0, closed: 0 };
const isIterator = (resource: unknown) => typeof (resource as { next?: unknown }).next === 'function';

beforeAll(() => {
  dynaliteDb.create = (options) => {
    const store = originalCreate(options);
    const db = store.db as { attachResource: (resource: unknown) => void; detachResource: (resource: unknown) => void };
    const attach = db.attachResource.bind(db);
    const detach = db.detachResource.bind(db);
    db.attachResource = (resource) => {
      if (isIterator(resource)) iterators.opened++;
      attach(resource);
    };
    db.detachResource = (resource) => {
      if (isIterator(resource)) iterators.closed++;
      detach(resource);
    };
    return store;
  };
});
afterAll(() => {
  dynaliteDb.create = originalCreate;
});

const harness = new Harness();
afterEach(() => harness.cleanup());

/** Once the event loop has run the closes a finished read started. */
async function openIterators(): Promise<number> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  return iterators.opened - iterators.closed;
}

describe('LevelDB iterators', () => {
  it('are all closed after 200 queries and scans the way the platform pages lists', async () => {
    const { doc, client } = await harness.startWithTable();
    for (let index = 0; index < 30; index++) {
      const sk = `product#${String(index).padStart(3, '0')}`;
      await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'store#1', sk, gsi1pk: 'catalog', gsi1sk: sk, status: index % 2 ? 'live' : 'draft' } }));
    }
    const before = iterators.opened;
    const baseline = await openIterators();
    for (let round = 0; round < 40; round++) {
      // A cursor list: Limit + 1, newest first, then the next page from its LastEvaluatedKey.
      const first = await doc.send(
        new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'store#1' }, Limit: 11, ScanIndexForward: false }),
      );
      expect(first.Items).toHaveLength(11);
      await doc.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'store#1' },
          Limit: 11,
          ScanIndexForward: false,
          ExclusiveStartKey: first.LastEvaluatedKey,
        }),
      );
      // A filtered list on an index, a range condition read to its end, and a scan.
      await doc.send(
        new QueryCommand({
          TableName: TABLE,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :c',
          FilterExpression: '#s = :s',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':c': 'catalog', ':s': 'live' },
          Limit: 200,
        }),
      );
      await doc.send(
        new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': 'store#1', ':p': 'product#01' } }),
      );
      await doc.send(new ScanCommand({ TableName: TABLE, Limit: 5 }));
    }
    await client.send(new ListTablesCommand({}));
    expect(iterators.opened - before).toBeGreaterThanOrEqual(200);
    expect((await openIterators()) - baseline).toBe(0);
  });

  it('are closed by a table deletion, which reads every key of the table', async () => {
    const { client, doc } = await harness.startWithTable();
    const baseline = await openIterators();
    await client.send(
      new CreateTableCommand({
        TableName: 'scratch',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    for (let index = 0; index < 5; index++) await doc.send(new PutCommand({ TableName: 'scratch', Item: { id: `x${index}` } }));
    await client.send(new DeleteTableCommand({ TableName: 'scratch' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await openIterators()) - baseline).toBe(0);
  });

  it('no longer pin old table files: rewriting the same items under steady reads keeps the data folder small', async () => {
    const { doc, dataDir } = await harness.startWithTable();
    // Incompressible, so LevelDB's files hold what was written.
    const payload = randomBytes(225 * 1024).toString('base64');
    // 120 rewrites of ten 300 KB items (36 MB written, 3 MB live), each followed by a read,
    // as the runtime rewrites carts and orders while it serves lists. With the iterators left
    // open the folder kept every version: 32 files, 84 MB. Closed, compaction leaves about 18 MB
    // (live data, the write-ahead log and level-0 files waiting for their merge).
    for (let round = 0; round < 12; round++) {
      for (let index = 0; index < 10; index++) {
        await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'cart', sk: `line#${index}`, round, payload } }));
        await doc.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'cart' }, Limit: 2 }));
      }
    }
    // Background compaction may still be finishing its last merge.
    let files = await levelFiles(dataDir);
    for (let wait = 0; wait < 50 && files.bytes > 40 * 1024 * 1024; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      files = await levelFiles(dataDir);
    }
    expect(files.bytes).toBeLessThan(40 * 1024 * 1024);
  });
});

/** The LevelDB table and log files in `dir`: how many and their total size. */
async function levelFiles(dir: string): Promise<{ count: number; bytes: number }> {
  let count = 0;
  let bytes = 0;
  for (const name of await readdir(dir)) {
    if (!/\.(ldb|sst|log)$/.test(name)) continue;
    count++;
    bytes += (await stat(join(dir, name))).size;
  }
  return { count, bytes };
}
