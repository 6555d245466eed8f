/**
 * Request bodies of `/license_services` (licenses.md §2.1), declared once: validation, types and
 * OpenAPI. Each property's own rules live here, codes included (trimmed, sanitised as license
 * replies are, 1 to 4,096 characters, so a bad entry is named `configuration.licenses[i]`); the
 * rules between properties (a remote service's URL, a header with its value) and those that need
 * data (the address guard, issued codes, the 10,000-code limit) are checked on the service as it
 * will be, by `licenseServiceFields` and the pool writer.
 *
 * `type` is fixed at creation: an update may repeat it (a posted-back object does) but not
 * change it, because a list's codes and a remote service's outstanding requests do not carry
 * over (`licenseServiceFields` refuses a change, `not_allowed`).
 */
import { basicUsernameField, customHeaderNameField, headerValueField } from '../../events';
import { body, decimal, flag, list, nested, oneOf, orNull, reason, requiredText, text, z } from '../../../rest/fields';
import { hasVisibleText, sanitizeLicenseReply } from '../sanitize';

/** Service types. */
export const LICENSE_SERVICE_TYPES = ['list', 'remote_url'] as const;

/** Longest code, in Unicode code points, after trimming and sanitising (licenses.md §2.1, §5.3). */
export const MAX_CODE_LENGTH = 4096;

/** Most codes a list service holds (licenses.md §2.1: `422 account_limit_exceeded` beyond). */
export const MAX_CODES = 10_000;

/** Longest remote URL. */
export const MAX_URL_LENGTH = 2000;

/**
 * Most entries one `licenses` or `add_licenses` array may have. Bodies are limited to 1 MiB
 * anyway; this bounds the work a body can ask for well above the 10,000 the service may hold,
 * so duplicates and issued codes can still be dropped from a full-size list before it is counted.
 */
export const MAX_CODES_PER_BODY = 50_000;

/** One code: trimmed and sanitised (§5.4), then 1 to 4,096 characters with visible text. */
const licenseCode = z
  .string({ error: 'must be a string' })
  .transform((raw) => sanitizeLicenseReply(raw.trim()).trim())
  .refine((code) => code !== '' && hasVisibleText(code), reason('required', 'must hold a code (text left after trimming and sanitising)'))
  .refine((code) => [...code].length <= MAX_CODE_LENGTH, reason('too_long', `must be at most ${MAX_CODE_LENGTH} characters after trimming and sanitising`));

/** A list of codes; null is an empty list. */
const codeList = list(licenseCode, MAX_CODES_PER_BODY)
  .nullable()
  .transform((codes) => codes ?? [])
  .meta({ description: `Codes, each 1 to ${MAX_CODE_LENGTH} characters after trimming and sanitising (licenses.md §5.4); duplicates are removed` });

/** `configuration` (licenses.md §2.1): every property optional; those that do not apply to the type are ignored. */
const configuration = nested({
  url: text(MAX_URL_LENGTH).optional(),
  format: orNull(oneOf(['json', 'xml'])).optional(),
  http_authorization_username: basicUsernameField.optional(),
  http_authorization_password: headerValueField(1024).optional(),
  custom_header_name: customHeaderNameField.optional(),
  custom_header_value: headerValueField(4096).optional(),
  licenses: codeList.optional(),
  add_licenses: codeList.optional().meta({ description: 'Write-only: codes appended to the stored list' }),
  // null (what a remote service shows for them, so a posted-back object sends it) means the default.
  per_quantity: flag().nullable().optional(),
  remove_after_use: flag().nullable().optional(),
  notify_at_count: orNull(decimal({ integer: true, min: 0 })).optional(),
});

/** The properties both operations take. */
const writable = {
  label: text(100).optional(),
  instructions: text(4000).optional(),
  description: text(2000).optional(),
  expand: text(1000).optional(),
  configuration: configuration.optional(),
};

/** `POST /license_services`. */
export const licenseServiceCreate = body({
  name: requiredText(100),
  type: oneOf(LICENSE_SERVICE_TYPES),
  ...writable,
});

/** `POST /license_services/{license_service_id}`: a partial update (unknown and read-only properties are dropped). */
export const licenseServiceUpdate = body({
  name: requiredText(100).optional(),
  type: oneOf(LICENSE_SERVICE_TYPES).optional(),
  ...writable,
});

/** A license service body as parsed, create or update. */
export type LicenseServiceInput = z.output<typeof licenseServiceUpdate>;

/** The `configuration` of a parsed body. */
export type ConfigurationInput = NonNullable<LicenseServiceInput['configuration']>;
