/**
 * Event subscriptions (events.md §2, §3): declaration, validation, sealing of the secret
 * properties and storage. A mode-scoped offset collection with generated ids, listed in
 * creation order through the bucketed offset index. The four secret properties are sealed
 * together with the platform's secrets port into one value (`secrets_sealed`), bound to the
 * subscription by its purpose, and opened only for readers holding `event_subscriptions:update`
 * and for delivery (`activeSubscriptionsFor`).
 */
import { type Principal } from '../../../core/access/principal';
import { InvalidInputError } from '../../../http/errors';
import { newId } from '../../../core/ids';
import { assertDestinationAllowed, checkCustomHeader, httpUrl } from '../../../outbound/destinations';
import { sealedFields } from '../../../outbound/sealed-fields';
import type { Clock, OutboundHttp, SecretsPort } from '../../../platform/ports';
import { declareResource } from '../../../rest/declarations';
import { invalid, sends, valueAfter } from '../../../rest/input';
import { parsePathList } from '../../../rest/paths';
import type { RenderContext } from '../../../rest/render-context';
import type { RecordScope } from '../../../store/records';
import { startListedRecord } from '../../../store/offset-index';
import type { EventType } from '../catalog';
import type { EventSubscriptionInput } from './event-subscription-schemas';
import {
  allEventSubscriptions,
  getEventSubscriptionRecord,
  insertEventSubscription,
  removeEventSubscription,
  reserveEventSubscriptionSequence,
  updateEventSubscriptionRecord,
} from './event-subscription-store';

/** The secret properties: sealed at rest, shown only to tokens that may update subscriptions. */
export interface SubscriptionSecrets {
  http_authorization_password: string | null;
  http_authorization: string | null;
  custom_header_value: string | null;
  signature_key: string | null;
}

/** The names of the secret properties. */
export const SECRET_PROPERTIES = ['http_authorization_password', 'http_authorization', 'custom_header_value', 'signature_key'] as const satisfies ReadonlyArray<keyof SubscriptionSecrets>;

/** How they are sealed (bound to the subscription) and who sees them (holders of `event_subscriptions:update`). */
const sealed = sealedFields({ purpose: 'event_subscription', permission: 'event_subscriptions', idField: 'event_subscription_id', names: SECRET_PROPERTIES });

/** The properties of a subscription that are not secret (stored in clear). */
export interface SubscriptionSettings {
  event_type: EventType;
  method: 'http' | 'email';
  format: 'json' | 'xml' | 'html';
  destination: string;
  active: boolean;
  comments: string | null;
  http_authorization_username: string | null;
  custom_header_name: string | null;
  environment_variables: Record<string, string>;
  expand: string | null;
  show: string | null;
  hide: string | null;
  timezone: string | null;
}

/** A stored event subscription: its settings in clear, its secrets sealed. */
export interface EventSubscriptionRecord extends SubscriptionSettings {
  event_subscription_id: string;
  account_id: string;
  mode: 'live' | 'test';
  /** The four secret properties as sealed JSON (`SubscriptionSecrets`), or null when none is set. */
  secrets_sealed: string | null;
  /** The hosted function the destination invokes (§9), recognised when saved; absent or null for any other destination. */
  hosted_function_id?: string | null;
  created_ms: number;
  modified_ms: number;
  /** Its place in the creation-order listing. */
  seq: number;
}

/** A subscription with its secrets opened: what delivery uses, and what privileged readers see. */
export interface OpenedEventSubscription extends EventSubscriptionRecord {
  secrets: SubscriptionSecrets;
}

/** What the declaration renders: a record, with `secrets` only when the reader may see them. */
export type EventSubscriptionView = EventSubscriptionRecord & { secrets?: SubscriptionSecrets };

/** The path of a subscription below the API root. */
export function eventSubscriptionPath(subscriptionId: string): string {
  return `event_subscriptions/${encodeURIComponent(subscriptionId)}`;
}

/** The event subscription declaration (REST conventions engine). Secrets appear only on an opened view. */
export const eventSubscriptionDeclaration = declareResource<EventSubscriptionView>({
  name: 'event_subscription',
  collection: 'event_subscriptions',
  idField: 'event_subscription_id',
  permission: 'event_subscriptions',
  scope: 'mode',
  formatted: { dates: ['date_created', 'date_modified'] },
  idOf: (stored) => stored.event_subscription_id,
  toJson(stored, context: RenderContext) {
    const secrets = stored.secrets;
    return {
      object: 'event_subscription',
      url: context.url(eventSubscriptionPath(stored.event_subscription_id)),
      event_subscription_id: stored.event_subscription_id,
      test: stored.mode === 'test',
      event_type: stored.event_type,
      method: stored.method,
      format: stored.format,
      destination: stored.destination,
      active: stored.active,
      comments: stored.comments,
      http_authorization_username: stored.http_authorization_username,
      ...(secrets ? { http_authorization_password: secrets.http_authorization_password, http_authorization: secrets.http_authorization } : {}),
      custom_header_name: stored.custom_header_name,
      ...(secrets ? { custom_header_value: secrets.custom_header_value } : {}),
      environment_variables: { ...stored.environment_variables },
      expand: stored.expand,
      show: stored.show,
      hide: stored.hide,
      timezone: stored.timezone,
      ...(secrets ? { signature_key: secrets.signature_key } : {}),
      hosted_function: stored.hosted_function_id ? context.url(`hosted_functions/${encodeURIComponent(stored.hosted_function_id)}`) : null,
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
    };
  },
});

/** Whether `principal` may see the secret properties (events.md §2.1: holders of `event_subscriptions:update`). */
export const maySeeSecrets = sealed.maySee;

/** The secrets of a stored subscription, opened (all null when none is set). */
export const openSecrets: (record: EventSubscriptionRecord, port: SecretsPort) => Promise<SubscriptionSecrets> = sealed.openRecord;

/** A record with its secrets opened. */
export async function openSubscription(record: EventSubscriptionRecord, port: SecretsPort): Promise<OpenedEventSubscription> {
  return { ...record, secrets: await openSecrets(record, port) };
}

/** What `principal` may see of a record: opened when it holds `event_subscriptions:update`, else without secrets. */
export async function subscriptionView(record: EventSubscriptionRecord, principal: Principal | undefined, port: SecretsPort): Promise<EventSubscriptionView> {
  return maySeeSecrets(principal) ? openSubscription(record, port) : record;
}

const EMAIL = /^[^\s@,;<>]+@[^\s@,;<>]+\.[^\s@,;<>]+$/;

/** A subscription's writable properties, as they will be after a change. */
export interface SubscriptionFields {
  settings: SubscriptionSettings;
  secrets: SubscriptionSecrets;
}

/**
 * Applies a parsed create body or partial update to the current fields (sent properties
 * change, null clears), then checks the rules between properties on the result (events.md
 * §2.1), so the subscription as it will be is valid whatever the update sent:
 * - the destination fits the method: an absolute http(s) URL for `http`, one email address for `email`;
 * - non-empty `show` and `hide` together are a conflict (as for the query parameters);
 * - `http_authorization` excludes the Basic username/password pair;
 * - the custom header has both a name and a value, or neither.
 */
export function eventSubscriptionFields(body: EventSubscriptionInput, current: SubscriptionFields | undefined): SubscriptionFields {
  const was = current?.settings;
  const settings: SubscriptionSettings = {
    event_type: valueAfter(body, 'event_type', was?.event_type, undefined as unknown as EventType),
    method: valueAfter(body, 'method', was?.method, 'http'),
    format: valueAfter(body, 'format', was?.format, 'json'),
    destination: valueAfter(body, 'destination', was?.destination, ''),
    active: valueAfter(body, 'active', was?.active, true),
    comments: valueAfter(body, 'comments', was?.comments, null),
    http_authorization_username: valueAfter(body, 'http_authorization_username', was?.http_authorization_username, null),
    custom_header_name: valueAfter(body, 'custom_header_name', was?.custom_header_name, null),
    environment_variables: valueAfter(body, 'environment_variables', was?.environment_variables, {}),
    expand: valueAfter(body, 'expand', was?.expand, null),
    show: valueAfter(body, 'show', was?.show, null),
    hide: valueAfter(body, 'hide', was?.hide, null),
    timezone: valueAfter(body, 'timezone', was?.timezone, null),
  };
  const secrets = Object.fromEntries(SECRET_PROPERTIES.map((name) => [name, valueAfter(body, name, current?.secrets[name], null)])) as unknown as SubscriptionSecrets;

  if (settings.method === 'http' && !httpUrl(settings.destination)) {
    invalid('destination', 'The property destination must be an absolute http:// or https:// URL when method is http.');
  }
  if (settings.method === 'email' && !(settings.destination.length <= 254 && EMAIL.test(settings.destination))) {
    invalid('destination', 'The property destination must be one email address when method is email.');
  }
  if (parsePathList(settings.show ?? undefined) !== undefined && parsePathList(settings.hide ?? undefined) !== undefined) {
    throw new InvalidInputError('The properties show and hide cannot be used together.', { property: 'hide', reason: 'conflict', conflicts_with: 'show' });
  }
  const basic = settings.http_authorization_username !== null || secrets.http_authorization_password !== null;
  if (secrets.http_authorization !== null && basic) {
    // Blame what this request sent: the raw header, or the pair it added next to a stored one.
    const blamed = sends(body, 'http_authorization') ? 'http_authorization' : sends(body, 'http_authorization_username') ? 'http_authorization_username' : 'http_authorization_password';
    invalid(blamed, 'The property http_authorization cannot be combined with http_authorization_username and http_authorization_password.', 'conflict');
  }
  checkCustomHeader(settings.custom_header_name, secrets.custom_header_value);
  return { settings, secrets };
}

/**
 * The address check of events.md §3 at save time: an `http` destination whose host is, or
 * resolves to, a blocked address gives 400 `invalid_input` (`destination_not_allowed`). The
 * policy is the outbound port's: the local runtime also allows loopback, the cloud does not.
 */
export async function checkDestination(settings: SubscriptionSettings, http: OutboundHttp): Promise<void> {
  if (settings.method === 'http') await assertDestinationAllowed(settings.destination, http, 'destination', 'notifications');
}

/** The ports a subscription write needs: sealing, the outbound address policy, the clock, and who recognises hosted functions. */
export interface SubscriptionPorts {
  secrets: SecretsPort;
  http: OutboundHttp;
  clock: Clock;
  /**
   * The hosted function an `http` destination invokes in the subscription's scope, or null for
   * any other URL; throws 400 for a function of another account or mode (§9). Absent: none is.
   */
  destinationFunction?: (destination: string) => Promise<string | null>;
}

/**
 * The hosted function an `http` destination invokes (§9), checked; any other destination must
 * pass the address check of §3 (a function is called inside the platform, no connection opened).
 */
async function destinationOf(settings: SubscriptionSettings, ports: SubscriptionPorts): Promise<string | null> {
  const functionId = settings.method === 'http' && ports.destinationFunction ? await ports.destinationFunction(settings.destination) : null;
  if (functionId === null) await checkDestination(settings, ports.http);
  return functionId;
}

/** Creates a subscription: validate, check the destination, seal, reserve its listing position, write record and counter together. */
export async function createEventSubscription(scope: RecordScope, body: EventSubscriptionInput, ports: SubscriptionPorts): Promise<OpenedEventSubscription> {
  const { settings, secrets } = eventSubscriptionFields(body, undefined);
  const functionId = await destinationOf(settings, ports);
  const subscriptionId = newId();
  const secretsSealed = await sealed.seal(secrets, scope, subscriptionId, ports.secrets);
  const start = await startListedRecord(scope, reserveEventSubscriptionSequence, ports.clock);
  const record: EventSubscriptionRecord = { event_subscription_id: subscriptionId, ...settings, secrets_sealed: secretsSealed, hosted_function_id: functionId, ...start };
  await insertEventSubscription(scope, record);
  return { ...record, secrets };
}

/** The current fields of a stored subscription (secrets opened), what an update applies to. */
async function currentFields(record: EventSubscriptionRecord, port: SecretsPort): Promise<SubscriptionFields> {
  const { event_subscription_id: _id, account_id: _account, mode: _mode, secrets_sealed: _sealed, hosted_function_id: _function, created_ms: _c, modified_ms: _m, seq: _seq, ...settings } = record;
  return { settings, secrets: await openSecrets(record, port) };
}

/**
 * Applies a partial update to a subscription, conditional on the version read (read again after
 * a lost race): validation covers the result, the destination is checked again, and the secrets
 * are sealed again only when they changed. Answers it with its secrets opened.
 */
export async function updateEventSubscription(scope: RecordScope, subscriptionId: string, body: EventSubscriptionInput, ports: SubscriptionPorts): Promise<OpenedEventSubscription> {
  return (await updateEventSubscriptionRecord(scope, subscriptionId, async (current) => {
    const before = await currentFields(current, ports.secrets);
    const { settings, secrets } = eventSubscriptionFields(body, before);
    const functionId = await destinationOf(settings, ports);
    const secretsSealed = sealed.same(secrets, before.secrets) ? current.secrets_sealed : await sealed.seal(secrets, scope, current.event_subscription_id, ports.secrets);
    const next: EventSubscriptionRecord = { ...current, ...settings, secrets_sealed: secretsSealed, hosted_function_id: functionId, modified_ms: Math.max(ports.clock.nowMs(), current.modified_ms + 1) };
    return { next, answer: { ...next, secrets } };
  })) as OpenedEventSubscription;
}

/**
 * Deletes a subscription (hard) and takes it out of the listing count, conditional on the
 * version read (read again after a lost race). Ending its `pending` and `retry` events
 * (`failed`, `subscription_deleted`, events.md §2.2) is the delivery side's, after this commits
 * (`../delivery/end-deleted`).
 */
export async function deleteEventSubscription(scope: RecordScope, subscriptionId: string): Promise<void> {
  await removeEventSubscription(scope, subscriptionId);
}

/** A subscription by id; 404, or 400 token_type_mismatch for one of the other mode. */
export function readEventSubscription(scope: RecordScope, subscriptionId: string): Promise<EventSubscriptionRecord> {
  return getEventSubscriptionRecord(scope, subscriptionId);
}

/**
 * The active subscriptions of `scope` to `eventType`, secrets opened: what fan-out creates one
 * event for per occurrence (events.md §1, §7). Reads the whole listing of the scope (an
 * account has a handful to dozens of subscriptions) and opens each match's secrets once.
 *
 * @example
 *   for (const subscription of await activeSubscriptionsFor(scope, 'order:created', platform.secrets)) {
 *     // subscription.destination, .format, .environment_variables, .secrets.signature_key ...
 *   }
 */
export async function activeSubscriptionsFor(scope: RecordScope, eventType: EventType, secrets: SecretsPort): Promise<OpenedEventSubscription[]> {
  const matching = (await allEventSubscriptions(scope)).filter((subscription) => subscription.active && subscription.event_type === eventType);
  return Promise.all(matching.map((subscription) => openSubscription(subscription, secrets)));
}
