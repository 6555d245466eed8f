/**
 * The SQS queue adapter (shared/platform/adapters/aws-clients.ts) against a mocked SDK client: single
 * sends, batches of up to ten per SendMessageBatch, and what a batch answers when SQS refuses
 * some entries or the whole call; and the request relay (fan-out-relay.ts) sending the queued
 * work of one request to each queue as one batch.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { noteQueued, withRelay } from '../../../shared/work/relay';
import { sqsQueues } from '../../../shared/platform/adapters/aws-clients';
import { testPlatform } from '../../support/platform';

const sqs = mockClient(SQSClient);
const queues = sqsQueues({ region: 'us-east-1', urls: { jobs: 'https://sqs.example/jobs' } });

describe('sqsQueues', () => {
  beforeEach(() => sqs.reset());

  it('sends one message with its delay, and refuses a queue it has no URL for', async () => {
    sqs.on(SendMessageCommand).resolves({});
    await queues.send('jobs', 'a', { delaySeconds: 1200 });
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({ QueueUrl: 'https://sqs.example/jobs', MessageBody: 'a', DelaySeconds: 900 });
    await expect(queues.send('other', 'b')).rejects.toThrow(/No URL for queue other/);
  });

  it('sends 23 messages in three batches and answers only the entries SQS refused', async () => {
    sqs.on(SendMessageBatchCommand).callsFake(async (input: { Entries: Array<{ Id: string; MessageBody: string }> }) => ({
      Successful: [],
      Failed: input.Entries.filter((entry) => entry.MessageBody === 'm12').map((entry) => ({ Id: entry.Id, SenderFault: false, Code: 'InternalError' })),
    }));
    const bodies = Array.from({ length: 23 }, (_, index) => `m${index}`);
    expect(await queues.sendBatch('jobs', bodies)).toEqual(['m12']);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries!.map((entry) => entry.MessageBody));
    expect(calls.map((entries) => entries.length)).toEqual([10, 10, 3]);
    expect(calls.flat()).toEqual(bodies);
  });

  it('answers every body of a batch whose call failed as a whole', async () => {
    sqs.on(SendMessageBatchCommand).rejects(new Error('throttled'));
    expect(await queues.sendBatch('jobs', ['x', 'y'])).toEqual(['x', 'y']);
  });
});

describe('the request relay', () => {
  it('sends what one request queued as one batch per queue, after the work answered', async () => {
    const platform = testPlatform();
    const batches: Array<{ queue: string; bodies: readonly string[] }> = [];
    const singles: string[] = [];
    platform.queues = {
      send: async (queue) => void singles.push(queue),
      sendBatch: async (queue, bodies) => {
        batches.push({ queue, bodies });
        return [];
      },
    };
    const message = (ref: string) => ({ kind: 'event-fanout' as const, account_id: 'A', mode: 'test' as const, ref, claim_id: 'C' });
    const answer = await withRelay(platform, async () => {
      noteQueued('event-notifications', message('r1'));
      noteQueued('event-notifications', message('r2'));
      noteQueued('license-requests', message('r3'));
      expect(batches).toEqual([]);
      return 'answered';
    });
    expect(answer).toBe('answered');
    expect(batches.map((batch) => [batch.queue, batch.bodies.map((body) => JSON.parse(body).ref)])).toEqual([['event-notifications', ['r1', 'r2']]]);
    expect(singles).toEqual(['license-requests']);
  });

  it('answers even when the queue refuses everything (the sweep runs the work later)', async () => {
    const platform = testPlatform();
    platform.queues = { send: () => Promise.reject(new Error('down')), sendBatch: (_queue, bodies) => Promise.resolve([...bodies]) };
    const message = (ref: string) => ({ kind: 'event-fanout' as const, account_id: 'A', mode: 'test' as const, ref, claim_id: 'C' });
    await expect(
      withRelay(platform, async () => {
        noteQueued('event-notifications', message('r1'));
        noteQueued('event-notifications', message('r2'));
        noteQueued('license-requests', message('r3'));
        return 'answered';
      }),
    ).resolves.toBe('answered');
  });
});
