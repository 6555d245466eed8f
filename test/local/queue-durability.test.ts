/**
 * Queued work survives a crash of the local process: fauxqs writes every message through to
 * SQLite before SendMessage returns, so a `kill -9` right after the sends loses nothing, and
 * a message that was in flight comes back once its visibility timeout runs out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ChangeMessageVisibilityCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import type { QueueChildReport } from './fixtures/queue-child';
import { platformQueue, QueueHarness, queueCounts, receiveAll } from './fixtures/queue-harness';

const harness = new QueueHarness();
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await harness.cleanup();
});

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const childScript = fileURLToPath(new URL('./fixtures/queue-child.ts', import.meta.url));
const N = 20;

/** Runs the child on `dataDir` and resolves with its report once all its calls returned. */
async function runChild(dataDir: string, count: number, receive = 0): Promise<{ child: ChildProcess; report: QueueChildReport }> {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '--import', 'tsx', childScript, dataDir, String(count), String(receive)],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const report = await new Promise<QueueChildReport>((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`queue child exited early (${code ?? signal})`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as QueueChildReport));
  });
  return { child, report };
}

/** Kills the child with SIGKILL (no exit handlers, no flush) and waits until it is gone. */
async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

describe('queue durability', () => {
  it('a kill -9 loses no queued message', async () => {
    const dataDir = await harness.dataDir();
    const { child, report } = await runChild(dataDir, N);
    expect(report.sent).toHaveLength(N);
    await killHard(child);

    const emulators = await harness.start(dataDir);
    const queue = platformQueue(emulators, 'event-notifications');
    const received = await receiveAll(emulators.sqs, queue.url);
    expect(received.map((message) => message.Body).sort()).toEqual(report.sent.map((message) => message.body).sort());
    expect(received.map((message) => message.MessageId).sort()).toEqual(report.sent.map((message) => message.id).sort());
    expect(received.every((message) => message.Attributes?.ApproximateReceiveCount === '1')).toBe(true);
  });

  it('a message in flight at the kill comes back after its visibility timeout', async () => {
    const dataDir = await harness.dataDir();
    const { child, report } = await runChild(dataDir, N, 1);
    expect(report.inFlight).toHaveLength(1);
    const inFlight = report.inFlight[0]!;
    await killHard(child);

    const emulators = await harness.start(dataDir);
    const queue = platformQueue(emulators, 'event-notifications');
    // Still hidden (its 120 s visibility timeout has not run out), and not lost: the other
    // 19 are receivable, and the queue counts it as in flight.
    const others = await receiveAll(emulators.sqs, queue.url);
    expect(others.map((message) => message.Body).sort()).toEqual(
      report.sent.filter((message) => message.id !== inFlight.id).map((message) => message.body).sort(),
    );
    expect(await queueCounts(emulators.sqs, queue.url)).toEqual({ visible: 0, inFlight: N });

    // Shorten the remaining visibility timeout to 1 s instead of waiting 120 s; the receipt
    // handle from before the crash is still valid.
    await emulators.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: queue.url, ReceiptHandle: inFlight.receiptHandle, VisibilityTimeout: 1 }),
    );
    const back = await emulators.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 5, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }),
    );
    expect(back.Messages?.map((message) => [message.MessageId, message.Body, message.Attributes?.ApproximateReceiveCount])).toEqual([
      [inFlight.id, inFlight.body, '2'],
    ]);
  });
});
