/**
 * The escalation rule of auth.md 4.1 and 9.2, one rule for secret tokens and users alike: every
 * `(resource, method)` a requested permission list allows must be allowed to the caller.
 */
import { InsufficientPermissionsError } from '../../http/auth-errors';
import { deniedGrants, FULL_ACCESS, type PermissionEntry } from '../../core/access/permissions';
import type { Principal } from '../../core/access/principal';

/** The caller's rights in write format: owners hold everything. */
export function holderPermissions(principal: Principal): readonly PermissionEntry[] {
  return principal.isOwner ? FULL_ACCESS : principal.permissions;
}

/** 403 insufficient_permissions with `meta.denied` when `requested` grants more than the caller holds. */
export function checkEscalation(principal: Principal, requested: readonly PermissionEntry[]): void {
  const denied = deniedGrants(requested, holderPermissions(principal));
  if (denied.length) throw new InsufficientPermissionsError('You cannot grant permissions you do not hold.', { denied });
}
