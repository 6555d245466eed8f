/**
 * The local stand-in for Lambda's SQS event source mapping: receives from a queue, calls
 * the consumer handler with the SQS event shape, deletes what succeeded and leaves the
 * `batchItemFailures` (or the whole batch, when the handler throws) to reappear after the
 * visibility timeout, exactly as ReportBatchItemFailures does in the cloud.
 *
 * Like the mapping, it does not wait for a batch before taking the next: Lambda runs batches in
 * concurrent invocations, so one batch held by a slow attempt (a license script or an event
 * receiver that takes its full 30 s) never holds back messages queued after it. The poller keeps
 * receiving while batches are in flight, up to `maxBatches` at once (Lambda scales its
 * invocations with the backlog; one local process keeps a bound), and `stop` waits for them all.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext } from './api-event';

/** A queue consumer: the handler export of a queue worker module. */
export type QueueHandler = (event: SQSEvent, context: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse | void>;

/** What a poller needs. */
export interface PollerOptions {
  sqs: SQSClient;
  queueName: string;
  queueUrl: string;
  queueArn: string;
  region: string;
  handler: QueueHandler;
  batchSize: number;
  /** Batches handled at once (Lambda's concurrent invocations); default 10. */
  maxBatches?: number;
  /** Long-poll wait per receive, seconds (short, so shutdown is prompt). */
  waitSeconds?: number;
  /** Start the background loop (default). `false`: rounds run only on `pollOnce` (tests). */
  autoStart?: boolean;
  onError?: (error: unknown) => void;
}

/** A running poller. */
export interface Poller {
  /** Runs one receive-and-handle round now; resolves to the number of messages handled. */
  pollOnce(waitSeconds?: number): Promise<number>;
  /** Stops after the receive in progress; resolves once every batch in flight was handled. */
  stop(): Promise<void>;
}

/** Converts received SQS messages into the Lambda event shape. */
export function toSqsEvent(
  messages: Array<{ MessageId?: string; ReceiptHandle?: string; Body?: string; MD5OfBody?: string; Attributes?: Record<string, string>; MessageAttributes?: Record<string, { DataType?: string; StringValue?: string; BinaryValue?: Uint8Array }> }>,
  queueArn: string,
  region: string,
): SQSEvent {
  return {
    Records: messages.map(
      (message): SQSRecord => ({
        messageId: message.MessageId!,
        receiptHandle: message.ReceiptHandle!,
        body: message.Body ?? '',
        attributes: {
          ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
          SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
          SenderId: message.Attributes?.SenderId ?? 'local',
          ApproximateFirstReceiveTimestamp: message.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
        },
        messageAttributes: Object.fromEntries(
          Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
            name,
            {
              dataType: value.DataType ?? 'String',
              // Lambda always sends these two (reserved, empty).
              stringListValues: [],
              binaryListValues: [],
              ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
              ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
            },
          ]),
        ),
        md5OfBody: message.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: queueArn,
        awsRegion: region,
      }),
    ),
  };
}

/** Starts polling a queue in the background. */
export function startPoller(options: PollerOptions): Poller {
  let stopped = false;

  const receive = async (waitSeconds: number) => {
    const received = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        // SQS hands out at most 10 per receive (Lambda batches more with a batching window).
        MaxNumberOfMessages: Math.min(options.batchSize, 10),
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    return received.Messages ?? [];
  };

  /** One batch: the handler, then the deletion of what it did not report as failed. */
  const handle = async (messages: Awaited<ReturnType<typeof receive>>): Promise<void> => {
    const event = toSqsEvent(messages, options.queueArn, options.region);
    let failed: Set<string>;
    try {
      const response = await options.handler(event, lambdaContext(`queue-${options.queueName}`, 120_000));
      const ids = new Set(messages.map((message) => message.MessageId!));
      const named = (response?.batchItemFailures ?? []).map((failure) => failure?.itemIdentifier);
      // As Lambda: an empty, null or unknown itemIdentifier fails the whole batch.
      failed = named.every((id) => typeof id === 'string' && ids.has(id)) ? new Set(named as string[]) : ids;
    } catch (error) {
      options.onError?.(error);
      return; // the whole batch returns after its visibility timeout
    }
    const done = messages.filter((message) => !failed.has(message.MessageId!));
    if (done.length) {
      const deleted = await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
        }),
      );
      // A partial failure is an HTTP 200: those messages will be delivered again.
      if (deleted.Failed?.length) {
        options.onError?.(new Error(`DeleteMessageBatch failed for ${deleted.Failed.length} message(s) of ${options.queueName}: ${deleted.Failed.map((entry) => entry.Code).join(', ')}`));
      }
    }
  };

  const maxBatches = Math.max(1, options.maxBatches ?? 10);
  const inFlight = new Set<Promise<void>>();
  /** Starts a batch without waiting for it; it leaves `inFlight` when handled. */
  const dispatch = (messages: Awaited<ReturnType<typeof receive>>) => {
    const batch: Promise<void> = handle(messages)
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => inFlight.delete(batch));
    inFlight.add(batch);
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const loop = async () => {
    while (!stopped && options.autoStart !== false) {
      if (inFlight.size >= maxBatches) {
        await Promise.race(inFlight);
        continue;
      }
      try {
        // Idle, a long poll; with batches in flight, short receives, so that a stop asked
        // meanwhile is not followed by a receive already waiting on the queue.
        const messages = await receive(inFlight.size ? 0 : (options.waitSeconds ?? 1));
        // A receive in progress when the stop came still has its messages handled.
        if (messages.length) dispatch(messages);
        else if (!stopped) await pause(50);
      } catch (error) {
        options.onError?.(error);
        if (!stopped) await pause(50);
      }
    }
  };
  const running = loop();

  return {
    pollOnce: async (waitSeconds = 0) => {
      await Promise.all(inFlight);
      const messages = await receive(waitSeconds);
      if (messages.length) await handle(messages);
      return messages.length;
    },
    stop: async () => {
      stopped = true;
      await running;
      while (inFlight.size) await Promise.all(inFlight);
    },
  };
}
