/**
 * Request bodies of `/event_subscriptions` (events.md §2.1), declared once: validation, types and
 * OpenAPI. Each property's own rules live here; the rules between properties (a destination
 * that fits the method, credentials that exclude each other, a header with its value, show
 * against hide) are checked on the subscription as it will be after the change, by
 * `eventSubscriptionFields` (./event-subscriptions), so a partial update cannot slip past them.
 */
import { eventTypes, isEventType } from '../catalog';
import { body, flag, freeRecord, jsonDepth, MAX_META_DEPTH, oneOf, orNull, reason, requiredText, text, z } from '../../../rest/fields';
import { timeZoneName } from '../../../rest/dates';

/** Longest destination URL or address. */
export const MAX_DESTINATION_LENGTH = 2000;
/** Most environment variables of a subscription. */
export const MAX_ENVIRONMENT_VARIABLES = 50;
/** Longest environment variable name. */
export const MAX_VARIABLE_NAME = 64;
/** Longest environment variable value. */
export const MAX_VARIABLE_VALUE = 1024;
/** Shortest and longest per-subscription signature key. */
export const SIGNATURE_KEY_LENGTH = { min: 16, max: 256 } as const;

/** The request headers the platform sets itself: a custom header may not be one of them (any case). */
export const RESERVED_HEADER_NAMES: readonly string[] = [
  'Content-Type', 'Content-Length', 'Host', 'Authorization', 'User-Agent', 'Transfer-Encoding', 'Connection', 'X-Service-Signature',
  'X-Event-Type', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Account-Id', 'X-Test', 'X-Hosted-Function-Id',
];
const reserved = new Set(RESERVED_HEADER_NAMES.map((name) => name.toLowerCase()));

/** An HTTP header field name (RFC 9110 token). */
const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An environment variable name. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Anything that could end a header line or is not text: every control character, CR and LF included. */
const NOT_HEADER_TEXT = /[\u0000-\u001F\u007F]/;

const EVENT_TYPE_MESSAGE = `must be an event type such as order:created (one of ${eventTypes.length} listed in the API description)`;

/** A catalog event type (events.md §1). */
const eventType = z
  .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') })
  .refine((value) => isEventType(value), { message: EVENT_TYPE_MESSAGE })
  .meta({ description: `One of: ${eventTypes.map((entry) => entry.type).join(', ')}` });

/** A value sent in a request header: no control characters (a CR or LF would start a new header). Also license services' (licenses.md §2.1). */
export function headerText(max: number) {
  return text(max).refine((value) => value === null || !NOT_HEADER_TEXT.test(value), reason('invalid', 'must not contain control characters or line breaks'));
}

/** The custom header's name: a header token the platform does not set itself. Also license services' (licenses.md §2.1: the same reserved names). */
export const headerName = orNull(
  z
    .string({ error: 'must be a string' })
    .max(100, { error: 'must be at most 100 characters' })
    .regex(HEADER_TOKEN, { error: 'must be a valid HTTP header name' })
    .refine((value) => !reserved.has(value.toLowerCase()), reason('not_allowed', 'is a header the platform sets itself')),
);

/** The Basic user name: the part before the colon, so it may not hold one. Also license services'. */
export const username = headerText(255).refine((value) => value === null || !value.includes(':'), reason('invalid', 'must not contain a colon'));

/** A variable name, for the array form's `name` (the object form checks its keys the same way). */
const variableName = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .max(MAX_VARIABLE_NAME, { error: `must be at most ${MAX_VARIABLE_NAME} characters` })
  .regex(VARIABLE_NAME, { error: 'must start with a letter or underscore and hold only letters, digits and underscores' });

const variableValue = z.string({ error: 'must be a string' }).max(MAX_VARIABLE_VALUE, { error: `must be at most ${MAX_VARIABLE_VALUE} characters` });

/** The array form: `[{name, value}]`, each name once. */
const variableArray = z
  .array(z.object({ name: variableName, value: variableValue }, { error: 'must be an object with name and value' }))
  .max(MAX_ENVIRONMENT_VARIABLES, { error: `must have at most ${MAX_ENVIRONMENT_VARIABLES} names` })
  .superRefine((entries, context) => {
    const seen = new Set<string>();
    entries.forEach((entry, index) => {
      if (seen.has(entry.name)) context.addIssue({ code: 'custom', path: [index, 'name'], message: `names ${entry.name} twice`, params: { reason: 'conflict' } });
      seen.add(entry.name);
    });
  })
  .transform((entries): Record<string, string> => Object.fromEntries(entries.map((entry) => [entry.name, entry.value])));

/** The object form: name → value. */
const variableObject = freeRecord(variableValue)
  .superRefine((value, context) => {
    const names = Object.keys(value);
    if (names.length > MAX_ENVIRONMENT_VARIABLES) {
      context.addIssue({ code: 'custom', message: `must have at most ${MAX_ENVIRONMENT_VARIABLES} names`, params: { reason: 'too_long' } });
      return;
    }
    const bad = names.find((name) => name.length > MAX_VARIABLE_NAME || !VARIABLE_NAME.test(name));
    if (bad !== undefined) {
      context.addIssue({ code: 'custom', path: [bad], message: 'is not a valid variable name (letters, digits and underscores, not starting with a digit, at most 64 characters)', params: { reason: 'invalid' } });
    }
  })
  .transform((value): Record<string, string> => ({ ...value }));

/**
 * `environment_variables`: an object of name → string value, or an array of `{name, value}`
 * (a name given twice is refused); at most 50 names. Stored as the object; null clears it.
 * The form is picked by the value's shape (not a union), so a failure names the entry at fault.
 */
const environmentVariables = z
  .unknown()
  .transform((value, context): Record<string, string> => {
    if (value === null || value === undefined) return {};
    if (typeof value !== 'object') {
      context.addIssue({ code: 'custom', message: 'must be an object or an array', params: { reason: 'invalid' } });
      return z.NEVER;
    }
    const parsed = (Array.isArray(value) ? variableArray : variableObject).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) context.addIssue({ ...issue, path: [...issue.path] } as Parameters<typeof context.addIssue>[0]);
    return z.NEVER;
  })
  .meta({
    type: ['object', 'array', 'null'],
    description: 'Name/value pairs copied into every notification body: an object of string values, or an array of {name, value}; at most 50 names matching [A-Za-z_][A-Za-z0-9_]* (64 characters), values of at most 1,024 characters',
  });

const ZONE_MESSAGE = 'must be an IANA time zone name or UTC';

/** An IANA zone or UTC, stored canonical; null (or `''`) means the account default. */
const timezone = orNull(
  z
    .string({ error: ZONE_MESSAGE })
    .refine((name) => timeZoneName(name) !== undefined, { message: ZONE_MESSAGE })
    .transform((name) => timeZoneName(name)!),
);

/** A per-subscription signature key, 16 to 256 characters; null means the account key. */
const signatureKey = orNull(
  z
    .string({ error: 'must be a string' })
    .refine((value) => value.length >= SIGNATURE_KEY_LENGTH.min, reason('too_short', `must be at least ${SIGNATURE_KEY_LENGTH.min} characters`))
    .refine((value) => value.length <= SIGNATURE_KEY_LENGTH.max, reason('too_long', `must be at most ${SIGNATURE_KEY_LENGTH.max} characters`))
    .refine((value) => !NOT_HEADER_TEXT.test(value), reason('invalid', 'must not contain control characters')),
);

/** The properties both operations take; everything is optional (a create adds its required ones). */
const writable = {
  format: orNull(oneOf(['json', 'xml', 'html'])).optional(),
  active: flag().optional(),
  comments: text(1000).optional(),
  http_authorization_username: username.optional(),
  http_authorization_password: headerText(1024).optional(),
  http_authorization: headerText(4096).optional(),
  custom_header_name: headerName.optional(),
  custom_header_value: headerText(4096).optional(),
  environment_variables: environmentVariables.optional(),
  expand: text(1000).optional(),
  show: text(1000).optional(),
  hide: text(1000).optional(),
  timezone: timezone.optional(),
  signature_key: signatureKey.optional(),
};

/** `POST /event_subscriptions`. */
export const eventSubscriptionCreate = body({
  event_type: eventType,
  method: oneOf(['http', 'email']),
  destination: requiredText(MAX_DESTINATION_LENGTH),
  ...writable,
});

/** `POST /event_subscriptions/{event_subscription_id}`: a partial update (unknown and read-only properties are dropped). */
export const eventSubscriptionUpdate = body({
  event_type: eventType.optional(),
  method: oneOf(['http', 'email']).optional(),
  destination: requiredText(MAX_DESTINATION_LENGTH).optional(),
  ...writable,
});

/** An event subscription body as parsed, create or update. */
export type EventSubscriptionInput = z.output<typeof eventSubscriptionUpdate>;

/** Longest compact JSON text of a sample delivery's `data`. */
export const MAX_SAMPLE_DATA_CHARS = 65_536;

/** `POST /event_subscriptions/{id}/test` (events.md §10): optional `data` replacing the sample object. */
export const eventSubscriptionTest = body({
  data: freeRecord(z.unknown())
    .refine((value) => jsonDepth(value) <= MAX_META_DEPTH, reason('too_long', `must be nested at most ${MAX_META_DEPTH} levels deep`))
    .refine((value) => JSON.stringify(value).length <= MAX_SAMPLE_DATA_CHARS, reason('too_long', `must be at most ${MAX_SAMPLE_DATA_CHARS} characters of JSON`))
    .nullish()
    .meta({ description: 'The notification data to send instead of a made-up sample object of the subscription type' }),
});
