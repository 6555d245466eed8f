/**
 * The work queues of shared/app/queues.ts: each with a dead-letter queue, an alarm on that DLQ,
 * and (once a capability adds one) a consumer function fed by an SQS event source mapping.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type QueueDefinition, queueUrlVariable } from '../../shared/app/queues';
import { pascalCase } from './outputs';
import { type PlatformResources, PlatformFunction } from './platform-function';

/** A work queue with its dead-letter queue and the alarm that watches it. */
export interface WorkQueue {
  definition: QueueDefinition;
  queue: sqs.Queue;
  deadLetterQueue: sqs.Queue;
  alarm: cloudwatch.Alarm;
}

/** Options of the work queues: the queue table to build. */
export interface WorkQueuesProps {
  queues: readonly QueueDefinition[];
}

/**
 * Messages can wait out several retry hops (architecture.md, "Asynchronous work"), so both
 * queues keep them for the SQS maximum rather than the 4-day default.
 */
const retention = Duration.days(14);

/** Every work queue, by logical name. */
export class WorkQueues extends Construct {
  readonly byName: ReadonlyMap<string, WorkQueue>;

  constructor(scope: Construct, id: string, props: WorkQueuesProps) {
    super(scope, id);
    const byName = new Map<string, WorkQueue>();
    for (const definition of props.queues) {
      if (byName.has(definition.name)) throw new Error(`Duplicate queue name "${definition.name}"`);
      byName.set(definition.name, this.build(definition));
    }
    this.byName = byName;
  }

  /** The plain queues by name, the shape `PlatformResources.queues` expects. */
  queues(): ReadonlyMap<string, sqs.IQueue> {
    return new Map([...this.byName].map(([name, work]) => [name, work.queue]));
  }

  private build(definition: QueueDefinition): WorkQueue {
    const id = pascalCase(definition.name);
    const deadLetterQueue = new sqs.Queue(this, `${id}DeadLetterQueue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: retention,
    });
    const queue = new sqs.Queue(this, `${id}Queue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: retention,
      visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
    });
    // Any message in a DLQ is a poison message no worker could handle: alarm on the first.
    const alarm = new cloudwatch.Alarm(this, `${id}DeadLetterAlarm`, {
      alarmDescription: `Messages in the dead-letter queue of ${definition.name}: ${definition.description}`,
      metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    return { definition, queue, deadLetterQueue, alarm };
  }
}

/** Options of a queue consumer: the work queue it drains and the resources it may use. */
export interface QueueConsumerProps {
  work: WorkQueue;
  resources: PlatformResources;
  /** Most concurrent invocations the event source starts (2 to 1000), so one queue cannot take the account's concurrency. @default SQS's own scaling */
  maxConcurrency?: number;
}

/** The consumer function of one work queue, called with partial batch failure reporting. */
export class QueueConsumer extends Construct {
  readonly handler: PlatformFunction;

  constructor(scope: Construct, id: string, props: QueueConsumerProps) {
    super(scope, id);
    const { definition, queue } = props.work;
    const consumer = definition.consumer;
    if (!consumer) throw new Error(`Queue "${definition.name}" has no consumer`);
    this.handler = new PlatformFunction(this, 'Handler', {
      entry: consumer.entry,
      memoryMb: consumer.memoryMb,
      description: `Consumer of ${definition.name}: ${definition.description}`,
      // Exactly the queue entry's grants; receiving from its own queue comes from the event source.
      grants: consumer.grants,
      resources: props.resources,
      role: `consumer:${definition.name}`,
      timeout: consumerTimeout(definition),
      // Workers re-hide messages (ChangeMessageVisibility) on their own queue by URL.
      extraEnvironment: { [queueUrlVariable(definition.name)]: queue.queueUrl },
    });
    this.handler.function.addEventSource(
      new sources.SqsEventSource(queue, { batchSize: consumer.batchSize, reportBatchItemFailures: true, ...(props.maxConcurrency ? { maxConcurrency: props.maxConcurrency } : {}) }),
    );
  }
}

/**
 * AWS advises a visibility timeout of at least six times the function timeout, so a batch
 * retried after throttling is not redelivered while a previous invocation still runs.
 */
export function consumerTimeout(definition: QueueDefinition): Duration {
  return Duration.seconds(Math.min(900, Math.max(1, Math.floor(definition.visibilityTimeoutSeconds / 6))));
}
