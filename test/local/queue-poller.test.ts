/**
 * The local stand-in for Lambda's SQS event source mapping, against real fauxqs: the event
 * a consumer gets, what is deleted and what returns (ReportBatchItemFailures), shutdown, and
 * the redrive to the dead-letter queue that the platform's retry design relies on.
 *
 * Rounds are driven with `pollOnce`; visibility timeouts of 1 s are waited out with a long
 * poll (the receive returns as soon as the message is visible again), never with a sleep.
 */
import { createHash } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION, type Emulators } from '../../infra/local/emulators';
import { startPoller, type Poller, type PollerOptions } from '../../infra/local/queue-poller';
import { queues } from '../../shared/app/queues';
import { createQueue, platformQueue, QueueHarness, queueAttributes, queueCounts, type TestQueue } from './fixtures/queue-harness';

const harness = new QueueHarness();
let emulators: Emulators;
let sqs: SQSClient;

beforeAll(async () => {
  emulators = await harness.start();
  sqs = emulators.sqs;
});
afterAll(() => harness.cleanup());

type Handler = PollerOptions['handler'];

/**
 * A poller whose background loop has already ended, so that rounds run only when the test
 * calls `pollOnce`. `startPoller` always starts its loop; stopping it while the queue is
 * still empty leaves a poller that receives nothing on its own (its first round finds nothing).
 */
async function manualPoller(queue: TestQueue, handler: Handler, extra: Partial<PollerOptions> = {}): Promise<Poller> {
  const poller = startPoller({
    sqs,
    queueName: queue.name,
    queueUrl: queue.url,
    queueArn: queue.arn,
    region: LOCAL_REGION,
    handler,
    batchSize: 10,
    waitSeconds: 0,
    ...extra,
  });
  await poller.stop();
  return poller;
}

/** Runs rounds (long-polling up to 5 s each) until `count` messages were handled. */
async function pollUntil(poller: Poller, count: number): Promise<number> {
  let handled = 0;
  for (let round = 0; round < 5 && handled < count; round++) handled += await poller.pollOnce(5);
  return handled;
}

/** Polls (real time) until `check` holds, at most 10 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const by = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > by) throw new Error('condition not reached in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function send(queue: TestQueue, body: string): Promise<string> {
  return (await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }))).MessageId!;
}

/** A handler that records every record it is given and answers with `respond`. */
function recordingHandler(respond: (event: SQSEvent) => SQSBatchResponse | void = () => undefined) {
  const deliveries: SQSRecord[][] = [];
  const handler: Handler = async (event) => {
    deliveries.push(event.Records);
    return respond(event);
  };
  return { handler, deliveries };
}

function failuresFor(event: SQSEvent, failing: (record: SQSRecord) => boolean): SQSBatchResponse {
  return { batchItemFailures: event.Records.filter(failing).map((record) => ({ itemIdentifier: record.messageId })) };
}

describe('queue poller', () => {
  it('hands the consumer the Lambda SQS event shape', async () => {
    const queue = platformQueue(emulators, 'event-notifications');
    let received: { event: SQSEvent; context: Context } | undefined;
    const poller = await manualPoller(queue, async (event, context) => {
      received = { event, context };
    });
    const body = JSON.stringify({ event_id: 'EV1', type: 'order.created' });
    const digest = Buffer.from([0, 1, 2, 250, 255]);
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: body,
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'order.created' },
          attempt: { DataType: 'Number', StringValue: '3' },
          digest: { DataType: 'Binary', BinaryValue: digest },
        },
      }),
    );

    expect(await poller.pollOnce()).toBe(1);

    expect(received).toBeDefined();
    const { event, context } = received!;
    expect(Object.keys(event)).toEqual(['Records']);
    expect(event.Records).toHaveLength(1);
    const record = event.Records[0]!;
    expect(Object.keys(record).sort()).toEqual(
      ['attributes', 'awsRegion', 'body', 'eventSource', 'eventSourceARN', 'md5OfBody', 'messageAttributes', 'messageId', 'receiptHandle'],
    );
    expect(record).toMatchObject({
      messageId: sent.MessageId,
      body,
      md5OfBody: createHash('md5').update(body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: LOCAL_REGION,
    });
    expect(queue.arn).toMatch(/^arn:aws:sqs:us-east-1:\d{12}:event-notifications$/);
    expect(record.receiptHandle).toMatch(/\S/);
    expect(record.attributes.ApproximateReceiveCount).toBe('1');
    expect(record.attributes.SentTimestamp).toMatch(/^\d{13}$/);
    expect(record.attributes.ApproximateFirstReceiveTimestamp).toMatch(/^\d{13}$/);
    expect(Number(record.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(Number(record.attributes.SentTimestamp));
    expect(record.attributes.SenderId).toMatch(/\S/);
    // Lambda's camelCase form, not the SDK's PascalCase one.
    expect(record.messageAttributes).toEqual({
      kind: expect.objectContaining({ dataType: 'String', stringValue: 'order.created' }),
      attempt: expect.objectContaining({ dataType: 'Number', stringValue: '3' }),
      digest: expect.objectContaining({ dataType: 'Binary', binaryValue: digest.toString('base64') }),
    });
    for (const attribute of Object.values(record.messageAttributes)) {
      expect(Object.keys(attribute)).not.toContain('DataType');
      expect(Object.keys(attribute)).not.toContain('StringValue');
    }
    expect(context.functionName).toBe('queue-event-notifications');
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(0);
    // A handler that returns nothing succeeded: the message is deleted.
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('deletes what succeeded and returns the batchItemFailures after the visibility timeout', async () => {
    const queue = await createQueue(sqs, 'poller-partial', { VisibilityTimeout: '1' });
    const { handler, deliveries } = recordingHandler((event) =>
      failuresFor(event, (record) => record.body === 'b' && record.attributes.ApproximateReceiveCount === '1'),
    );
    const poller = await manualPoller(queue, handler);
    const ids = { a: await send(queue, 'a'), b: await send(queue, 'b'), c: await send(queue, 'c') };

    expect(await poller.pollOnce()).toBe(3);
    expect(deliveries[0]!.map((record) => record.body).sort()).toEqual(['a', 'b', 'c']);
    // a and c are gone; b was left in flight, not deleted.
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 1 });

    // b returns once its 1 s visibility timeout has passed, with its receive count raised.
    expect(await pollUntil(poller, 1)).toBe(1);
    expect(deliveries).toHaveLength(2);
    expect(deliveries[1]!.map((record) => [record.messageId, record.body, record.attributes.ApproximateReceiveCount])).toEqual([
      [ids.b, 'b', '2'],
    ]);
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('leaves the whole batch to return when the handler throws', async () => {
    const queue = await createQueue(sqs, 'poller-throws', { VisibilityTimeout: '1' });
    const errors: unknown[] = [];
    let calls = 0;
    const { handler, deliveries } = recordingHandler(() => {
      if (++calls === 1) throw new Error('consumer crashed');
    });
    const poller = await manualPoller(queue, handler, { onError: (error) => errors.push(error) });
    await send(queue, 'x');
    await send(queue, 'y');

    expect(await poller.pollOnce()).toBe(2);
    expect(errors).toEqual([expect.objectContaining({ message: 'consumer crashed' })]);
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 2 });

    expect(await pollUntil(poller, 2)).toBe(2);
    const redelivered = deliveries.slice(1).flat();
    expect(redelivered.map((record) => [record.body, record.attributes.ApproximateReceiveCount]).sort()).toEqual([
      ['x', '2'],
      ['y', '2'],
    ]);
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  // Known gap (see the report on infra/local/queue-poller.ts): Lambda treats a response whose
  // itemIdentifier is empty, null or names no message of the batch as a failure of the whole
  // batch; the poller ignores such entries and deletes everything. Drop `.fails` once fixed.
  it('fails the whole batch when a batchItemFailures entry names no message of the batch', async () => {
    const queue = await createQueue(sqs, 'poller-bad-identifier');
    const poller = await manualPoller(queue, async () => ({ batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }));
    await send(queue, 'p');
    await send(queue, 'q');
    expect(await poller.pollOnce()).toBe(2);
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 2 });
  });

  it('stops after the round in flight: the handler finishes, its messages are deleted, nothing more is received', async () => {
    const queue = await createQueue(sqs, 'poller-stop');
    let entered!: () => void;
    const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const handlerReleased = new Promise<void>((resolve) => (release = resolve));
    const bodies: string[] = [];
    let handlerFinished = false;
    const poller = startPoller({
      sqs,
      queueName: queue.name,
      queueUrl: queue.url,
      queueArn: queue.arn,
      region: LOCAL_REGION,
      batchSize: 10,
      waitSeconds: 1,
      handler: async (event) => {
        bodies.push(...event.Records.map((record) => record.body));
        entered();
        await handlerReleased;
        handlerFinished = true;
      },
    });

    await send(queue, 'first');
    await handlerEntered;
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    await send(queue, 'after stop');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false); // still waiting for the handler

    release();
    await stopping;
    expect(handlerFinished).toBe(true);
    expect(bodies).toEqual(['first']);
    // 'first' was deleted before stop() resolved; 'after stop' was never received.
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 1, inFlight: 0 });
    const left = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }),
    );
    expect(left.Messages?.map((message) => [message.Body, message.Attributes?.ApproximateReceiveCount])).toEqual([['after stop', '1']]);
  });

  it('keeps receiving while a batch is in flight: a slow batch holds back no message queued after it', async () => {
    const queue = await createQueue(sqs, 'poller-side-by-side');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    const poller = startPoller({
      sqs,
      queueName: queue.name,
      queueUrl: queue.url,
      queueArn: queue.arn,
      region: LOCAL_REGION,
      batchSize: 10,
      waitSeconds: 1,
      handler: async (event) => {
        // A batch with the slow message is held (a license script that does not answer).
        if (event.Records.some((record) => record.body === 'slow')) await released;
        handled.push(...event.Records.map((record) => record.body));
      },
    });
    try {
      await send(queue, 'slow');
      await until(async () => (await queueCounts(sqs, queue.url)).inFlight === 1);
      for (const body of ['b1', 'b2', 'b3']) await send(queue, body);
      // Handled and deleted while the slow batch is still in flight.
      await until(async () => handled.length === 3 && (await queueCounts(sqs, queue.url)).inFlight === 1);
      expect(handled.sort()).toEqual(['b1', 'b2', 'b3']);
      expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 1 });
    } finally {
      release();
      await poller.stop();
    }
    // stop() waited for the slow batch: handled and deleted.
    expect(handled).toContain('slow');
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('handles at most maxBatches batches at once', async () => {
    const queue = await createQueue(sqs, 'poller-bounded');
    const releases: Array<() => void> = [];
    const entered: string[] = [];
    const poller = startPoller({
      sqs,
      queueName: queue.name,
      queueUrl: queue.url,
      queueArn: queue.arn,
      region: LOCAL_REGION,
      batchSize: 1,
      maxBatches: 2,
      waitSeconds: 1,
      handler: async (event) => {
        entered.push(event.Records[0]!.body);
        await new Promise<void>((resolve) => releases.push(resolve));
      },
    });
    try {
      for (const body of ['m1', 'm2', 'm3']) await send(queue, body);
      await until(async () => entered.length === 2);
      // A bounded wait for something that must not happen: a free poller receives every 50 ms.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(entered).toHaveLength(2);
      expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 1, inFlight: 2 });
      releases[0]!();
      await until(async () => entered.length === 3);
    } finally {
      // Releases every batch, including one that enters while the poller stops.
      const releasing = setInterval(() => releases.forEach((release) => release()), 20);
      await poller.stop();
      clearInterval(releasing);
    }
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('moves a message to its dead-letter queue after maxReceiveCount failed receives', async () => {
    const dlq = await createQueue(sqs, 'poller-redrive-dlq');
    const queue = await createQueue(sqs, 'poller-redrive', {
      VisibilityTimeout: '1',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 }),
    });
    const { handler, deliveries } = recordingHandler((event) => failuresFor(event, () => true));
    const poller = await manualPoller(queue, handler);
    const id = await send(queue, 'poison');

    expect(await poller.pollOnce()).toBe(1);
    expect(await pollUntil(poller, 1)).toBe(1);
    // The third receive finds the message past maxReceiveCount: it goes to the DLQ instead.
    expect(await poller.pollOnce(5)).toBe(0);

    expect(deliveries.flat().map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    expect(await queueCounts(sqs, queue.url)).toEqual({ visible: 0, inFlight: 0 });
    const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    expect(dead.Messages?.map((message) => [message.MessageId, message.Body])).toEqual([[id, 'poison']]);
  });

  it('creates every platform queue with its dead-letter queue and redrive policy, as shared/app/queues.ts says', async () => {
    expect(emulators.queues.map((queue) => queue.name)).toEqual(queues.map((queue) => queue.name));
    for (const definition of queues) {
      const attributes = await queueAttributes(sqs, platformQueue(emulators, definition.name).url);
      expect(attributes.VisibilityTimeout).toBe(String(definition.visibilityTimeoutSeconds));
      const policy = JSON.parse(attributes.RedrivePolicy ?? '{}') as { deadLetterTargetArn?: string; maxReceiveCount?: number | string };
      expect(policy.deadLetterTargetArn).toBe(`${platformQueue(emulators, definition.name).arn}-dlq`);
      expect(Number(policy.maxReceiveCount)).toBe(definition.maxReceiveCount);
    }
  });
});
