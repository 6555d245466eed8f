/** The event-type catalog matches the contract's list (events.md §1) and its types check themselves. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { eventTypeEntry, eventTypes, isEventType, type EventResource, type EventType } from '../../../shared/modules/events/catalog';
import { eventWrites, type EventSpec } from '../../../shared/modules/events/emit';

/** events.md §1, type and `data` resource per row, in the contract's order. */
const contract: ReadonlyArray<[string, string]> = [
  ['order:created', 'order'],
  ['order:payment_completed', 'order'],
  ['order:licenses_assigned', 'order'],
  ['cart:payment_completed', 'cart'],
  ['payment:created_success', 'payment'],
  ['payment:created_failure', 'payment'],
  ['payment:completed', 'payment'],
  ['refund:created_success', 'refund'],
  ['refund:created_failure', 'refund'],
  ['subscription:created', 'subscription'],
  ['subscription:renewal_success', 'subscription'],
  ['subscription:renewal_failure', 'subscription'],
  ['subscription:cancelled', 'subscription'],
  ['invoice:created', 'invoice'],
  ['invoice:paid', 'invoice'],
  ['shipment:created', 'shipment'],
  ['product:created', 'product'],
  ['product:modified', 'product'],
  ['product:deleted', 'product'],
  ['license_request:failed', 'license_request'],
  ['license_service:low_licenses', 'license_service'],
];

describe('event-type catalog', () => {
  it('has no duplicate types', () => {
    const types = eventTypes.map((entry) => entry.type);
    expect(new Set(types).size).toBe(types.length);
  });

  it('lists exactly the types of events.md §1, each with its data resource', () => {
    expect(eventTypes.map((entry) => [entry.type, entry.resource])).toEqual(contract);
  });

  it('names types `resource:action` where the data resource is the prefix', () => {
    for (const entry of eventTypes) {
      expect(entry.type).toMatch(/^[a-z_]+:[a-z_]+$/);
      expect(entry.type.split(':')[0]).toBe(entry.resource);
      expect(entry.description.length).toBeGreaterThan(0);
    }
  });

  it('answers lookups for known and unknown types', () => {
    expect(isEventType('payment:completed')).toBe(true);
    expect(isEventType('payment:refunded')).toBe(false);
    expect(eventTypeEntry('cart:payment_completed')?.resource).toBe('cart');
    expect(eventTypeEntry('nope')).toBeUndefined();
  });

  it('types the resource of each event type', () => {
    expectTypeOf<EventResource<'cart:payment_completed'>>().toEqualTypeOf<'cart'>();
    expectTypeOf<'payment:refunded'>().not.toExtend<EventType>();
    expectTypeOf<{ type: 'payment:completed'; resource: 'payment'; id: string; record: unknown }>().toExtend<EventSpec>();
    expectTypeOf<{ type: 'payment:completed'; resource: 'order'; id: string; record: unknown }>().not.toExtend<EventSpec>();
  });

  it('refuses, at compile time and when written, an unknown type or the wrong resource', () => {
    const scope = { accountId: 'ACCT', mode: 'test' as const };
    // @ts-expect-error not a catalog type
    expect(() => eventWrites(scope, [{ type: 'payment:refunded', resource: 'payment', id: 'P1', record: {} }], 0)).toThrow(/Unknown event type/);
    // @ts-expect-error payment events carry a payment
    expect(() => eventWrites(scope, [{ type: 'payment:completed', resource: 'order', id: 'P1', record: {} }], 0)).toThrow(/carries a payment/);
    // A list widened to strings is checked when written.
    const widened = [{ type: 'payment:completed', resource: 'order', id: 'P1', record: {} as unknown }];
    expect(() => eventWrites(scope, widened, 0)).toThrow(/carries a payment/);
  });
});
