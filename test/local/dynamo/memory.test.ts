/**
 * The local DynamoDB keeps no per-request memory beyond what DynamoDB itself promises.
 * A committed transaction's ClientRequestToken is remembered for DynamoDB's 10-minute retry
 * window; the emulator once kept each transaction's whole request as JSON for it, so a
 * checkout load grew the runtime's heap by tens of kilobytes per checkout for ten minutes
 * (issue 12's second leak). It now keeps a digest of the request.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

// A real collection, so the heap figures below are live data, not garbage not yet collected.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Live JS heap in bytes, after a full collection. */
function liveHeap(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

const harness = new Harness();
afterEach(() => harness.cleanup());

describe('committed transaction tokens', () => {
  it('do not keep their requests: 80 transactions of 300 KB leave the heap (nearly) as it was', async () => {
    const { doc, emulator } = await harness.startWithTable();
    const body = 'x'.repeat(300_000);
    const transaction = (index: number, token?: string) =>
      new TransactWriteCommand({
        ClientRequestToken: token,
        TransactItems: [{ Put: { TableName: TABLE, Item: { pk: `big#${index % 4}`, sk: 'a', body, index } } }],
      });
    // Warm-up: the SDK, dynalite and the emulator load what they keep for good.
    for (let index = 0; index < 5; index++) await doc.send(transaction(index));
    const before = liveHeap();
    const heldBefore = emulator.transactionTokens();
    for (let index = 0; index < 80; index++) await doc.send(transaction(index)); // the SDK adds a token to each
    const grown = liveHeap() - before;
    // Keeping the requests held 80 × 300 KB = 24 MB; digests are a few kilobytes.
    expect(grown).toBeLessThan(6_000_000);
    // Each token is held for its window, and counted (the soak bench prints the count).
    expect(emulator.transactionTokens()).toBe(heldBefore + 80);

    // The digest still tells a retry (accepted) from another request under the same token.
    await doc.send(transaction(1_000, 'memory-retry'));
    await doc.send(transaction(1_000, 'memory-retry'));
    await expect(doc.send(transaction(1_004, 'memory-retry'))).rejects.toMatchObject({ name: 'IdempotentParameterMismatchException' });
    const item = (await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: 'big#0', sk: 'a' }, ConsistentRead: true }))).Item;
    expect(item?.index).toBe(1_000);
  });
});
