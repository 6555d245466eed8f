/**
 * The rules of an event subscription (events.md §2.1): each property's own rules (the schemas),
 * the rules between properties checked on the subscription as it will be after a partial
 * update, and what a reader without `event_subscriptions:update` sees (no secret properties).
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/core/access/principal';
import { InvalidInputError } from '../../../shared/http/errors';
import { parseInput } from '../../../shared/rest/validate';
import type { RenderContext } from '../../../shared/rest/render-context';
import { eventSubscriptionCreate, eventSubscriptionUpdate } from '../../../shared/modules/events/subscriptions/event-subscription-schemas';
import {
  eventSubscriptionDeclaration,
  eventSubscriptionFields,
  maySeeSecrets,
  type EventSubscriptionRecord,
  type SubscriptionFields,
} from '../../../shared/modules/events/subscriptions/event-subscriptions';

const minimal = { event_type: 'order:created', method: 'http', destination: 'https://hooks.example.com/orders' };

/** The `meta` of the 400 a create body gives, or undefined when it passes (schema, then the rules between properties). */
function refusal(body: Record<string, unknown>, current?: SubscriptionFields): Record<string, unknown> | undefined {
  try {
    const parsed = parseInput(current ? eventSubscriptionUpdate : eventSubscriptionCreate, body);
    eventSubscriptionFields(parsed, current);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidInputError) return { ...(error.meta as Record<string, unknown>), message: error.message };
    throw error;
  }
}

function fieldsOf(body: Record<string, unknown>): SubscriptionFields {
  return eventSubscriptionFields(parseInput(eventSubscriptionCreate, body), undefined);
}

describe('create body', () => {
  it('fills the defaults: format json, active, no variables, nulls', () => {
    const { settings, secrets } = fieldsOf(minimal);
    expect(settings).toEqual({
      event_type: 'order:created', method: 'http', format: 'json', destination: 'https://hooks.example.com/orders', active: true, comments: null,
      http_authorization_username: null, custom_header_name: null, environment_variables: {}, expand: null, show: null, hide: null, timezone: null,
    });
    expect(secrets).toEqual({ http_authorization_password: null, http_authorization: null, custom_header_value: null, signature_key: null });
  });

  it('accepts the README example of events.md §2.2 and keeps its values', () => {
    const { settings, secrets } = fieldsOf({
      event_type: 'order:created', method: 'http', format: 'json', destination: 'https://erp.example.test/hooks/orders',
      http_authorization_username: 'shop', http_authorization_password: 's3cret', custom_header_name: 'X-Erp-Tenant', custom_header_value: 'eu-1',
      environment_variables: { ERP_CHANNEL: 'web' }, expand: 'customer,items.product', hide: 'items.product.images', timezone: 'Europe/Berlin',
    });
    expect(settings).toMatchObject({ custom_header_name: 'X-Erp-Tenant', environment_variables: { ERP_CHANNEL: 'web' }, timezone: 'Europe/Berlin', hide: 'items.product.images' });
    expect(secrets).toMatchObject({ http_authorization_password: 's3cret', custom_header_value: 'eu-1' });
  });

  it('requires event_type, method and destination', () => {
    for (const name of ['event_type', 'method', 'destination']) {
      const body: Record<string, unknown> = { ...minimal };
      delete body[name];
      expect(refusal(body), name).toMatchObject({ property: name, reason: 'required' });
    }
  });

  it('refuses unknown event types, methods and formats', () => {
    for (const value of ['order:shipped', 'ORDER:CREATED', '', 5]) expect(refusal({ ...minimal, event_type: value }), String(value)).toMatchObject({ property: 'event_type' });
    for (const value of ['https', 'sms', true]) expect(refusal({ ...minimal, method: value })).toMatchObject({ property: 'method' });
    for (const value of ['yaml', 'JSON', 1]) expect(refusal({ ...minimal, format: value })).toMatchObject({ property: 'format' });
    expect(fieldsOf({ ...minimal, format: null }).settings.format).toBe('json');
    expect(fieldsOf({ ...minimal, format: 'xml' }).settings.format).toBe('xml');
  });

  it('wants an absolute http(s) URL for http and one email address for email', () => {
    for (const value of ['hooks.example.com/x', '/relative', 'ftp://example.com/x', 'https://exa mple.com', 'mailto:a@b.co', 'javascript:alert(1)']) {
      expect(refusal({ ...minimal, destination: value }), value).toMatchObject({ property: 'destination', reason: 'invalid' });
    }
    expect(refusal({ ...minimal, method: 'email', destination: 'ops@example.com' })).toBeUndefined();
    for (const value of ['https://example.com/x', 'a@b', 'a@b.co,c@d.co', 'a@b.co c@d.co']) {
      expect(refusal({ ...minimal, method: 'email', destination: value }), value).toMatchObject({ property: 'destination' });
    }
  });

  it('limits comments to 1,000 characters', () => {
    expect(refusal({ ...minimal, comments: 'x'.repeat(1000) })).toBeUndefined();
    expect(refusal({ ...minimal, comments: 'x'.repeat(1001) })).toMatchObject({ property: 'comments', reason: 'too_long' });
  });

  it('refuses http_authorization together with the Basic pair', () => {
    expect(refusal({ ...minimal, http_authorization: 'Bearer abc', http_authorization_username: 'shop' })).toMatchObject({ property: 'http_authorization', reason: 'conflict' });
    expect(refusal({ ...minimal, http_authorization: 'Bearer abc', http_authorization_password: 'pw' })).toMatchObject({ reason: 'conflict' });
    expect(refusal({ ...minimal, http_authorization: 'Bearer abc' })).toBeUndefined();
    expect(refusal({ ...minimal, http_authorization_username: 'a:b' })).toMatchObject({ property: 'http_authorization_username' });
    expect(refusal({ ...minimal, http_authorization: 'Bearer a\r\nX-Evil: 1' })).toMatchObject({ property: 'http_authorization' });
  });

  it('wants the custom header as a valid, non-reserved token with its value, or neither', () => {
    expect(refusal({ ...minimal, custom_header_name: 'X-Tenant' })).toMatchObject({ property: 'custom_header_value', reason: 'required' });
    expect(refusal({ ...minimal, custom_header_value: 'eu' })).toMatchObject({ property: 'custom_header_name', reason: 'required' });
    for (const name of ['content-type', 'AUTHORIZATION', 'Webhook-Signature', 'x-service-signature', 'Host', 'x-hosted-function-id']) {
      expect(refusal({ ...minimal, custom_header_name: name, custom_header_value: 'v' }), name).toMatchObject({ property: 'custom_header_name', reason: 'not_allowed' });
    }
    for (const name of ['X Tenant', 'X-Tenant:', 'Ünicode', '(x)']) {
      expect(refusal({ ...minimal, custom_header_name: name, custom_header_value: 'v' }), name).toMatchObject({ property: 'custom_header_name', reason: 'invalid' });
    }
    expect(refusal({ ...minimal, custom_header_name: 'X-Tenant', custom_header_value: 'a\nb' })).toMatchObject({ property: 'custom_header_value' });
  });

  it('takes environment variables as an object or an array of {name, value}, at most 50 valid names', () => {
    expect(fieldsOf({ ...minimal, environment_variables: [{ name: 'A', value: '1' }, { name: '_b2', value: '' }] }).settings.environment_variables).toEqual({ A: '1', _b2: '' });
    expect(fieldsOf({ ...minimal, environment_variables: null }).settings.environment_variables).toEqual({});
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`V${index}`, 'x']));
    expect(refusal({ ...minimal, environment_variables: fifty })).toBeUndefined();
    expect(refusal({ ...minimal, environment_variables: { ...fifty, V50: 'x' } })).toMatchObject({ property: 'environment_variables', reason: 'too_long' });
    expect(refusal({ ...minimal, environment_variables: { '1abc': 'x' } })).toMatchObject({ property: 'environment_variables.1abc', reason: 'invalid' });
    expect(refusal({ ...minimal, environment_variables: { 'a-b': 'x' } })).toMatchObject({ property: 'environment_variables.a-b' });
    expect(refusal({ ...minimal, environment_variables: { ['A'.repeat(65)]: 'x' } })).toMatchObject({ reason: 'invalid' });
    expect(refusal({ ...minimal, environment_variables: { A: 5 } })).toMatchObject({ property: 'environment_variables.A' });
    expect(refusal({ ...minimal, environment_variables: { A: 'x'.repeat(1025) } })).toMatchObject({ property: 'environment_variables.A', reason: 'too_long' });
    expect(refusal({ ...minimal, environment_variables: [{ name: 'bad name', value: 'x' }] })).toMatchObject({ property: 'environment_variables[0].name' });
    expect(refusal({ ...minimal, environment_variables: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] })).toMatchObject({ property: 'environment_variables[1].name', reason: 'conflict' });
    expect(refusal({ ...minimal, environment_variables: 'A=1' })).toMatchObject({ property: 'environment_variables' });
  });

  it('refuses non-empty show and hide together, as for the query parameters', () => {
    expect(refusal({ ...minimal, show: 'order_id', hide: 'items' })).toMatchObject({ property: 'hide', reason: 'conflict', conflicts_with: 'show' });
    expect(refusal({ ...minimal, show: 'order_id', hide: '' })).toBeUndefined();
    expect(refusal({ ...minimal, show: 'order_id', hide: ' , ' })).toBeUndefined();
    expect(refusal({ ...minimal, expand: 'not a path,,,a.b.c.d.e.f' })).toBeUndefined();
  });

  it('takes an IANA zone (stored canonical) or null; refuses others', () => {
    expect(fieldsOf({ ...minimal, timezone: 'europe/berlin' }).settings.timezone).toBe('Europe/Berlin');
    expect(fieldsOf({ ...minimal, timezone: null }).settings.timezone).toBeNull();
    for (const value of ['Mars/Olympus', '+02:00', 5]) expect(refusal({ ...minimal, timezone: value }), String(value)).toMatchObject({ property: 'timezone', reason: 'invalid' });
  });

  it('takes a signature key of 16 to 256 characters, or null', () => {
    expect(refusal({ ...minimal, signature_key: 'k'.repeat(16) })).toBeUndefined();
    expect(refusal({ ...minimal, signature_key: 'k'.repeat(256) })).toBeUndefined();
    expect(refusal({ ...minimal, signature_key: null })).toBeUndefined();
    expect(refusal({ ...minimal, signature_key: 'k'.repeat(15) })).toMatchObject({ property: 'signature_key', reason: 'too_short' });
    expect(refusal({ ...minimal, signature_key: 'k'.repeat(257) })).toMatchObject({ property: 'signature_key', reason: 'too_long' });
  });
});

describe('partial update: the rules hold for the subscription as it will be', () => {
  const http = fieldsOf({ ...minimal, http_authorization: 'Bearer abc', custom_header_name: 'X-Tenant', custom_header_value: 'eu' });

  it('keeps what the body does not send, and null clears', () => {
    const { settings, secrets } = eventSubscriptionFields(parseInput(eventSubscriptionUpdate, { comments: 'hi', url: 'ignored', object: 'x' }), http);
    expect(settings).toMatchObject({ comments: 'hi', destination: minimal.destination, custom_header_name: 'X-Tenant' });
    expect(secrets).toMatchObject({ http_authorization: 'Bearer abc', custom_header_value: 'eu' });
    expect(eventSubscriptionFields(parseInput(eventSubscriptionUpdate, { http_authorization: null }), http).secrets.http_authorization).toBeNull();
  });

  it('refuses switching to email without an email destination, and accepts it with one', () => {
    expect(refusal({ method: 'email' }, http)).toMatchObject({ property: 'destination' });
    expect(refusal({ method: 'email', destination: 'ops@example.com' }, http)).toBeUndefined();
  });

  it('refuses adding the Basic pair next to a stored http_authorization, naming what was sent', () => {
    expect(refusal({ http_authorization_username: 'shop' }, http)).toMatchObject({ property: 'http_authorization_username', reason: 'conflict' });
    expect(refusal({ http_authorization_username: 'shop', http_authorization: null }, http)).toBeUndefined();
  });

  it('refuses clearing only one half of the custom header', () => {
    expect(refusal({ custom_header_value: null }, http)).toMatchObject({ property: 'custom_header_value', reason: 'required' });
    expect(refusal({ custom_header_name: null }, http)).toMatchObject({ property: 'custom_header_name', reason: 'required' });
    expect(refusal({ custom_header_name: null, custom_header_value: '' }, http)).toBeUndefined();
  });

  it('refuses a hide next to a stored show', () => {
    const shown = fieldsOf({ ...minimal, show: 'order_id' });
    expect(refusal({ hide: 'items' }, shown)).toMatchObject({ property: 'hide', reason: 'conflict' });
    expect(refusal({ hide: 'items', show: null }, shown)).toBeUndefined();
  });
});

describe('redaction of the secret properties', () => {
  const owner = { kind: 'secret', isOwner: true, permissions: [] } as unknown as Principal;
  const reader = { kind: 'secret', isOwner: false, permissions: [{ resource: 'event_subscriptions', methods: ['read'], allow: true }] } as unknown as Principal;
  const updater = { kind: 'secret', isOwner: false, permissions: [{ resource: 'event_subscriptions', methods: ['read', 'update'], allow: true }] } as unknown as Principal;
  const denied = { kind: 'secret', isOwner: false, permissions: [{ resource: '*', methods: ['*'], allow: true }, { resource: 'event_subscriptions', methods: ['update'], allow: false }] } as unknown as Principal;
  const limited = { kind: 'limited', isOwner: false, permissions: [] } as unknown as Principal;

  it('shows secrets to owners and holders of event_subscriptions:update only', () => {
    expect(maySeeSecrets(owner)).toBe(true);
    expect(maySeeSecrets(updater)).toBe(true);
    expect(maySeeSecrets(reader)).toBe(false);
    expect(maySeeSecrets(denied)).toBe(false);
    expect(maySeeSecrets(limited)).toBe(false);
    expect(maySeeSecrets(undefined)).toBe(false);
  });

  it('leaves the four secret properties out of a record without opened secrets, and shows them on an opened one', () => {
    const { settings, secrets } = fieldsOf({ ...minimal, http_authorization: 'Bearer abc', signature_key: 'k'.repeat(20) });
    const record = { ...settings, event_subscription_id: 'S1', account_id: 'A', mode: 'test', secrets_sealed: 'local:xyz', created_ms: 0, modified_ms: 0, seq: 1 } as EventSubscriptionRecord;
    const context = { url: (path: string) => `https://api.example.test/api/v1/${path}`, date: (ms: number) => new Date(ms).toISOString() } as unknown as RenderContext;
    const hidden = eventSubscriptionDeclaration.toJson(record, context);
    for (const name of ['http_authorization_password', 'http_authorization', 'custom_header_value', 'signature_key', 'secrets_sealed']) expect(hidden, name).not.toHaveProperty(name);
    expect(hidden).toMatchObject({ object: 'event_subscription', url: 'https://api.example.test/api/v1/event_subscriptions/S1', test: true, hosted_function: null, http_authorization_username: null });
    const shown = eventSubscriptionDeclaration.toJson({ ...record, secrets }, context);
    expect(shown).toMatchObject({ http_authorization: 'Bearer abc', signature_key: 'k'.repeat(20), http_authorization_password: null, custom_header_value: null });
    expect(shown).not.toHaveProperty('secrets_sealed');
  });
});
