/** The permission model: write format, evaluation and read format (auth.md section 8). */
import {
  grantableMethods,
  permissionMethods,
  permissionResources,
  type PermissionMethod,
  type PermissionResource,
} from './permission-names';

/** One entry of the write format. */
export interface PermissionEntry {
  resource: PermissionResource | '*';
  methods: Array<PermissionMethod | '*'>;
  allow: boolean;
}

/** The read format: every resource with a boolean per method. */
export type EffectivePermissions = Record<PermissionResource, Record<PermissionMethod, boolean>>;

/** Every right: the permission list of bootstrap tokens. */
export const FULL_ACCESS: PermissionEntry[] = [{ resource: '*', methods: ['*'], allow: true }];

/**
 * The type-level rights of a limited token (auth.md 3.2): read products, create carts and
 * direct payments. Its rights over single resources come from bindings and reach, not from
 * this list; `/auths/me`, `/payments/options` and customer login need no permission.
 */
export const LIMITED_BASE_RIGHTS: readonly PermissionEntry[] = Object.freeze([
  { resource: 'products', methods: ['read'], allow: true },
  { resource: 'carts', methods: ['create'], allow: true },
  { resource: 'payments', methods: ['create'], allow: true },
]) as readonly PermissionEntry[];

/** The write-format rights a token record carries: owners everything, limited tokens their base set. */
export function rightsOfToken(record: { kind: string; is_owner?: boolean; permissions?: PermissionEntry[] }): readonly PermissionEntry[] {
  if (record.is_owner) return FULL_ACCESS;
  if (record.kind === 'limited') return LIMITED_BASE_RIGHTS;
  return record.permissions ?? [];
}

/** Whether a write-format list allows `(resource, method)`: deny wins, no entry means no right. */
export function isAllowed(entries: readonly PermissionEntry[], resource: PermissionResource, method: PermissionMethod): boolean {
  let allowed = false;
  for (const entry of entries) {
    if (entry.resource !== '*' && entry.resource !== resource) continue;
    if (!entry.methods.includes('*') && !entry.methods.includes(method)) continue;
    if (!entry.allow) return false;
    allowed = true;
  }
  return allowed;
}

/** The read format of a list (every resource, every method). */
export function effectivePermissions(entries: readonly PermissionEntry[]): EffectivePermissions {
  const out = {} as EffectivePermissions;
  for (const resource of permissionResources) {
    const methods = {} as Record<PermissionMethod, boolean>;
    for (const method of permissionMethods) methods[method] = isAllowed(entries, resource, method);
    out[resource] = methods;
  }
  return out;
}

/**
 * The `resource:method` pairs that `requested` allows but `holder` does not: an escalation
 * attempt when non-empty (auth.md section 4.1). Only methods with an effect are compared.
 */
export function deniedGrants(requested: readonly PermissionEntry[], holder: readonly PermissionEntry[]): string[] {
  const denied: string[] = [];
  for (const resource of permissionResources) {
    for (const method of grantableMethods[resource]) {
      if (isAllowed(requested, resource, method) && !isAllowed(holder, resource, method)) {
        denied.push(`${resource}:${method}`);
      }
    }
  }
  return denied;
}

/** The grantable permissions, as `/auths/options` lists them. */
export function grantablePermissions(): Array<{ resource: PermissionResource; methods: PermissionMethod[] }> {
  return permissionResources.map((resource) => ({ resource, methods: [...grantableMethods[resource]] }));
}
