/**
 * The `/event_subscriptions` endpoints (events.md §2.2), as actions of the API pipeline. They
 * need `event_subscriptions:*` (limited tokens hold none: 403). Secret properties are shown only
 * to holders of `event_subscriptions:update`; an answer that shows one is marked sensitive, so
 * an idempotent replay copy of it is stored sealed.
 */
import type { Principal } from '../../core/access/principal';
import { booleanParameter } from '../../http/request';
import { declareAnswer, declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import { readOffsetCollection } from '../../store/offset-index';
import { logger } from '../../core/logging';
import { destinationFunction } from '../../modules/functions';
import type { Platform } from '../../platform/ports';
import type { RecordScope } from '../../store/records';
import { endEventsOfDeletedSubscription } from './delivery/end-deleted';
import { sendSampleDelivery } from './delivery/sample-delivery';
import type { JsonObject } from './body';
import { eventSubscriptionCreate, eventSubscriptionTest, eventSubscriptionUpdate, eventSubscriptionPartition, createEventSubscription, deleteEventSubscription, eventSubscriptionDeclaration, eventSubscriptionPath, maySeeSecrets, readEventSubscription, SECRET_PROPERTIES, subscriptionView, updateEventSubscription, type EventSubscriptionRecord, type SubscriptionPorts, type EventSubscriptionView, type OpenedEventSubscription } from '../../modules/events';

const SORT_FIELDS = ['date_created'] as const;

/** The ports of a subscription write, with hosted functions recognised as destinations in `scope` (events.md §9). */
function subscriptionPorts(platform: Platform, scope: RecordScope): SubscriptionPorts {
  return { secrets: platform.secrets, http: platform.http, clock: platform.clock, destinationFunction: (destination) => destinationFunction(platform.site, scope, destination) };
}

/** What `principal` may see of a record that was just written with its secrets at hand (no second open). */
function visible(record: OpenedEventSubscription, principal: Principal): EventSubscriptionView {
  if (maySeeSecrets(principal)) return record;
  const { secrets: _hidden, ...rest } = record;
  return rest;
}

/** Whether an answer shows a secret value. */
function showsSecret(view: EventSubscriptionView): boolean {
  return view.secrets !== undefined && SECRET_PROPERTIES.some((name) => view.secrets![name] !== null);
}

/** `POST /event_subscriptions`: 201 with `Location`. */
export const createEventSubscriptionAction = withBody(eventSubscriptionCreate, async (context) => {
  const { principal, scope, render } = await actionScope(context);
  const record = visible(await createEventSubscription(scope, context.body, subscriptionPorts(context.platform, scope)), principal);
  const body = await renderResource(eventSubscriptionDeclaration, record, render);
  return { status: 201, body, location: render.url(eventSubscriptionPath(record.event_subscription_id)), sensitive: showsSecret(record) };
});

/** `GET /event_subscriptions/{event_subscription_id}`. */
export async function getEventSubscriptionAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const record = await readEventSubscription(scope, context.params.event_subscription_id!);
  const view = await subscriptionView(record, principal, context.platform.secrets);
  return { status: 200, body: await renderResource(eventSubscriptionDeclaration, view, render) };
}

/** `POST /event_subscriptions/{event_subscription_id}`: partial update, validated as the subscription will be. */
export const updateEventSubscriptionAction = withBody(eventSubscriptionUpdate, async (context) => {
  const { principal, scope, render } = await actionScope(context);
  const saved = await updateEventSubscription(scope, context.params.event_subscription_id!, context.body, subscriptionPorts(context.platform, scope));
  const view = visible(saved, principal);
  return { status: 200, body: await renderResource(eventSubscriptionDeclaration, view, render), sensitive: showsSecret(view) };
});

/** `DELETE /event_subscriptions/{event_subscription_id}`: a hard delete (204). */
export async function deleteEventSubscriptionAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  const subscriptionId = context.params.event_subscription_id!;
  await deleteEventSubscription(scope, subscriptionId);
  // §2.2: its pending and retry events end now (best effort; the worker ends any left at their next attempt).
  await endEventsOfDeletedSubscription(context.platform, scope, subscriptionId).catch((error: unknown) =>
    logger.error('Ending the events of a deleted subscription failed; the worker ends them at their next attempt', { subscriptionId, error: error as Error }),
  );
  return { status: 204 };
}

/**
 * `POST /event_subscriptions/{event_subscription_id}/test` (and `.../test/{anything}`): one sample
 * delivery now (events.md §10), active or not; always 200 `event_test_result` once sent,
 * whatever the destination replied. Nothing is stored.
 */
export const testEventSubscriptionAction = withBody(eventSubscriptionTest, async (context) => {
  const { scope } = await actionScope(context);
  const record = await readEventSubscription(scope, context.params.event_subscription_id!);
  const result = await sendSampleDelivery(context.platform, record, (context.body.data ?? undefined) as JsonObject | undefined);
  return { status: 200, body: { object: 'event_test_result', ...result } };
});

/** `GET /event_subscriptions`: offset list, oldest first unless `desc`; filters `event_type`, `method`, `active`. */
export async function listEventSubscriptionsAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const query = context.query;
  const page = offsetPage(query);
  sortByParameter(query, SORT_FIELDS);
  const descending = booleanParameter(query, 'desc') ?? false;
  const active = booleanParameter(query, 'active');
  const eventType = query.event_type?.trim() || undefined;
  const method = query.method?.trim() || undefined;
  const filtered = active !== undefined || eventType !== undefined || method !== undefined;

  const { items, total } = await readOffsetCollection<EventSubscriptionRecord>({
    partition: eventSubscriptionPartition(scope),
    offset: page.offset,
    limit: page.limit,
    descending,
    counted: true,
    ...(filtered
      ? {
          filter: (subscription) =>
            (active === undefined || subscription.active === active) &&
            (eventType === undefined || subscription.event_type === eventType) &&
            (method === undefined || subscription.method === method),
        }
      : {}),
    idOf: (subscription) => subscription.event_subscription_id,
  });
  const views = await Promise.all(items.map((record) => subscriptionView(record, principal, context.platform.secrets)));
  const data = await renderElements(eventSubscriptionDeclaration, views, render);
  return {
    status: 200,
    body: offsetList(data, page, total, pageUrlBuilder(render.url('event_subscriptions'), query, 'offset')),
    sensitive: views.some(showsSecret),
  };
}

// The query parameters of the list action, for the API description (conventions.md §12).
declareQuery(listEventSubscriptionsAction, {
  list: 'offset',
  filters: { event_type: 'Only subscriptions to this event type', method: 'http or email', active: 'true or false', sort_by: 'date_created (default)' },
});

declareAnswer(testEventSubscriptionAction, { shape: 'event_test_result', summary: 'Send a sample delivery to an event subscription', description: 'The outcome of the one sample delivery: what was sent and what the destination answered. Nothing is stored.' });
