/**
 * Worker of the `license-requests` queue (shared/app/queues.ts): runs automatic license request
 * attempts (shared/flows/license-fulfilment/run-request.ts) under the claim they were queued with,
 * reporting partial batch failures. The local runtime's poller calls `consumer` with its own platform.
 */
import '../../shared/app/resources';
import type { Context, SQSEvent } from 'aws-lambda';
import { dueWorkConsumer } from '../../shared/work/consumer';
import { cloudPlatform } from '../../shared/app/platforms';
import { queueHandlers } from '../../shared/app/work';
import type { Platform } from '../../shared/platform/ports';

/** The SQS handler over a platform (the local runtime passes its own). */
export function consumer(platform: Platform) {
  return dueWorkConsumer(platform, queueHandlers('license-requests'));
}

let cloud: ReturnType<typeof consumer> | undefined;

/** The Lambda handler in the cloud (event source mapping with ReportBatchItemFailures). */
export const handler = (event: SQSEvent, context?: Context) => (cloud ??= consumer(cloudPlatform()))(event, context);
