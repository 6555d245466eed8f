/**
 * Queue and object-storage adapters on SDK v3. The same code serves the cloud and the local
 * runtime: only the endpoint differs (fauxqs locally), as with DynamoDB.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { traced } from '../../core/tracing';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { localClientOptions, localUnsignedAuth } from '../../store/client';
import type { ObjectStorage, QueuePort } from '../ports';
import { onFirstUse } from './on-first-use';

// Loaded when an object is first touched: most functions (and a local start) never do.
const s3Sdk = onFirstUse(() => import('@aws-sdk/client-s3'));

/** SQS by logical queue name (shared/app/queues.ts); clients are made on first use. */
export function sqsQueues(options: { region: string; endpoint?: string; urls: Record<string, string> }): QueuePort {
  let sqs: SQSClient | undefined;
  const client = () => (sqs ??= traced(new SQSClient({ region: options.region, ...localClientOptions(options.endpoint), ...localUnsignedAuth(options.endpoint) })));
  const urlOf = (queue: string) => {
    const url = options.urls[queue];
    if (!url) throw new Error(`No URL for queue ${queue}: this function was not granted it`);
    return url;
  };
  return {
    async send(queue, body, sendOptions = {}) {
      await client().send(new SendMessageCommand({ QueueUrl: urlOf(queue), MessageBody: body, ...(sendOptions.delaySeconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.floor(sendOptions.delaySeconds))) } : {}) }));
    },
    async sendBatch(queue, bodies) {
      const url = urlOf(queue);
      const chunks = Array.from({ length: Math.ceil(bodies.length / SQS_BATCH_MAX) }, (_, index) => bodies.slice(index * SQS_BATCH_MAX, (index + 1) * SQS_BATCH_MAX));
      const failed = await Promise.all(
        chunks.map(async (chunk) => {
          const entries = chunk.map((body, index) => ({ Id: String(index), MessageBody: body }));
          // A call that fails as a whole sent nothing of its chunk.
          const result = await client().send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries })).catch(() => ({ Failed: entries.map((entry) => ({ Id: entry.Id })) }));
          return (result.Failed ?? []).map((failure) => chunk[Number(failure.Id)]!);
        }),
      );
      return failed.flat();
    },
  };
}

/** Messages SQS takes in one SendMessageBatch. */
const SQS_BATCH_MAX = 10;

/** S3 with the platform's two buckets; the client (and its package) is made on first use. */
export function s3Objects(options: { region: string; endpoint?: string; buckets: { functions: string; apps: string } }): ObjectStorage {
  let s3: S3Client | undefined;
  const client = async () => {
    const sdk = await s3Sdk();
    s3 ??= traced(new sdk.S3Client({ region: options.region, forcePathStyle: Boolean(options.endpoint), ...localClientOptions(options.endpoint) }));
    return { s3, sdk };
  };
  return {
    async put(bucket, key, body, contentType) {
      const { s3, sdk } = await client();
      await s3.send(new sdk.PutObjectCommand({ Bucket: options.buckets[bucket], Key: key, Body: body, ...(contentType ? { ContentType: contentType } : {}) }));
    },
    async get(bucket, key) {
      const { s3, sdk } = await client();
      try {
        const result = await s3.send(new sdk.GetObjectCommand({ Bucket: options.buckets[bucket], Key: key }));
        return Buffer.from(await result.Body!.transformToByteArray());
      } catch (error) {
        if (error instanceof sdk.NoSuchKey || (error as Error).name === 'NoSuchKey') return undefined;
        throw error;
      }
    },
    async delete(bucket, key) {
      const { s3, sdk } = await client();
      await s3.send(new sdk.DeleteObjectCommand({ Bucket: options.buckets[bucket], Key: key }));
    },
  };
}
