/**
 * The route table: every HTTP route of the platform, as data.
 *
 * Both runtimes read this one list. The CDK stack creates one API Gateway route per entry,
 * integrated with the Lambda function of the entry's family; the local gateway matches the
 * same entries and calls the same family handler with the same API Gateway v2 event.
 * A family is a group of routes served by one Lambda function (one bundle).
 */
import type { PermissionMethod, PermissionResource } from '../core/access/permission-names';
import { routeKey, type KeyOfRoute, type RouteAccess, type RouteDefinition } from '../http/routes';

export { routeKey, type KeyOfRoute, type ParamKeys, type RouteAccess, type RouteDefinition, type RouteMethod, type RouteParams } from '../http/routes';
import { MAX_UPLOAD_BODY_BYTES } from '../modules/images';
import { MAX_VERSION_UPLOAD_BODY_BYTES } from '../modules/hosting';




/**
 * What a family's Lambda function may touch; the CDK stack grants exactly this and nothing
 * more (least privilege per function).
 */
export interface FamilyGrants {
  /** Access to the single table. */
  table: 'none' | 'read' | 'readWrite';
  /** Use of the secrets KMS key. */
  secrets: 'none' | 'encrypt' | 'decrypt' | 'encryptDecrypt';
  /** May send email through SES. */
  email: boolean;
  /** Queues (by logical name, shared/app/queues.ts) the family sends messages to. */
  sendsTo: readonly string[];
  /** Object access under key prefixes of the buckets (images: put the files, delete them later; hosting: read app files). */
  objects?: readonly ObjectGrant[];
  /**
   * May rewrite the CDN's copy of the alias pointers (the CloudFront KeyValueStore the apps
   * edge function reads, hosting.md §10): its ARN in `CARTWHEEL_APP_POINTERS_KVS_ARN`.
   */
  edgePointers?: boolean;
}

/** Object access under one key prefix of a bucket. */
export interface ObjectGrant {
  bucket: 'apps' | 'functions';
  prefix: string;
  read?: boolean;
  put?: boolean;
  delete?: boolean;
}

/** A route family: one Lambda function (one bundle) in the cloud, one module locally. */
export interface FamilyDefinition {
  /** The handler module both runtimes load; it exports `handler`. */
  entry: string;
  memoryMb: number;
  description: string;
  grants: FamilyGrants;
  /**
   * Packages with native code the bundle cannot inline: they ship beside it in `node_modules`,
   * for linux-arm64 (infra/cloud/native-modules.ts).
   */
  nativeModules?: readonly 'sharp'[];
  /**
   * The function is also an origin of the apps CDN (through its function URL), so the CDN
   * depends on it: it is not told the CDN's own address (the image file root), which would
   * make the distribution depend on itself. Such a family renders no image links.
   */
  cdnOrigin?: true;
}

/** Lambda function groups. `entry` is the handler module both runtimes load. */
export const families = {
  auths: {
    entry: 'handlers/http/auths.ts',
    memoryMb: 256,
    description: 'Tokens: /auths',
    // Idempotent replays of answers that carry a new token are stored sealed.
    grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: false, sendsTo: [] },
  },
  catalog: {
    entry: 'handlers/http/catalog.ts',
    memoryMb: 256,
    description: 'Products: /products',
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: ['event-notifications'] },
  },
  customers: {
    entry: 'handlers/http/customers.ts',
    memoryMb: 256,
    description: 'Customers: /customers',
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
  },
  carts: {
    entry: 'handlers/http/carts.ts',
    memoryMb: 256,
    description: 'Carts and cart items: /carts',
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
  },
  payments: {
    entry: 'handlers/http/payments.ts',
    memoryMb: 512,
    description: 'Payments and checkout: /payments, /carts/{id}/payments',
    // A paid order's remote license requests are handed to their queue (list codes are taken here).
    grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: true, sendsTo: ['event-notifications', 'license-requests'] },
  },
  orders: {
    entry: 'handlers/http/orders.ts',
    memoryMb: 256,
    description: 'Orders: /orders',
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
  },
  promotions: {
    entry: 'handlers/http/promotions.ts',
    memoryMb: 256,
    description: 'Promotions (coupon codes): /promotions',
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
  },
  shipping: {
    entry: 'handlers/http/shipping-methods.ts',
    memoryMb: 256,
    description: 'Shipping methods: /shipping_methods',
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
  },
  images: {
    entry: 'handlers/http/images.ts',
    // sharp decodes up to 40 megapixels (160 MB a frame) and encodes five files from it.
    memoryMb: 1536,
    description: 'Product images: /images (uploads sized with sharp)',
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: ['event-notifications'], objects: [{ bucket: 'apps', prefix: 'images/', put: true }] },
    nativeModules: ['sharp'],
  },
  events: {
    entry: 'handlers/http/event-subscriptions.ts',
    memoryMb: 256,
    description: 'Event subscriptions and events: /event_subscriptions, /events',
    // The secret properties of a subscription are sealed on write and opened for privileged readers
    // and for manual retries, which also send email notifications (outbound HTTP needs no grant).
    grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: true, sendsTo: [] },
  },
  licenses: {
    entry: 'handlers/http/licenses.ts',
    memoryMb: 256,
    description: 'License services, license requests and licenses: /license_services, /license_requests, /licenses',
    // Secrets are sealed on write and opened for privileged readers and manual re-sends (which
    // sign with the account key); a re-send may release a confirmation email; taking codes and
    // re-sends record events, whose fan-out is relayed to the event queue after the request.
    grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: true, sendsTo: ['event-notifications'] },
  },
  apps: {
    entry: 'handlers/http/apps.ts',
    // A version upload holds a zip of up to 50 MB and inflates one file of up to 200 MB at a time.
    memoryMb: 1536,
    description: 'Hosted apps: /apps, their versions, deployments and aliases',
    // Version files and manifests are written at upload; the files of failed or deleted versions are removed.
    // Every change that moves an alias pointer copies it to the CDN's KeyValueStore right after its commit.
    grants: {
      table: 'readWrite',
      secrets: 'none',
      email: false,
      sendsTo: [],
      objects: [
        { bucket: 'apps', prefix: 'apps/', read: true, put: true, delete: true },
        { bucket: 'apps', prefix: 'app-manifests/', read: true, put: true, delete: true },
      ],
      edgePointers: true,
    },
  },
  settings: {
    entry: 'handlers/http/settings.ts',
    memoryMb: 256,
    description: 'Account settings: /settings/*',
    grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: false, sendsTo: [] },
  },
  hosting: {
    entry: 'handlers/http/app-serving.ts',
    memoryMb: 512,
    description: 'Hosted apps behind the CDN (platform-owned files, bucket misses) and public account settings',
    // Reads pointers, apps and settings; the public route's per-IP rate limit writes its bucket.
    grants: {
      table: 'readWrite',
      secrets: 'none',
      email: false,
      sendsTo: [],
      objects: [
        { bucket: 'apps', prefix: 'apps/', read: true },
        { bucket: 'apps', prefix: 'app-manifests/', read: true },
      ],
    },
    cdnOrigin: true,
  },
  openapi: {
    entry: 'handlers/http/openapi.ts',
    memoryMb: 256,
    description: 'The API description: /openapi.json',
    // Public: the per-IP rate limit keeps its buckets in the table.
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
  },
  fallback: {
    entry: 'handlers/http/fallback.ts',
    memoryMb: 128,
    description: 'Unmatched paths (404), wrong methods (405) and CORS preflight',
    grants: { table: 'none', secrets: 'none', email: false, sendsTo: [] },
  },
} as const satisfies Record<string, FamilyDefinition>;

/** Name of a route family (one Lambda function in the cloud). */
export type FamilyName = keyof typeof families;

/** The family that answers everything no route matches (API Gateway `$default`). */
export const fallbackFamily: FamilyName = 'fallback';

const allow = (resource: PermissionResource, method: PermissionMethod): RouteAccess => ({
  kind: 'permission',
  resource,
  method,
});

/** Like `allow`, and limited tokens may come through to the action for resources they reach. */
const allowOrReach = (resource: PermissionResource, method: PermissionMethod): RouteAccess => ({
  kind: 'permission',
  resource,
  method,
  reach: true,
});

/** Every route of the platform. Order does not matter: literal segments beat `{params}`. */
export const routes = [
  { method: 'GET', path: '/api/v1/openapi.json', family: 'openapi', access: { kind: 'public' } },

  { method: 'GET', path: '/api/v1/auths', family: 'auths', access: allow('auths', 'read') },
  { method: 'POST', path: '/api/v1/auths/secret', family: 'auths', access: allow('auths', 'create') },
  { method: 'POST', path: '/api/v1/auths/limited', family: 'auths', access: { kind: 'public' } },
  { method: 'GET', path: '/api/v1/auths/options', family: 'auths', access: { kind: 'any-token' } },
  { method: 'GET', path: '/api/v1/auths/me', family: 'auths', access: { kind: 'any-token' } },
  { method: 'DELETE', path: '/api/v1/auths/me', family: 'auths', access: { kind: 'any-token' } },
  { method: 'GET', path: '/api/v1/auths/{auth_id}', family: 'auths', access: allow('auths', 'read') },
  { method: 'POST', path: '/api/v1/auths/{auth_id}', family: 'auths', access: allow('auths', 'update') },
  { method: 'DELETE', path: '/api/v1/auths/{auth_id}', family: 'auths', access: allow('auths', 'delete') },

  { method: 'GET', path: '/api/v1/products', family: 'catalog', access: allow('products', 'read') },
  { method: 'POST', path: '/api/v1/products', family: 'catalog', access: allow('products', 'create') },
  { method: 'GET', path: '/api/v1/products/{product_id}', family: 'catalog', access: allow('products', 'read') },
  { method: 'POST', path: '/api/v1/products/{product_id}', family: 'catalog', access: allow('products', 'update') },
  { method: 'DELETE', path: '/api/v1/products/{product_id}', family: 'catalog', access: allow('products', 'delete') },

  { method: 'GET', path: '/api/v1/images', family: 'images', access: allow('products', 'read') },
  {
    method: 'POST',
    path: '/api/v1/images',
    family: 'images',
    access: allow('products', 'create'),
    upload: { maxBytes: MAX_UPLOAD_BODY_BYTES },
  },
  { method: 'GET', path: '/api/v1/images/{image_id}', family: 'images', access: allow('products', 'read') },
  { method: 'DELETE', path: '/api/v1/images/{image_id}', family: 'images', access: allow('products', 'delete') },

  { method: 'GET', path: '/api/v1/customers', family: 'customers', access: allow('customers', 'read') },
  { method: 'POST', path: '/api/v1/customers', family: 'customers', access: allow('customers', 'create') },
  { method: 'POST', path: '/api/v1/customers/login', family: 'customers', access: { kind: 'public' } },
  { method: 'GET', path: '/api/v1/customers/me', family: 'customers', access: { kind: 'any-token' } },
  { method: 'POST', path: '/api/v1/customers/me', family: 'customers', access: { kind: 'any-token' } },
  { method: 'GET', path: '/api/v1/customers/{customer_id}', family: 'customers', access: allowOrReach('customers', 'read') },
  { method: 'POST', path: '/api/v1/customers/{customer_id}', family: 'customers', access: allowOrReach('customers', 'update') },
  { method: 'DELETE', path: '/api/v1/customers/{customer_id}', family: 'customers', access: allow('customers', 'delete') },
  { method: 'GET', path: '/api/v1/customers/{customer_id}/payment_methods', family: 'customers', access: allowOrReach('customers', 'read') },
  { method: 'POST', path: '/api/v1/customers/{customer_id}/payment_methods', family: 'customers', access: allowOrReach('customers', 'create') },
  { method: 'GET', path: '/api/v1/customers/{customer_id}/payment_methods/{payment_method_id}', family: 'customers', access: allowOrReach('customers', 'read') },
  { method: 'POST', path: '/api/v1/customers/{customer_id}/payment_methods/{payment_method_id}', family: 'customers', access: allowOrReach('customers', 'update') },
  { method: 'DELETE', path: '/api/v1/customers/{customer_id}/payment_methods/{payment_method_id}', family: 'customers', access: allowOrReach('customers', 'delete') },

  { method: 'GET', path: '/api/v1/carts', family: 'carts', access: allow('carts', 'read') },
  { method: 'POST', path: '/api/v1/carts', family: 'carts', access: allow('carts', 'create') },
  { method: 'GET', path: '/api/v1/carts/{cart_id}', family: 'carts', access: allowOrReach('carts', 'read') },
  { method: 'POST', path: '/api/v1/carts/{cart_id}', family: 'carts', access: allowOrReach('carts', 'update') },
  { method: 'GET', path: '/api/v1/carts/{cart_id}/items', family: 'carts', access: allowOrReach('carts', 'read') },
  { method: 'POST', path: '/api/v1/carts/{cart_id}/items', family: 'carts', access: allowOrReach('carts', 'create') },
  { method: 'GET', path: '/api/v1/carts/{cart_id}/items/{item_id}', family: 'carts', access: allowOrReach('carts', 'read') },
  { method: 'POST', path: '/api/v1/carts/{cart_id}/items/{item_id}', family: 'carts', access: allowOrReach('carts', 'update') },
  { method: 'DELETE', path: '/api/v1/carts/{cart_id}/items/{item_id}', family: 'carts', access: allowOrReach('carts', 'update') },
  { method: 'POST', path: '/api/v1/carts/{cart_id}/login', family: 'carts', access: allowOrReach('carts', 'update') },
  { method: 'POST', path: '/api/v1/carts/{cart_id}/logout', family: 'carts', access: allowOrReach('carts', 'update') },

  { method: 'POST', path: '/api/v1/carts/{cart_id}/payments', family: 'payments', access: allowOrReach('payments', 'create') },
  { method: 'GET', path: '/api/v1/carts/{cart_id}/payments', family: 'payments', access: allowOrReach('payments', 'read') },
  { method: 'GET', path: '/api/v1/payments', family: 'payments', access: allow('payments', 'read') },
  { method: 'GET', path: '/api/v1/payments/options', family: 'payments', access: { kind: 'any-token' } },
  { method: 'POST', path: '/api/v1/payments', family: 'payments', access: allow('payments', 'create') },
  { method: 'GET', path: '/api/v1/payments/{payment_id}', family: 'payments', access: allowOrReach('payments', 'read') },
  { method: 'POST', path: '/api/v1/payments/{payment_id}', family: 'payments', access: allowOrReach('payments', 'update') },
  { method: 'POST', path: '/api/v1/payments/{payment_id}/commit', family: 'payments', access: allowOrReach('payments', 'update') },

  { method: 'GET', path: '/api/v1/orders', family: 'orders', access: allow('orders', 'read') },
  { method: 'GET', path: '/api/v1/orders/{order_id}', family: 'orders', access: allowOrReach('orders', 'read') },
  { method: 'POST', path: '/api/v1/orders/{order_id}', family: 'orders', access: allow('orders', 'update') },
  { method: 'GET', path: '/api/v1/orders/{order_id}/items', family: 'orders', access: allowOrReach('orders', 'read') },
  { method: 'GET', path: '/api/v1/orders/{order_id}/items/{item_id}', family: 'orders', access: allowOrReach('orders', 'read') },
  { method: 'POST', path: '/api/v1/orders/{order_id}/items/{item_id}', family: 'orders', access: allow('orders', 'update') },
  { method: 'GET', path: '/api/v1/orders/{order_id}/payments', family: 'orders', access: allowOrReach('payments', 'read') },
  { method: 'GET', path: '/api/v1/customers/{customer_id}/orders', family: 'orders', access: allowOrReach('orders', 'read') },
  { method: 'GET', path: '/api/v1/customers/{customer_id}/payments', family: 'orders', access: allowOrReach('payments', 'read') },

  { method: 'GET', path: '/api/v1/promotions', family: 'promotions', access: allow('promotions', 'read') },
  { method: 'POST', path: '/api/v1/promotions', family: 'promotions', access: allow('promotions', 'create') },
  { method: 'GET', path: '/api/v1/promotions/{promotion_id}', family: 'promotions', access: allow('promotions', 'read') },
  { method: 'POST', path: '/api/v1/promotions/{promotion_id}', family: 'promotions', access: allow('promotions', 'update') },
  { method: 'DELETE', path: '/api/v1/promotions/{promotion_id}', family: 'promotions', access: allow('promotions', 'delete') },

  { method: 'GET', path: '/api/v1/shipping_methods', family: 'shipping', access: allow('settings', 'read') },
  { method: 'POST', path: '/api/v1/shipping_methods', family: 'shipping', access: allow('settings', 'update') },
  { method: 'GET', path: '/api/v1/shipping_methods/{shipping_method_id}', family: 'shipping', access: allow('settings', 'read') },
  { method: 'POST', path: '/api/v1/shipping_methods/{shipping_method_id}', family: 'shipping', access: allow('settings', 'update') },
  { method: 'DELETE', path: '/api/v1/shipping_methods/{shipping_method_id}', family: 'shipping', access: allow('settings', 'update') },

  { method: 'GET', path: '/api/v1/event_subscriptions', family: 'events', access: allow('event_subscriptions', 'read') },
  { method: 'POST', path: '/api/v1/event_subscriptions', family: 'events', access: allow('event_subscriptions', 'create') },
  { method: 'GET', path: '/api/v1/event_subscriptions/{event_subscription_id}', family: 'events', access: allow('event_subscriptions', 'read') },
  { method: 'POST', path: '/api/v1/event_subscriptions/{event_subscription_id}', family: 'events', access: allow('event_subscriptions', 'update') },
  { method: 'DELETE', path: '/api/v1/event_subscriptions/{event_subscription_id}', family: 'events', access: allow('event_subscriptions', 'delete') },
  { method: 'POST', path: '/api/v1/event_subscriptions/{event_subscription_id}/test', family: 'events', access: allow('event_subscriptions', 'update') },
  { method: 'POST', path: '/api/v1/event_subscriptions/{event_subscription_id}/test/{anything}', family: 'events', access: allow('event_subscriptions', 'update') },
  { method: 'GET', path: '/api/v1/events', family: 'events', access: allow('events', 'read') },
  { method: 'GET', path: '/api/v1/events/{event_id}', family: 'events', access: allow('events', 'read') },
  { method: 'POST', path: '/api/v1/events/{event_id}/retry', family: 'events', access: allow('events', 'update') },

  { method: 'GET', path: '/api/v1/license_services', family: 'licenses', access: allow('license_services', 'read') },
  { method: 'POST', path: '/api/v1/license_services', family: 'licenses', access: allow('license_services', 'create') },
  { method: 'GET', path: '/api/v1/license_services/{license_service_id}', family: 'licenses', access: allow('license_services', 'read') },
  { method: 'POST', path: '/api/v1/license_services/{license_service_id}', family: 'licenses', access: allow('license_services', 'update') },
  { method: 'DELETE', path: '/api/v1/license_services/{license_service_id}', family: 'licenses', access: allow('license_services', 'delete') },
  { method: 'GET', path: '/api/v1/license_requests', family: 'licenses', access: allow('license_requests', 'read') },
  { method: 'GET', path: '/api/v1/license_requests/{license_request_id}', family: 'licenses', access: allow('license_requests', 'read') },
  { method: 'POST', path: '/api/v1/license_requests/{license_request_id}/retry', family: 'licenses', access: allow('license_requests', 'update') },
  { method: 'GET', path: '/api/v1/licenses/{license_id}', family: 'licenses', access: allowOrReach('orders', 'read') },
  { method: 'GET', path: '/api/v1/apps', family: 'apps', access: allow('apps', 'read') },
  { method: 'POST', path: '/api/v1/apps', family: 'apps', access: allow('apps', 'create') },
  { method: 'GET', path: '/api/v1/apps/{app_id}', family: 'apps', access: allow('apps', 'read') },
  { method: 'POST', path: '/api/v1/apps/{app_id}', family: 'apps', access: allow('apps', 'update') },
  { method: 'DELETE', path: '/api/v1/apps/{app_id}', family: 'apps', access: allow('apps', 'delete') },
  { method: 'GET', path: '/api/v1/apps/{app_id}/versions', family: 'apps', access: allow('apps', 'read') },
  {
    method: 'POST',
    path: '/api/v1/apps/{app_id}/versions',
    family: 'apps',
    access: allow('apps', 'update'),
    upload: { maxBytes: MAX_VERSION_UPLOAD_BODY_BYTES, fields: { label: 'Free text such as 1.4.2, at most 50 characters', comments: 'At most 1,000 characters' } },
    created: true,
  },
  { method: 'GET', path: '/api/v1/apps/{app_id}/versions/{version_id}', family: 'apps', access: allow('apps', 'read') },
  { method: 'DELETE', path: '/api/v1/apps/{app_id}/versions/{version_id}', family: 'apps', access: allow('apps', 'update') },
  { method: 'POST', path: '/api/v1/apps/{app_id}/deploy', family: 'apps', access: allow('apps', 'update'), created: true },
  { method: 'POST', path: '/api/v1/apps/{app_id}/rollback', family: 'apps', access: allow('apps', 'update'), created: true },
  { method: 'GET', path: '/api/v1/apps/{app_id}/deployments', family: 'apps', access: allow('apps', 'read') },
  { method: 'GET', path: '/api/v1/apps/{app_id}/deployments/{deployment_id}', family: 'apps', access: allow('apps', 'read') },
  { method: 'GET', path: '/api/v1/apps/{app_id}/aliases', family: 'apps', access: allow('apps', 'read') },
  { method: 'POST', path: '/api/v1/apps/{app_id}/aliases', family: 'apps', access: allow('apps', 'update'), created: true },
  { method: 'GET', path: '/api/v1/apps/{app_id}/aliases/{alias}', family: 'apps', access: allow('apps', 'read') },
  { method: 'POST', path: '/api/v1/apps/{app_id}/aliases/{alias}', family: 'apps', access: allow('apps', 'update') },
  { method: 'DELETE', path: '/api/v1/apps/{app_id}/aliases/{alias}', family: 'apps', access: allow('apps', 'update') },
  { method: 'GET', path: '/api/v1/app_installations/public_settings/{account_id}/{mode}/account.js', family: 'hosting', access: { kind: 'public' } },
  { method: 'GET', path: '/api/v1/app_installations/public_settings/{account_id}/{mode}/account.json', family: 'hosting', access: { kind: 'public' } },

  { method: 'GET', path: '/api/v1/settings/{group}', family: 'settings', access: allow('settings', 'read') },
  { method: 'POST', path: '/api/v1/settings/{group}', family: 'settings', access: allow('settings', 'update') },
] as const satisfies readonly RouteDefinition[];

/** One entry of the route table, with its literal method, path and family. */
export type Route = (typeof routes)[number];


/** Every route key of the table, e.g. `'GET /api/v1/carts/{cart_id}'`. */
export type RouteKey = KeyOfRoute<Route>;

/** The route keys served by one family. */
export type FamilyRouteKey<F extends FamilyName> = KeyOfRoute<Extract<Route, { family: F }>>;



/** Routes served by one family. */
export function routesOf(family: FamilyName): RouteDefinition[] {
  return routes.filter((route) => route.family === family);
}
