/**
 * Request bodies of `/apps` (hosting.md §2, §4, §5), declared once: validation, types and
 * OpenAPI. Sizes that the contract answers with 422 (settings, style and custom code) are the
 * operations' (./manage-apps), not a schema's 400.
 */
import { body, flag, freeRecord, reason, requiredText, text, z } from '../../../rest/fields';
import { MAX_APP_NAME, MAX_COMMENTS, MAX_LABEL } from './limits';

/** What an alias looks like: 1 to 63 of `a-z`, `0-9` and inner `-`. */
export const ALIAS_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** Words no alias may be: the first path segments the platform serves itself. */
export const RESERVED_ALIASES = ['api', 'apps', 'func', 'signin', 'oauth', 'settings', 'analytics'] as const;

/** Whether a text is a valid alias (pattern, length, not reserved). */
export function isValidAlias(value: string): boolean {
  return value.length <= 63 && ALIAS_PATTERN.test(value) && !(RESERVED_ALIASES as readonly string[]).includes(value);
}

/** An alias (hosting.md §5): 1 to 63 characters matching `[a-z0-9]([a-z0-9-]*[a-z0-9])?`, not a reserved word. */
export function aliasName() {
  return z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') })
    .min(1, { error: 'is required' })
    .max(63, { error: 'must be at most 63 characters' })
    .regex(ALIAS_PATTERN, { error: 'must be lower-case letters, digits and inner hyphens (a-z, 0-9, -)' })
    .refine((value) => !(RESERVED_ALIASES as readonly string[]).includes(value), reason('not_allowed', `is a reserved word (${RESERVED_ALIASES.join(', ')})`))
    .meta({ description: `1 to 63 characters matching [a-z0-9]([a-z0-9-]*[a-z0-9])?; not one of ${RESERVED_ALIASES.join(', ')}; unique in the account` });
}

/** A free-form object, replaced whole; null resets it to `{}`. Its size is checked by the operation (422 over 64 KB). */
function freeObject(description: string) {
  return freeRecord(z.unknown())
    .nullable()
    .transform((value) => value ?? {})
    .meta({ description });
}

/** Custom CSS or JavaScript: a string, `''` and null stored as null. Its size is checked by the operation (422 over 256 KB). */
function customCode(description: string) {
  return z
    .string({ error: 'must be a string' })
    .nullable()
    .transform((value) => (value === '' ? null : value))
    .meta({ description });
}

/** A version id in a body. */
function versionId() {
  return z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') })
    .min(1, { error: 'is required' })
    .max(100, { error: 'must be at most 100 characters' });
}

/** A pinned version id, or null for "follow the live version". */
function pinnedVersion() {
  return z
    .string({ error: 'must be a string or null' })
    .max(100, { error: 'must be at most 100 characters' })
    .nullable()
    .transform((value) => (value === '' ? null : value))
    .meta({ description: 'The version the alias serves (it must be ready), or null to follow the live version' });
}

const appProperties = {
  test: flag().optional().meta({ description: 'The mode injected for the primary alias; default: the mode of the creating token' }),
  settings: freeObject('Free-form app settings, replaced whole; compact JSON of at most 64 KB').optional(),
  style: freeObject('Free-form style values, replaced whole; compact JSON of at most 64 KB').optional(),
  custom_css: customCode('Served as settings/style.css; at most 256 KB').optional(),
  custom_javascript: customCode('Served as settings/script.js; at most 256 KB').optional(),
};

/** `POST /apps`. */
export const appCreate = body({
  name: requiredText(MAX_APP_NAME),
  alias: aliasName(),
  ...appProperties,
});

/** `POST /apps/{app_id}`: a partial update; `settings` and `style` are replaced as whole objects, a new `alias` takes effect at once. */
export const appUpdate = body({
  name: requiredText(MAX_APP_NAME).optional(),
  alias: aliasName().optional(),
  ...appProperties,
});

/** An app body as parsed, create or update. */
export type AppInput = z.output<typeof appUpdate>;

/** `POST /apps/{app_id}/deploy`. */
export const deployBody = body({ version_id: versionId() });

/** `POST /apps/{app_id}/rollback`: optional; without `version_id` the target is the version live before the current one. */
export const rollbackBody = body({
  version_id: versionId().nullish().meta({ description: 'The version to roll back to; default: the previous_version_id of the most recent deployment' }),
});

/** `POST /apps/{app_id}/aliases`. */
export const aliasCreate = body({
  alias: aliasName(),
  version_id: pinnedVersion().optional(),
  test: flag().optional().meta({ description: 'The mode injected under this alias; default: the app’s test' }),
});

/** `POST /apps/{app_id}/aliases/{alias}`: change the pinned version or the mode. */
export const aliasUpdate = body({
  version_id: pinnedVersion().optional(),
  test: flag().optional(),
});

/** The text fields of a version upload (multipart form fields beside `file`). */
export const versionFields = body({
  label: text(MAX_LABEL).optional(),
  comments: text(MAX_COMMENTS).optional(),
});

/** Sort orders of the lists. */
export const APP_SORT_FIELDS = ['date_created', 'name', 'date_deployed'] as const;
export const VERSION_SORT_FIELDS = ['number', 'date_created'] as const;
export const DEPLOYMENT_SORT_FIELDS = ['date_created'] as const;
