/** Resource names of the permission model (auth.md section 8.3), in the contract's order. */
export const permissionResources = [
  'accounts',
  'settings',
  'users',
  'auths',
  'products',
  'carts',
  'orders',
  'customers',
  'payments',
  'refunds',
  'subscriptions',
  'invoices',
  'shipments',
  'promotions',
  'reports',
  'license_services',
  'license_requests',
  'event_subscriptions',
  'events',
  'notifications',
  'hosted_functions',
  'hosted_function_executions',
  'apps',
] as const;

/** A permission resource name, e.g. `orders`. */
export type PermissionResource = (typeof permissionResources)[number];

/** The four permission methods. */
export const permissionMethods = ['read', 'create', 'update', 'delete'] as const;

/** A permission method. */
export type PermissionMethod = (typeof permissionMethods)[number];

/** Methods with an effect per resource (auth.md 8.3); `/auths/options` lists these. */
export const grantableMethods: Record<PermissionResource, readonly PermissionMethod[]> = {
  accounts: ['read', 'update'],
  settings: ['read', 'update'],
  users: permissionMethods,
  auths: permissionMethods,
  products: permissionMethods,
  carts: ['read', 'create', 'update'],
  orders: ['read', 'update'],
  customers: permissionMethods,
  payments: ['read', 'create', 'update'],
  refunds: ['read', 'create'],
  subscriptions: ['read', 'create', 'update'],
  invoices: permissionMethods,
  shipments: permissionMethods,
  promotions: permissionMethods,
  reports: ['read'],
  license_services: permissionMethods,
  license_requests: ['read', 'update'],
  event_subscriptions: permissionMethods,
  events: ['read', 'update'],
  notifications: ['read', 'update'],
  hosted_functions: permissionMethods,
  hosted_function_executions: ['create'],
  apps: permissionMethods,
};
