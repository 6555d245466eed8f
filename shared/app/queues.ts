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
import type { FamilyGrants } from './routes';

/** The function that drains a queue. */
export interface QueueConsumerDefinition {
  /** Handler module (exporting `handler`, called with an SQS event). */
  entry: string;
  batchSize: number;
  memoryMb: number;
  /**
   * What the consumer may touch beyond receiving from its own queue; the CDK stack grants
   * exactly this, as for route families and schedules. Workers record attempts in the table.
   */
  grants: FamilyGrants;
}

/** One work queue, its redrive settings and (once its capability exists) its consumer. */
export interface QueueDefinition {
  /** Logical name; also the env suffix `CARTWHEEL_QUEUE_URL_<NAME>` and local queue name. */
  name: string;
  description: string;
  /** Seconds a received message stays hidden while its worker runs. */
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Consumer handler module (exporting `handler`), once the capability that drains it exists. */
  consumer?: QueueConsumerDefinition;
}

/** Every work queue. Consumers are added by the capabilities that own them. */
export const queues: readonly QueueDefinition[] = [
  {
    name: 'event-notifications',
    description: 'Notifications: event fan-out and deliveries (events.md), order confirmation emails',
    // An attempt may take 30 s and a batch runs its messages side by side: a 60 s function
    // timeout, and six times that hidden (consumerTimeout).
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 50,
    consumer: {
      entry: 'handlers/queues/event-notifications.ts',
      batchSize: 10,
      memoryMb: 256,
      // Attempts and schedules are recorded in the table; subscription secrets and the account's
      // signature key are opened; email subscriptions send through SES. Outbound HTTP needs no grant.
      grants: { table: 'readWrite', secrets: 'decrypt', email: true, sendsTo: [] },
    },
  },
  {
    name: 'license-requests',
    description: 'Outbound license requests (licenses.md)',
    // As for notifications: an attempt may take 30 s and a batch runs its messages side by side.
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 50,
    consumer: {
      entry: 'handlers/queues/license-requests.ts',
      batchSize: 10,
      memoryMb: 256,
      // Attempts, codes, licenses and orders are recorded in the table; service secrets and the
      // account's signature key are opened; a released confirmation email is sent through SES;
      // events are relayed to the notifications queue and delayed wake-ups sent to this one.
      grants: { table: 'readWrite', secrets: 'decrypt', email: true, sendsTo: ['event-notifications', 'license-requests'] },
    },
  },
];

/** The environment variable that carries a queue's URL to handlers. */
export function queueUrlVariable(name: string): string {
  return `CARTWHEEL_QUEUE_URL_${name.toUpperCase().replace(/-/g, '_')}`;
}
