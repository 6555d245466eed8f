/** Request bodies of `/auths` (auth.md §4, §8.1), declared once: validation, types and OpenAPI. */
import { body, dateInput, flag, list, reason, text, z } from '../../rest/fields';
import { permissionMethods, permissionResources } from '../../core/access/permission-names';
import type { PermissionEntry } from '../../core/access/permissions';
import { parseInput } from '../../rest/validate';

/** Most entries of a permission list, and most methods of one entry. */
const MAX_PERMISSION_ENTRIES = 200;
const MAX_METHODS = 20;

/** One write-format entry (auth.md §8.1): a resource or `*`, its methods or `*`, and `allow` (default true). */
export const permissionEntry = body({
  resource: z.enum([...permissionResources, '*'], { error: 'must name a known resource or "*"' }),
  methods: list(z.enum([...permissionMethods, '*'], { error: 'must be read, create, update, delete or "*"' }), MAX_METHODS).min(1, {
    error: 'must be a non-empty array',
  }),
  allow: flag().optional(),
}).transform((entry): PermissionEntry => ({ resource: entry.resource, methods: [...new Set(entry.methods)], allow: entry.allow ?? true }));

/** A non-empty write-format permission list (secret tokens; later users and OAuth apps). */
export const permissionList = list(permissionEntry, MAX_PERMISSION_ENTRIES).min(1, { error: 'must not be empty' });

/** `comments` of a secret token: at most 1,000 characters; `''` and null are null. */
const comments = text(1000);

/**
 * `expires`: a timestamp or date shorthand, checked for form here; the action resolves it (the
 * last moment of its period, in the zone in effect) and requires it to lie ahead. Null: never.
 */
const expires = dateInput();

/** `POST /auths/secret`: `permissions` is required (null too is refused as missing). */
export const secretAuthCreate = body({
  comments: comments.optional(),
  expires: expires.optional(),
  permissions: permissionList
    .nullable()
    .refine((entries) => entries !== null, reason('required', 'is required'))
    .transform((entries) => entries!),
});

/** `POST /auths/{auth_id}`: changes `comments`, `expires` and `permissions` of a secret token; the rest is discarded. */
export const authUpdate = body({
  comments: comments.optional(),
  expires: expires.optional(),
  permissions: permissionList.optional(),
});

/** An auth body as parsed, create or update. */
export type AuthInput = z.output<typeof authUpdate>;

/**
 * Validates and normalizes a write-format list that did not come through a declared body
 * (`permissionList` above): unknown resources or methods fail with 400
 * invalid_input naming the property, e.g. `permissions[2].resource`.
 */
export function parsePermissions(value: unknown, property = 'permissions'): PermissionEntry[] {
  return parseInput(permissionList, value, property);
}
