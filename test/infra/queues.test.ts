import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONSUMER_MAX_CONCURRENCY } from '../../infra/cloud/stack';
import { type QueueDefinition, queues, queueUrlVariable } from '../../shared/app/queues';
import { queueUrlOutput } from '../../infra/cloud/outputs';
import { type Synthesized, type TemplateJson, allowedActions, functionWithRole, referencedId, resourcesOfType, roleStatements, synthesize, synthTimeout } from './synthesize';

/** Work queues (those with a redrive policy) with the logical id of their DLQ. */
function workQueues(json: TemplateJson): { id: string; dlqId: string; props: Record<string, any> }[] {
  return resourcesOfType(json, 'AWS::SQS::Queue')
    .map((id) => ({ id, props: json.Resources[id]!.Properties ?? {} }))
    .filter((queue) => queue.props.RedrivePolicy !== undefined)
    .map((queue) => ({ ...queue, dlqId: referencedId(queue.props.RedrivePolicy.deadLetterTargetArn)! }));
}

/** The work queue built for a queue name, found through its URL output. */
function queueFor(json: TemplateJson, name: string): { id: string; dlqId: string; props: Record<string, any> } {
  const id = referencedId(json.Outputs?.[queueUrlOutput(name)]?.Value);
  const queue = workQueues(json).find((candidate) => candidate.id === id);
  if (!queue) throw new Error(`No work queue for ${name}`);
  return queue;
}

describe('work queues from shared/app/queues.ts', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize();
  }, synthTimeout);

  it('creates a queue and a dead-letter queue per entry', () => {
    synth.template.resourceCountIs('AWS::SQS::Queue', queues.length * 2);
    expect(workQueues(synth.json)).toHaveLength(queues.length);
  });

  it.each(queues.map((q) => [q.name, q] as const))('%s: redrive, visibility timeout and SSE', (name, definition) => {
    const queue = queueFor(synth.json, name);
    expect(queue.props.RedrivePolicy.maxReceiveCount).toBe(definition.maxReceiveCount);
    expect(queue.props.VisibilityTimeout).toBe(definition.visibilityTimeoutSeconds);
    expect(queue.props.SqsManagedSseEnabled).toBe(true);
    const dlq = synth.json.Resources[queue.dlqId]!;
    expect(dlq.Type).toBe('AWS::SQS::Queue');
    expect(dlq.Properties?.SqsManagedSseEnabled).toBe(true);
  });

  it.each(queues.map((q) => [q.name] as const))('%s: queue and DLQ deny non-TLS access', (name) => {
    const queue = queueFor(synth.json, name);
    for (const id of [queue.id, queue.dlqId]) {
      synth.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it.each(queues.map((q) => [q.name] as const))('%s: alarm on any visible DLQ message', (name) => {
    const queue = queueFor(synth.json, name);
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue.dlqId, 'QueueName'] } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('maps exactly the queues whose entry has a consumer (the event delivery and license request workers)', () => {
    expect(queues.filter((q) => q.consumer).map((q) => q.name)).toEqual(['event-notifications', 'license-requests']);
    synth.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
    for (const name of ['event-notifications', 'license-requests']) {
      const consumer = synth.json.Resources[functionWithRole(synth.json, `consumer:${name}`)]!.Properties!;
      // An attempt may take 30 s: the function outlives it, and the queue hides a batch six times as long.
      expect(consumer.Timeout).toBeGreaterThanOrEqual(35);
    }
  });

  it.each(queues.filter((q) => q.consumer).map((q) => [q.name, q] as const))(
    '%s: batches go to the consumer at once, side by side, reporting batch item failures',
    (name, definition) => {
      const consumerId = functionWithRole(synth.json, `consumer:${name}`);
      const mappings = resourcesOfType(synth.json, 'AWS::Lambda::EventSourceMapping')
        .map((id) => synth.json.Resources[id]!.Properties!)
        .filter((mapping) => mapping.FunctionName?.Ref === consumerId);
      expect(mappings).toHaveLength(1);
      const mapping = mappings[0]!;
      expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': [queueFor(synth.json, name).id, 'Arn'] });
      expect(mapping.BatchSize).toBe(definition.consumer!.batchSize);
      expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      // No batching window: the first attempt starts right after the commit (licenses.md §4.1,
      // events.md §6.1), not when a window closes.
      expect(mapping.MaximumBatchingWindowInSeconds ?? 0).toBe(0);
      // A high cap on concurrent batches (issue 28: a burst of deliveries must not take the
      // account concurrency checkout needs), far above what issue 22 item 6 needs: Lambda still adds
      // invocations with the backlog up to it, so batches held by slow scripts do not hold back
      // those queued after them. No reserved concurrency. Records of one batch run side by side
      // in the consumer (shared/work/consumer.ts, test/work/consumer.test.ts).
      expect(mapping.ScalingConfig).toEqual({ MaximumConcurrency: DEFAULT_CONSUMER_MAX_CONCURRENCY });
      expect(synth.json.Resources[consumerId]!.Properties!.ReservedConcurrentExecutions).toBeUndefined();
    },
  );

  it('outputs every queue URL', () => {
    for (const definition of queues) {
      expect(referencedId(synth.json.Outputs?.[queueUrlOutput(definition.name)]?.Value)).toBe(
        queueFor(synth.json, definition.name).id,
      );
    }
  });
});

describe('a queue with a consumer', () => {
  const withConsumer: QueueDefinition[] = [
    {
      name: 'event-notifications',
      description: 'test queue with a consumer',
      visibilityTimeoutSeconds: 180,
      maxReceiveCount: 7,
      consumer: {
        entry: 'test/infra/fixtures/handler.ts',
        batchSize: 5,
        memoryMb: 512,
        grants: { table: 'read', secrets: 'decrypt', email: false, sendsTo: [] },
      },
    },
    { name: 'license-requests', description: 'test queue without a consumer', visibilityTimeoutSeconds: 60, maxReceiveCount: 3 },
  ];
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({ queues: withConsumer });
  }, synthTimeout);

  it('maps exactly the queue that has a consumer, reporting batch item failures', () => {
    synth.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    const consumerId = functionWithRole(synth.json, 'consumer:event-notifications');
    const queue = queueFor(synth.json, 'event-notifications');
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: consumerId },
      EventSourceArn: { 'Fn::GetAtt': [queue.id, 'Arn'] },
      BatchSize: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(queue.props.RedrivePolicy.maxReceiveCount).toBe(7);
  });

  it('builds the consumer like the family functions, with a timeout well inside the visibility timeout', () => {
    const consumer = synth.json.Resources[functionWithRole(synth.json, 'consumer:event-notifications')]!.Properties!;
    expect(consumer).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], MemorySize: 512, Handler: 'index.handler' });
    expect(consumer.Timeout).toBeLessThanOrEqual(180 / 6);
    expect(consumer.Environment.Variables[queueUrlVariable('event-notifications')]).toEqual({
      Ref: queueFor(synth.json, 'event-notifications').id,
    });
  });

  it('lets the consumer receive and delete only from its own queue', () => {
    const consumerId = functionWithRole(synth.json, 'consumer:event-notifications');
    const sqsStatements = roleStatements(synth.json, consumerId).filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('sqs:')),
    );
    expect(sqsStatements.length).toBeGreaterThan(0);
    const ownQueue = queueFor(synth.json, 'event-notifications').id;
    for (const statement of sqsStatements) {
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [ownQueue, 'Arn'] });
    }
    expect(sqsStatements.flatMap((statement) => [statement.Action].flat())).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']),
    );
  });

  it('grants the consumer exactly its queue entry grants: a read-only table, decrypt only, no email', () => {
    const consumerId = functionWithRole(synth.json, 'consumer:event-notifications');
    const actions = allowedActions(synth.json, consumerId);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'kms:Decrypt']));
    for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) expect(actions).not.toContain(write);
    expect(actions).not.toContain('kms:Encrypt');
    expect(actions.filter((action) => action.startsWith('ses:'))).toEqual([]);
    expect(actions).not.toContain('sqs:SendMessage');
    const environment = synth.json.Resources[consumerId]!.Properties!.Environment.Variables;
    expect(environment.CARTWHEEL_TABLE).toBeDefined();
    expect(environment.CARTWHEEL_KMS_KEY_ID).toBeDefined();
    expect(environment.CARTWHEEL_SECRETS).toBeUndefined();
  });
});
