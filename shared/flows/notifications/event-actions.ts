/**
 * The `/events` endpoints (events.md §7.2, §7.3), as actions of the API pipeline: the cursor
 * list, one event (with `debug=true` showing the last attempt's request, secrets redacted) and
 * the manual retry. They need `events:read` / `events:update` (limited tokens hold neither: 403).
 */
import { InvalidInputError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareAnswer, declareQuery, type ApiContext, type ApiResult } from '../../http/types';
import { cursorQuery, renderCursorList } from '../../rest/cursor-list';
import { renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import type { RenderContext } from '../../rest/render-context';
import { retryEvent } from './delivery/retry-event';
import { RemoteServerError, RemoteServerTimeoutError, eventDeclaration, type EventRecord, type EventStatus, eventListSource, getEvent, type EventFilters } from '../../modules/events';

const STATUSES: readonly EventStatus[] = ['pending', 'delivered', 'retry', 'failed'];

/** The event as the API shows it, with `debug` when asked for (§7.1). */
async function renderEvent(event: EventRecord, render: RenderContext, debug: boolean): Promise<Record<string, unknown>> {
  const body = await renderResource(eventDeclaration, event, render);
  return debug ? { ...body, debug: { request: event.last_request } } : body;
}

/** `GET /events`: cursor list; filters `status`, `type`, `event_subscription_id`, `fingerprint`. */
export async function listEventsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const request = cursorQuery(context.query, render);
  const filters: EventFilters = {};
  const { status, type, event_subscription_id: subscriptionId, fingerprint } = context.query;
  if (status) {
    if (!(STATUSES as readonly string[]).includes(status)) throw new InvalidInputError(`The parameter status must be one of ${STATUSES.join(', ')}.`, { parameter: 'status', reason: 'invalid' });
    filters.status = status;
  }
  if (type) filters.type = type;
  if (subscriptionId) filters.event_subscription_id = subscriptionId;
  if (fingerprint) filters.fingerprint = fingerprint;
  return { status: 200, body: await renderCursorList(eventListSource(scope, filters), request, eventDeclaration, render, 'events') };
}

declareQuery(listEventsAction, {
  list: 'cursor',
  filters: {
    status: 'pending, delivered, retry or failed',
    type: 'Events of one event type (order:created)',
    event_subscription_id: 'Events of one subscription',
    fingerprint: 'Events of one occurrence',
  },
});

/** `GET /events/{event_id}`: `expand=event_subscription` through the engine; `debug=true` adds the last request. */
export async function getEventAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const event = await getEvent(scope, context.params.event_id!);
  return { status: 200, body: await renderEvent(event, render, booleanParameter(context.query, 'debug') ?? false) };
}

/** `POST /events/{event_id}/retry`: one manual attempt now (§7.3); 200, or 502/504 with the event in `meta`. */
export async function retryEventAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const { event, outcome } = await retryEvent(context.platform, scope, context.params.event_id!);
  const body = await renderEvent(event, render, false);
  const error = outcome.attempt.error;
  if (!error) return { status: 200, body };
  if (error.code === 'timeout') throw new RemoteServerTimeoutError(`The destination did not answer in time: ${error.message}`, { event: body });
  throw new RemoteServerError(`The delivery failed: ${error.message}`, { event: body });
}

declareAnswer(retryEventAction, { resource: 'event' });
