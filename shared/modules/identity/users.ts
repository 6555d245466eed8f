/**
 * The user resource (auth.md 9): internal people who sign in at the sign-in page. Users are
 * account-wide (both modes); a user id and an email are unique on the whole platform. Owners
 * hold every permission; everyone else the write-format list stored on the user, which trusted
 * tokens copy when they are issued.
 */
import { effectivePermissions, FULL_ACCESS, type PermissionEntry } from '../../core/access/permissions';
import { declareResource } from '../../rest/declarations';
import type { RenderContext } from '../../rest/render-context';

/** A stored user. */
export interface UserRecord {
  user_id: string;
  account_id: string;
  name: string;
  email: string;
  /** The scrypt hash (passwords.ts), or null: the user cannot sign in until a password is set. */
  password_hash: string | null;
  is_account_owner: boolean;
  language: string;
  locale: string;
  /** Write format; ignored for owners. */
  permissions: PermissionEntry[];
  last_login_ms?: number;
  created_ms: number;
  modified_ms: number;
}

/** A user's rights in write format: owners everything, others their list. */
export function rightsOfUser(user: Pick<UserRecord, 'is_account_owner' | 'permissions'>): PermissionEntry[] {
  return user.is_account_owner ? FULL_ACCESS : user.permissions;
}

/** The user declaration (REST conventions engine): account-wide; the password never appears. */
export const userDeclaration = declareResource<UserRecord>({
  name: 'user',
  collection: 'users',
  idField: 'user_id',
  permission: 'users',
  scope: 'account',
  formatted: { dates: ['date_last_login', 'date_created', 'date_modified'] },
  idOf: (record) => record.user_id,
  toJson(record, context: RenderContext) {
    return {
      object: 'user',
      user_id: record.user_id,
      url: context.url(`users/${encodeURIComponent(record.user_id)}`),
      account_id: record.account_id,
      name: record.name,
      email: record.email,
      language: record.language,
      locale: record.locale,
      is_account_owner: record.is_account_owner,
      permissions: record.is_account_owner ? [] : record.permissions,
      effective_permissions: effectivePermissions(rightsOfUser(record)),
      date_last_login: context.date(record.last_login_ms),
      date_created: context.date(record.created_ms),
      date_modified: context.date(record.modified_ms),
    };
  },
});
