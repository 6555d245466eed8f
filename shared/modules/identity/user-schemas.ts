/** Request bodies of `/users` (auth.md §9), declared once: validation, types and OpenAPI. */
import { body, email, flag, languageTag, list, reason, requiredText, z } from '../../rest/fields';
import { permissionEntry } from './auth-schemas';

/** A user id: 3 to 64 characters of `[A-Za-z0-9._@-]`. */
const USER_ID = /^[A-Za-z0-9._@-]{3,64}$/;
const MAX_PERMISSION_ENTRIES = 200;

/** A user's permission list (write format; may be empty: no rights). */
const userPermissions = list(permissionEntry, MAX_PERMISSION_ENTRIES);

/** A password as sent: a string of at most 1,024 characters (the rules of §9.3 are the operation's, which knows the user id and email). */
const password = z.string({ error: 'must be a string' }).max(1024, { error: 'must be at most 128 characters' });

/** A required email address. */
const requiredEmail = email()
  .refine((value) => value !== null, reason('required', 'is required'))
  .transform((value) => value as string);

/** `POST /users`. */
export const userCreate = body({
  user_id: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .refine((value) => USER_ID.test(value), { message: 'must be 3 to 64 characters of A-Z, a-z, 0-9, ".", "_", "@" or "-"' }),
  name: requiredText(100),
  email: requiredEmail,
  password: password.optional(),
  language: languageTag().optional(),
  locale: languageTag().optional(),
  is_account_owner: flag().optional(),
  permissions: userPermissions.optional(),
});

/** `POST /users/{user_id}`: a partial update; `user_id` never changes. */
export const userUpdate = body({
  name: requiredText(100).optional(),
  email: requiredEmail.optional(),
  password: password.optional(),
  language: languageTag().optional(),
  locale: languageTag().optional(),
  is_account_owner: flag().optional(),
  permissions: userPermissions.optional(),
});

/** `POST /users/me`: what a user may change of itself; other properties are ignored. */
export const userSelfUpdate = body({
  name: requiredText(100).optional(),
  email: requiredEmail.optional(),
  password: password.optional(),
  current_password: z.string({ error: 'must be a string' }).max(1024).optional(),
  language: languageTag().optional(),
  locale: languageTag().optional(),
});

/** A user body as parsed (create or update). */
export type UserInput = z.output<typeof userUpdate> & { current_password?: string };
