/**
 * Worker of the `event-notifications` queue (infra/queues.ts): runs queued fan-outs
 * (shared/events/fan-out.ts), event deliveries (shared/events/delivery/deliver-event.ts) and order
 * confirmation emails (shared/commerce/checkout/confirmation.ts) under the claim they were queued with, reporting
 * partial batch failures. The local runtime's poller calls `consumer` with its own platform.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { confirmationEmailWork } from '../../shared/commerce/checkout/confirmation';
import { dueWorkConsumer } from '../../shared/due-work/consumer';
import { eventDeliveryWork } from '../../shared/events/delivery/deliver-event';
import { eventFanOutDueWork } from '../../shared/events/fan-out';
import { cloudPlatform } from '../../shared/platform/cloud';
import type { Platform } from '../../shared/platform/ports';

/** The SQS handler over a platform (the local runtime passes its own). */
export function consumer(platform: Platform) {
  return dueWorkConsumer(platform, [eventFanOutDueWork, eventDeliveryWork, confirmationEmailWork]);
}

let cloud: ReturnType<typeof consumer> | undefined;

/** The Lambda handler in the cloud (event source mapping with ReportBatchItemFailures). */
export const handler = (event: SQSEvent, context?: Context) => (cloud ??= consumer(cloudPlatform()))(event, context);
