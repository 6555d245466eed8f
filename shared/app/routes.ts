/**
 * The route table: every HTTP route of the platform, as data, composed from the modules'
 * manifests (shared/app/modules.ts) and the app's own two families (the API description and
 * the fallback).
 *
 * Both runtimes read this one list. The CDK stack creates one API Gateway route per entry,
 * integrated with the Lambda function of the entry's family; the local gateway matches the
 * same entries and calls the same family handler with the same API Gateway v2 event.
 * A family is a group of routes served by one Lambda function (one bundle).
 */
import type { FamilyDefinition } from '../http/manifest';
import { routeKey, type KeyOfRoute, type RouteDefinition } from '../http/routes';
import {
  accountsModule,
  cartsModule,
  catalogModule,
  customersModule,
  eventsModule,
  hostingModule,
  identityModule,
  imagesModule,
  licensesModule,
  ordersModule,
  paymentMethodsModule,
  paymentsModule,
  promotionsModule,
  shippingModule,
} from './modules';

export { routeKey, type KeyOfRoute, type ParamKeys, type RouteAccess, type RouteDefinition, type RouteMethod, type RouteParams } from '../http/routes';
export type { FamilyDefinition, FamilyGrants, ObjectGrant } from '../http/manifest';

/** The app's own families: the API description and the answer to everything unmatched. */
const appFamilies = {
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

/** Lambda function groups, by name: every module's and the app's own. `entry` is the handler module both runtimes load. */
export const families = {
  ...identityModule.families,
  ...catalogModule.families,
  ...customersModule.families,
  ...cartsModule.families,
  ...paymentsModule.families,
  ...ordersModule.families,
  ...promotionsModule.families,
  ...shippingModule.families,
  ...imagesModule.families,
  ...eventsModule.families,
  ...licensesModule.families,
  ...hostingModule.families,
  ...accountsModule.families,
  ...appFamilies,
} as const satisfies Record<string, FamilyDefinition>;

/** Name of a route family (one Lambda function in the cloud). */
export type FamilyName = keyof typeof families;

/** The family that answers everything no route matches (API Gateway `$default`). */
export const fallbackFamily: FamilyName = 'fallback';

/**
 * Every route of the platform, each served by a family that exists (the compiler checks).
 * Order does not matter: literal segments beat `{params}`.
 */
export const routes = [
  { method: 'GET', path: '/api/v1/openapi.json', family: 'openapi', access: { kind: 'public' } },
  ...identityModule.routes,
  ...catalogModule.routes,
  ...imagesModule.routes,
  ...customersModule.routes,
  ...paymentMethodsModule.routes,
  ...cartsModule.routes,
  ...paymentsModule.routes,
  ...ordersModule.routes,
  ...promotionsModule.routes,
  ...shippingModule.routes,
  ...eventsModule.routes,
  ...licensesModule.routes,
  ...hostingModule.routes,
  ...accountsModule.routes,
] as const satisfies readonly (RouteDefinition & { family: FamilyName })[];

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
