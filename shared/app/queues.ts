/**
 * The queue table: every SQS work queue of the platform, as data.
 *
 * The CDK stack creates each queue with its dead-letter queue and redrive policy (and, once a
 * consumer exists, an event source mapping with ReportBatchItemFailures); the local runtime
 * creates the same queues in fauxqs and polls them, calling the same consumer with the same
 * SQS event shape.
 *
 * Attempts are counted in DynamoDB, not by receives (architecture.md, "Asynchronous work"),
 * so `maxReceiveCount` sits well above attempts + re-hide hops: the DLQ only catches
 * messages a worker could not handle at all.
 */
import type { QueueDefinition } from '../http/manifest';
import { eventsModule, licensesModule } from './modules';

export type { QueueConsumerDefinition, QueueDefinition } from '../http/manifest';

/** Every work queue: what the modules' manifests declare they drain. */
export const queues: readonly QueueDefinition[] = [...eventsModule.queues, ...licensesModule.queues];

/** The environment variable that carries a queue's URL to handlers. */
export function queueUrlVariable(name: string): string {
  return `CARTWHEEL_QUEUE_URL_${name.toUpperCase().replace(/-/g, '_')}`;
}
