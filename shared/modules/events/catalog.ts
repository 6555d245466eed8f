/**
 * The event-type catalog (events.md §1), as data: every type a subscription may name, the
 * resource its `data` carries, and when it is emitted. `EventType` is derived from it, so an
 * emitter naming an unknown type, or the wrong resource for a type, fails the compiler.
 */

/** One event type: its code, the resource its `data` is, and when it happens. */
export interface EventTypeEntry {
  /** `resource:action`, e.g. `order:created`. */
  type: string;
  /** The `object` name of the resource carried as `data`, e.g. `order`. */
  resource: string;
  description: string;
}

/** Every event type, in the contract's order. */
export const eventTypes = [
  { type: 'order:created', resource: 'order', description: "An order is created: a cart's payment completes, an invoice becomes fully paid, or a subscription renewal is charged" },
  { type: 'order:payment_completed', resource: 'order', description: "An order's payment_status becomes completed (at creation in v1)" },
  { type: 'order:licenses_assigned', resource: 'order', description: 'Every license request of the order has reached completed' },
  { type: 'cart:payment_completed', resource: 'cart', description: 'A payment on a cart reaches completed' },
  { type: 'payment:created_success', resource: 'payment', description: 'A payment is created and ends completed (or pending)' },
  { type: 'payment:created_failure', resource: 'payment', description: 'A payment attempt is declined or fails' },
  { type: 'payment:completed', resource: 'payment', description: 'A payment reaches completed (at creation or on commit)' },
  { type: 'refund:created_success', resource: 'refund', description: 'A refund is created and succeeds' },
  { type: 'refund:created_failure', resource: 'refund', description: 'A refund attempt fails' },
  { type: 'subscription:created', resource: 'subscription', description: 'A subscription is created by the purchase of a subscription product' },
  { type: 'subscription:renewal_success', resource: 'subscription', description: 'A renewal payment succeeds' },
  { type: 'subscription:renewal_failure', resource: 'subscription', description: 'A renewal payment fails' },
  { type: 'subscription:cancelled', resource: 'subscription', description: "A subscription's status becomes cancelled" },
  { type: 'invoice:created', resource: 'invoice', description: 'An invoice is created' },
  { type: 'invoice:paid', resource: 'invoice', description: "An invoice's payment_status becomes completed" },
  { type: 'shipment:created', resource: 'shipment', description: 'A shipment is created' },
  { type: 'product:created', resource: 'product', description: 'POST /products succeeds' },
  { type: 'product:modified', resource: 'product', description: 'An update changes at least one stored property of a product' },
  { type: 'product:deleted', resource: 'product', description: 'DELETE /products/{id} succeeds (data: the product as it was, with deleted: true)' },
  { type: 'license_request:failed', resource: 'license_request', description: 'A license request fails for the first time, and again when it gives up' },
  { type: 'license_service:low_licenses', resource: 'license_service', description: "A list-type license service's remaining count falls to or below notify_at_count (data without configuration.licenses)" },
] as const satisfies readonly EventTypeEntry[];

/** An event type code, e.g. `payment:completed`. */
export type EventType = (typeof eventTypes)[number]['type'];

/** The resource an event type's `data` carries: `EventResource<'cart:payment_completed'>` is `'cart'`. */
export type EventResource<T extends EventType> = Extract<(typeof eventTypes)[number], { type: T }>['resource'];

const byType: ReadonlyMap<string, (typeof eventTypes)[number]> = new Map(eventTypes.map((entry) => [entry.type, entry]));

/** Whether a string is a catalog event type (subscriptions naming another type are refused). */
export function isEventType(value: string): value is EventType {
  return byType.has(value);
}

/** The catalog entry of a type, or undefined for an unknown one. */
export function eventTypeEntry(type: string): (typeof eventTypes)[number] | undefined {
  return byType.get(type);
}
