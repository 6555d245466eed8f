/**
 * The sample delivery (events.md §10): one notification of made-up (or caller-given) data sent
 * through a subscription now, with its method, format, credentials, header and key, whether the
 * subscription is active or not. It reuses the delivery attempt (`attemptDelivery`) on an
 * event that exists only in memory: nothing is stored and nothing is retried.
 */
import { ID_ALPHABET, randomString } from '../../../core/ids';
import type { Platform } from '../../../platform/ports';
import { eventTypeEntry, type EventRecord, type RecordedRequest, openSubscription, type EventSubscriptionRecord } from '../../../modules/events';
import { pendingEvent, renderContextFor } from '../fan-out';
import type { JsonObject } from '../body';
import { attemptDelivery, MANUAL_TIMEOUT_MS } from './attempt';

/** The time limit of a sample attempt: the call waits for it within the platform's 30 s (§10). */
export const SAMPLE_TIMEOUT_MS = MANUAL_TIMEOUT_MS;

/** The §10 answer, `object` aside. */
export interface SampleDeliveryResult {
  success: boolean;
  event_id: string;
  status_code: number | null;
  duration_ms: number;
  error: { code: string; message: string } | null;
  response_body: string | null;
  request: RecordedRequest | null;
}

/** A made-up id of a sample object. */
function sampleId(): string {
  return `sample_${randomString(10, ID_ALPHABET)}`;
}

/**
 * Made-up data of `resource` (the catalog's resource of the subscription's type): its `object`,
 * its id and a few plausible values, every id starting with `sample_`.
 */
export function sampleData(resource: string, dateCreated: string, test: boolean): JsonObject {
  const data: JsonObject = { object: resource, [`${resource}_id`]: sampleId(), test, date_created: dateCreated };
  switch (resource) {
    case 'order':
    case 'cart':
    case 'invoice':
      return { ...data, currency: 'USD', total: 19, customer: { customer_id: sampleId(), name: 'Sample Customer', email: 'sample@example.test' }, items: [{ product_id: sampleId(), name: 'Sample product', quantity: 1, price: 19 }] };
    case 'payment':
    case 'refund':
      return { ...data, currency: 'USD', amount: 19, status: 'completed', order_id: sampleId() };
    case 'subscription':
      return { ...data, status: 'active', product_id: sampleId(), customer_id: sampleId() };
    case 'product':
      return { ...data, name: 'Sample product', type: 'digital', active: true, prices: [{ currency: 'USD', price: 19 }] };
    case 'shipment':
      return { ...data, order_id: sampleId(), courier: 'Sample courier', tracking_number: 'SAMPLE0001' };
    case 'license_request':
      return { ...data, status: 'failed', order_id: sampleId() };
    case 'license_service':
      return { ...data, name: 'Sample license service', type: 'list', remaining_count: 3 };
    default:
      return data;
  }
}

/**
 * Sends one sample notification through `record` and answers what happened (a destination's
 * error is an unsuccessful result, not a failure of the call). `data` replaces the sample data.
 *
 * @example const result = await sendSampleDelivery(platform, subscription, undefined);
 */
export async function sendSampleDelivery(platform: Platform, record: EventSubscriptionRecord, data: JsonObject | undefined): Promise<SampleDeliveryResult> {
  const subscription = await openSubscription(record, platform.secrets);
  const now = platform.clock.nowMs();
  const scope = { accountId: record.account_id, mode: record.mode };
  const context = await renderContextFor(platform.site, scope, record, now);
  const test = record.mode === 'test';
  const eventId = `test_${randomString(12, ID_ALPHABET)}`;
  const fingerprint = `test_${randomString(12, ID_ALPHABET)}`;
  const dateCreated = context.date(now)!;
  const resource = eventTypeEntry(record.event_type)?.resource ?? record.event_type.split(':')[0]!;
  const finalData = data ?? sampleData(resource, dateCreated, test);
  // In memory only: the attempt reads these fields and writes nothing.
  const event: EventRecord = pendingEvent(record, { eventId, fingerprint, type: record.event_type, dateCreated, data: finalData }, now);
  const { attempt, request } = await attemptDelivery(platform, event, subscription, { number: 1, trigger: 'manual', timeoutMs: SAMPLE_TIMEOUT_MS });
  return {
    success: attempt.success,
    event_id: eventId,
    status_code: attempt.status_code,
    duration_ms: attempt.duration_ms,
    error: attempt.error,
    response_body: attempt.response_body,
    request,
  };
}
