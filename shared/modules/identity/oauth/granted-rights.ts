/** What a token issued through an OAuth app may do (auth.md 6.3). */
import { isAllowed, type PermissionEntry } from '../../../core/access/permissions';
import { permissionMethods, permissionResources } from '../../../core/access/permission-names';
import { rightsOfUser, type UserRecord } from '../users';
import type { OAuthAppRecord } from './oauth-records';

/**
 * What a token issued through `app` to `user` may do (auth.md 6.3): the user's rights narrowed by
 * the app's `permissions`; without a cap, exactly the user's (an owner stays an owner). The
 * narrowed list names each allowed `(resource, method)`, so nobody gets what either lacks.
 */
export function grantedRights(user: Pick<UserRecord, 'is_account_owner' | 'permissions'>, app: Pick<OAuthAppRecord, 'permissions'>): { permissions: PermissionEntry[]; isOwner: boolean } {
  const userRights = rightsOfUser(user);
  if (app.permissions === null) return { permissions: [...userRights], isOwner: user.is_account_owner };
  const cap = app.permissions;
  const entries: PermissionEntry[] = [];
  for (const resource of permissionResources) {
    const methods = permissionMethods.filter((method) => isAllowed(userRights, resource, method) && isAllowed(cap, resource, method));
    if (methods.length) entries.push({ resource, methods: [...methods], allow: true });
  }
  return { permissions: entries, isOwner: false };
}

