/**
 * From occurrences to events (events.md: "for every occurrence the platform creates one event
 * per matching active subscription"): the due work `event-fanout`, written in the same
 * transaction as the change and its occurrences (shared/modules/events/emit.ts), run at once
 * by the process that committed it (the relay) or by the sweep after a crash.
 *
 *   1. read the occurrences the work names, and the active subscriptions of their types;
 *   2. for each pair, render the notification once (data as it stood, shaped by the
 *      subscription's expand, show, hide and zone; the body in its format) and write the event
 *      together with its delivery work; the event id is derived from the occurrence and the
 *      subscription, so a second run finds it taken and skips it;
 *   3. remove the fan-out work.
 *
 * A crash at any line leaves the fan-out work due: the next run makes only what is missing.
 * When no active subscription matches, no event is created (events.md).
 */
import { readTechnicalSettingsCached, readPaymentSettingsCached } from '../../modules/accounts';
import type { Principal } from '../../core/access/principal';
import { type OccurrenceRecord, findOccurrences, type EventRecord, newEventEntry, type NewEvent, allEventSubscriptions, type EventSubscriptionRecord } from '../../modules/events';
import type { Site } from '../../core/config';
import { dueEntry, finishEntry, type DueClaim } from '../../work/due-work-store';
import type { DueHandler } from '../../work/runner';
import { derivedId } from '../../core/ids';
import type { Platform } from '../../platform/ports';
import { formatTimestamp } from '../../rest/dates';
import { expandResources, renderStored } from '../../rest/expand';
import { parseExpand } from '../../rest/paths';
import type { RenderContext } from '../../rest/render-context';
import { declarationOf } from '../../rest/declarations';
import { applyShowHide, parseShowHide } from '../../rest/show-hide';
import type { RecordScope } from '../../store/entity';
import { RecordExistsError } from '../../store/errors';
import { transact, writeOne } from '../../store/transact';
import { scheduleEventDelivery } from './delivery/deliver-event';
import { EVENT_QUEUE, FAN_OUT_LEASE_MS } from '../../work/relay';
import { notificationTree, renderBody, type JsonObject } from './body';

/** The id of the event of occurrence `fingerprint` for subscription `subscriptionId` (the same on every run). */
export function eventIdFor(fingerprint: string, subscriptionId: string): string {
  return derivedId(`event:${fingerprint}:${subscriptionId}`);
}

/** The account-wide reader notifications are rendered for: every link the data names may expand. */
function platformReader(scope: RecordScope): Principal {
  return { authId: 'platform', accountId: scope.accountId, mode: scope.mode, kind: 'secret', prefix: 'sk', tokenHash: '', permissions: [], isOwner: true, expiresAtMs: null } as unknown as Principal;
}

/**
 * How a subscription wants its data drawn: links on the site's public API address, its zone, its
 * show/hide (all null: the account's zone, everything shown — how license request bodies are drawn).
 */
export async function renderContextFor(site: Site, scope: RecordScope, subscription: Pick<EventSubscriptionRecord, 'timezone' | 'show' | 'hide'>, now: number): Promise<RenderContext> {
  const [technical, payment] = await Promise.all([readTechnicalSettingsCached(scope.accountId), readPaymentSettingsCached(scope.accountId)]);
  const zone = subscription.timezone ?? technical?.timezone ?? 'UTC';
  const baseUrl = site.apiUrl;
  const query: Record<string, string> = {};
  if (subscription.show) query.show = subscription.show;
  if (subscription.hide) query.hide = subscription.hide;
  return {
    baseUrl,
    site,
    preread: new Map(),
    zone,
    locale: technical?.locale ?? 'en-US',
    formatted: false,
    now,
    accountId: scope.accountId,
    mode: scope.mode,
    principal: platformReader(scope),
    query,
    payment,
    currency: payment.default_payment_currency,
    // The subscription's lists were checked when it was saved; a conflict there cannot reach here.
    showHide: parseShowHide(query),
    url: (path) => `${baseUrl}${path}`,
    date: (epochMs) => (epochMs === null || epochMs === undefined ? null : formatTimestamp(epochMs, zone)),
  };
}

/** The notification's data: the occurrence's record as it stood, with the subscription's expand (at most 10), show and hide. */
async function dataOf(occurrence: OccurrenceRecord, subscription: EventSubscriptionRecord, context: RenderContext): Promise<JsonObject> {
  const declaration = declarationOf(occurrence.data_resource);
  if (!declaration) throw new Error(`No declaration for ${occurrence.data_resource} (occurrence ${occurrence.event_id})`);
  const json = renderStored(declaration, occurrence.data_record, context);
  const tree = parseExpand(subscription.expand ?? undefined, 'event_subscription');
  await expandResources([{ json, declaration, stored: occurrence.data_record }], tree, context, false);
  return applyShowHide(json, context.showHide) as JsonObject;
}

/** What identifies a notification and what it carries, before its body is rendered. */
export interface EventContent {
  eventId: string;
  fingerprint: string;
  type: string;
  /** When it happened, as its body shows it (the subscription's zone). */
  dateCreated: string;
  data: JsonObject;
}

/**
 * A new `pending` event of `subscription`: its body rendered once, in the subscription's format,
 * from one tree (§4). Fan-out stores it; a sample delivery (§10) only sends it.
 */
export function pendingEvent(subscription: EventSubscriptionRecord, content: EventContent, now: number): NewEvent {
  const tree = notificationTree({
    eventId: content.eventId,
    fingerprint: content.fingerprint,
    type: content.type,
    dateCreated: content.dateCreated,
    test: subscription.mode === 'test',
    accountId: subscription.account_id,
    environmentVariables: subscription.environment_variables,
    data: content.data,
  });
  const rendered = renderBody(subscription.format, tree);
  return {
    event_id: content.eventId,
    account_id: subscription.account_id,
    mode: subscription.mode,
    type: content.type,
    fingerprint: content.fingerprint,
    event_subscription_id: subscription.event_subscription_id,
    method: subscription.method,
    format: subscription.format,
    data: content.data,
    body: rendered.body,
    content_type: rendered.contentType,
    status: 'pending',
    automatic_attempts: 0,
    attempts_count: 0,
    attempts: [],
    last_attempt_ms: null,
    next_attempt_ms: null,
    delivered_ms: null,
    last_request: null,
    created_ms: now,
    modified_ms: now,
  };
}

/** The event of `occurrence` for `subscription`, its body rendered once (links on `site`). */
export async function eventFor(site: Site, occurrence: OccurrenceRecord, subscription: EventSubscriptionRecord, now: number): Promise<NewEvent> {
  const scope = { accountId: occurrence.account_id, mode: occurrence.mode };
  const context = await renderContextFor(site, scope, subscription, now);
  const data = await dataOf(occurrence, subscription, context);
  return pendingEvent(
    subscription,
    {
      eventId: eventIdFor(occurrence.event_id, subscription.event_subscription_id),
      fingerprint: occurrence.event_id,
      type: occurrence.type,
      dateCreated: context.date(occurrence.created_ms)!,
      data,
    },
    now,
  );
}

/** The event keeping the `traceparent` of the request that caused it (stored on the fan-out's due work), if there was one. */
function withTrace(event: NewEvent, traceparent: string | undefined): NewEvent {
  return traceparent ? { ...event, traceparent } : event;
}

/** A repeated run finding its event already made. */
class EventAlreadyMade extends Error {}

/**
 * Writes one event with its delivery work; answers the event, or undefined when an earlier run
 * already made it. `deliveryEntry` is the delivery's due work for the new event.
 */
async function writeEvent(event: NewEvent, deliveryEntry: (scope: RecordScope, eventId: string, now: number) => ReturnType<typeof dueEntry>): Promise<NewEvent | undefined> {
  const scope = { accountId: event.account_id, mode: event.mode };
  try {
    await transact([newEventEntry(event, () => new EventAlreadyMade()), deliveryEntry(scope, event.event_id, event.created_ms)]);
    return event;
  } catch (error) {
    if (error instanceof EventAlreadyMade || error instanceof RecordExistsError) return undefined;
    throw error;
  }
}

/** What a fan-out needs from delivery: the due work of a new event, and the relay that starts it. */
export interface DeliveryHooks {
  /** The transaction entry making the event's first delivery due now. */
  deliveryEntry(scope: RecordScope, eventId: string, now: number): ReturnType<typeof dueEntry>;
  /** Starts the delivery of events just written (after the commit); failures are the sweep's. */
  relay(platform: Platform, events: readonly Pick<EventRecord, 'account_id' | 'mode' | 'event_id'>[]): Promise<void>;
}

/**
 * Fans the occurrences of `claim` out and removes the work; answers the events it made. A throw
 * leaves the work for the next run, which makes only what is still missing.
 */
export async function fanOut(platform: Platform, claim: DueClaim, hooks: DeliveryHooks): Promise<NewEvent[]> {
  const { record } = claim;
  const scope = { accountId: record.account_id, mode: record.mode };
  const occurrences = await findOccurrences(scope, record.ref.split(','));
  // One read of the scope's subscriptions serves every occurrence of the change; fan-out needs
  // no secrets (delivery opens them at each attempt).
  const active = occurrences.length ? (await allEventSubscriptions(scope)).filter((subscription) => subscription.active) : [];
  const made: NewEvent[] = [];
  for (const occurrence of occurrences) {
    for (const subscription of active.filter((entry) => entry.event_type === occurrence.type)) {
      const event = withTrace(await eventFor(platform.site, occurrence, subscription, platform.clock.nowMs()), record.traceparent);
      const written = await writeEvent(event, hooks.deliveryEntry);
      if (written) made.push(written);
    }
  }
  await writeOne(finishEntry(claim));
  if (made.length) await hooks.relay(platform, made);
  return made;
}

/** Delivery as it runs: each new event's first attempt due at once, started through the queue after the commit. */
export const deliveryHooks: DeliveryHooks = {
  deliveryEntry: (scope, eventId, now) => scheduleEventDelivery({ account_id: scope.accountId, mode: scope.mode, event_id: eventId, created_ms: now }).entry,
  async relay(platform, events) {
    // A relay that fails leaves the delivery to the sweep.
    await Promise.all(events.map((event) => scheduleEventDelivery({ ...event, created_ms: 0 }).relay(platform).catch(() => false)));
  },
};

/** The due-work handler of `event-fanout` over the delivery it hands new events to. */
export function eventFanOutWork(hooks: DeliveryHooks = deliveryHooks): DueHandler {
  return {
    // The request's relay queues it (fan-out-relay.ts); the sweep hands over what it never did.
    kind: 'event-fanout',
    leaseMs: FAN_OUT_LEASE_MS,
    queue: EVENT_QUEUE,
    async run(platform, claim) {
      await fanOut(platform, claim, hooks);
    },
    // No active subscription for any of the occurrences' types: the run would make no event.
    async needsNothing(_platform, message) {
      if (!message.event_types) return false;
      const types = new Set(message.event_types);
      const active = await allEventSubscriptions({ accountId: message.account_id, mode: message.mode });
      return !active.some((subscription) => subscription.active && types.has(subscription.event_type));
    },
  };
}

/** The fan-out as the sweep runs it. */
export const eventFanOutDueWork: DueHandler = eventFanOutWork();
