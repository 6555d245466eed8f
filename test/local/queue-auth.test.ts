/**
 * Local queue clients mark requests as signed without signing them (shared/store/client.ts
 * `localUnsignedAuth`): fauxqs checks no signature, and still reads the region from the
 * credential scope; the cloud (no endpoint) keeps the SDK's SigV4.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localClientOptions, localUnsignedAuth } from '../../shared/store/client';

const dir = mkdtempSync(join(tmpdir(), 'cartwheel-queue-auth-'));
let fauxqs: FauxqsServer;

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false, dataDir: join(dir, 'queues'), s3StorageDir: join(dir, 'objects'), defaultRegion: 'us-east-1' });
});
afterAll(async () => {
  await fauxqs.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('local queue clients without SigV4', () => {
  it('send the fixed authorization with the region, and fauxqs serves them', async () => {
    const sqs = new SQSClient({ region: 'eu-west-1', ...localClientOptions(fauxqs.address), ...localUnsignedAuth(fauxqs.address) });
    const sent: string[] = [];
    sqs.middlewareStack.add((next) => async (args) => {
      sent.push((args.request as { headers: Record<string, string> }).headers.authorization!);
      return next(args);
    }, { step: 'finalizeRequest', priority: 'low', name: 'recordAuthorization' });

    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'unsigned-test' }));
    // fauxqs took the region from the credential scope.
    expect(QueueUrl).toContain('eu-west-1');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'hello' }));
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    expect(received.Messages?.map((message) => message.Body)).toEqual(['hello']);
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: received.Messages![0]!.ReceiptHandle }));

    expect(new Set(sent)).toEqual(new Set(['AWS4-HMAC-SHA256 Credential=local/20200101/eu-west-1/sqs/aws4_request, SignedHeaders=host, Signature=0']));
    sqs.destroy();
  });

  it('changes nothing without a local endpoint (the cloud signs)', () => {
    expect(localUnsignedAuth(undefined)).toEqual({});
  });
});
