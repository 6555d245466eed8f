import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import dynalite from 'dynalite';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchWriteCommand, GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable, transactionJournalPath, type TransactionJournal } from '../../../infra/local/dynamo/emulator';
import { tableDefinition } from '../../../shared/store/table';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

const harness = new Harness();
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await harness.cleanup();
});

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const childScript = fileURLToPath(new URL('../fixtures/dynamo-child.ts', import.meta.url));

/** Starts the emulator in a child process and resolves with its endpoint. */
async function startChild(dataDir: string, crashAfterStep?: number): Promise<{ child: ChildProcess; endpoint: string }> {
  const args = ['--import', 'tsx', childScript, dataDir, ...(crashAfterStep === undefined ? [] : [String(crashAfterStep)])];
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`child exited early (${code ?? signal})`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { endpoint: string }).endpoint));
  });
  return { child, endpoint };
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function get(doc: DynamoDBDocumentClient, pk: string): Promise<Record<string, unknown> | undefined> {
  return (await doc.send(new GetCommand({ TableName: TABLE, Key: { pk, sk: 'a' }, ConsistentRead: true }))).Item;
}

describe('crash recovery', () => {
  it('restores the before-images of a journalled transaction on start and removes the journal', async () => {
    const first = await harness.startWithTable();
    await first.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'account', sk: 'a', balance: 100 } }));
    await first.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'removed', sk: 'a', note: 'was here' } }));
    // The half-applied state: two of three operations done, then the process "died".
    await first.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'account', sk: 'a', balance: 40 } }));
    await first.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'order', sk: 'a', total: 60 } }));
    await first.emulator.stop();

    const journal: TransactionJournal = {
      version: 1,
      entries: [
        { table: TABLE, key: { pk: { S: 'account' }, sk: { S: 'a' } }, before: { pk: { S: 'account' }, sk: { S: 'a' }, balance: { N: '100' } } },
        { table: TABLE, key: { pk: { S: 'order' }, sk: { S: 'a' } }, before: null },
        { table: TABLE, key: { pk: { S: 'removed' }, sk: { S: 'a' } }, before: { pk: { S: 'removed' }, sk: { S: 'a' }, note: { S: 'was here' } } },
      ],
    };
    const journalFile = transactionJournalPath(first.dataDir);
    await writeFile(journalFile, JSON.stringify(journal));

    const emulator = await harness.start({ dataDir: first.dataDir });
    expect(existsSync(journalFile)).toBe(false);
    const { doc } = harness.connect(emulator.endpoint);
    expect(await get(doc, 'account')).toEqual({ pk: 'account', sk: 'a', balance: 100 });
    expect(await get(doc, 'order')).toBeUndefined();
    expect(await get(doc, 'removed')).toEqual({ pk: 'removed', sk: 'a', note: 'was here' });
  });

  it('ignores a journal torn while it was being written (nothing was applied yet)', async () => {
    const first = await harness.startWithTable();
    await first.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'stays', sk: 'a', n: 1 } }));
    await first.emulator.stop();
    const journalFile = transactionJournalPath(first.dataDir);
    await writeFile(journalFile, '{"version":1,"entries":[{"table":"cartw');

    const emulator = await harness.start({ dataDir: first.dataDir });
    expect(existsSync(journalFile)).toBe(false);
    expect(await get(harness.connect(emulator.endpoint).doc, 'stays')).toEqual({ pk: 'stays', sk: 'a', n: 1 });
  });

  it('keeps everything written before a kill -9', { timeout: 30_000 }, async () => {
    const dataDir = await harness.dataDir();
    const { child, endpoint } = await startChild(dataDir);
    const { client, doc } = harness.connect(endpoint);
    await ensureTable(client, TABLE, tableDefinition);
    for (let index = 0; index < 40; index++) {
      await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: `put-${index}`, sk: 'a', index } }));
    }
    for (let batch = 0; batch < 4; batch++) {
      const items = Array.from({ length: 25 }, (_, offset) => ({ PutRequest: { Item: { pk: `batch-${batch * 25 + offset}`, sk: 'a' } } }));
      await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: items } }));
    }
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk: 'txn-1', sk: 'a' } } },
          { Update: { TableName: TABLE, Key: { pk: 'put-0', sk: 'a' }, UpdateExpression: 'SET touched = :yes', ExpressionAttributeValues: { ':yes': true } } },
        ],
      }),
    );
    child.kill('SIGKILL');
    await killed(child);

    const emulator = await harness.start({ dataDir });
    const reopened = harness.connect(emulator.endpoint).doc;
    for (let index = 0; index < 40; index++) expect((await get(reopened, `put-${index}`))?.index).toBe(index);
    for (let index = 0; index < 100; index++) expect(await get(reopened, `batch-${index}`)).toBeDefined();
    expect(await get(reopened, 'txn-1')).toBeDefined();
    expect((await get(reopened, 'put-0'))?.touched).toBe(true);
  });

  it('keeps nothing of a transaction the process died in the middle of (one batch when it ends, so no undo journal either)', { timeout: 30_000 }, async () => {
    const dataDir = await harness.dataDir();
    const setup = await harness.startWithTable(dataDir);
    await setup.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'counter', sk: 'a', count: 7 } }));
    await setup.doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'old', sk: 'a', note: 'keep me' } }));
    await setup.emulator.stop();

    // The child kills itself (SIGKILL) right after the second of four operations.
    const { child, endpoint } = await startChild(dataDir, 1);
    const { doc } = harness.connect(endpoint, { maxAttempts: 1 });
    await expect(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: TABLE, Key: { pk: 'counter', sk: 'a' }, UpdateExpression: 'ADD #c :one', ExpressionAttributeNames: { '#c': 'count' }, ExpressionAttributeValues: { ':one': 1 } } },
            { Put: { TableName: TABLE, Item: { pk: 'new', sk: 'a' } } },
            { Delete: { TableName: TABLE, Key: { pk: 'old', sk: 'a' } } },
            { Put: { TableName: TABLE, Item: { pk: 'newer', sk: 'a' } } },
          ],
        }),
      ),
    ).rejects.toThrow();
    await killed(child);
    expect(child.signalCode).toBe('SIGKILL');
    expect(existsSync(transactionJournalPath(dataDir))).toBe(false);
    // Read the data dir with plain dynalite: nothing of the transaction is on disk (its writes
    // land in LevelDB as one batch when it ends; dynamo-write-groups.ts), though it got half way.
    const plain = dynalite({ path: dataDir });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const peek = harness.connect(`http://127.0.0.1:${(plain.address() as AddressInfo).port}`).doc;
    expect(await get(peek, 'counter')).toEqual({ pk: 'counter', sk: 'a', count: 7 });
    expect(await get(peek, 'new')).toBeUndefined();
    expect(await get(peek, 'old')).toEqual({ pk: 'old', sk: 'a', note: 'keep me' });
    plain.closeAllConnections();
    await new Promise((resolve) => plain.close(resolve));

    const emulator = await harness.start({ dataDir });
    expect(existsSync(transactionJournalPath(dataDir))).toBe(false);
    const reopened = harness.connect(emulator.endpoint).doc;
    expect(await get(reopened, 'counter')).toEqual({ pk: 'counter', sk: 'a', count: 7 });
    expect(await get(reopened, 'new')).toBeUndefined();
    expect(await get(reopened, 'old')).toEqual({ pk: 'old', sk: 'a', note: 'keep me' });
    expect(await get(reopened, 'newer')).toBeUndefined();
  });
});
