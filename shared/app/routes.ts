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
import { modules } from './modules';

export { routeKey, type KeyOfRoute, type ParamKeys, type RouteAccess, type RouteDefinition, type RouteMethod, type RouteParams } from '../http/routes';
export type { FamilyDefinition, FamilyGrants, ObjectGrant } from '../http/manifest';

/** The app's own families: the API description, its reference page and the answer to everything unmatched. */
const appFamilies = {
  openapi: {
    entry: 'handlers/http/openapi.ts',
    memoryMb: 256,
    description: 'The API description: /openapi.json',
    // Public: the per-IP rate limit keeps its buckets in the table.
    grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
  },
  // The API reference (`/docs`, a docs surface): a page and its vendored script, no API route.
  docs: {
    entry: 'handlers/http/docs.ts',
    memoryMb: 256,
    description: 'The API reference: /docs (a page and the vendored Scalar script)',
    grants: { table: 'none', secrets: 'none', email: false, sendsTo: [] },
    apiReference: true,
  },
  fallback: {
    entry: 'handlers/http/fallback.ts',
    memoryMb: 128,
    description: 'Unmatched paths (404), wrong methods (405) and CORS preflight',
    grants: { table: 'none', secrets: 'none', email: false, sendsTo: [] },
  },
} as const satisfies Record<string, FamilyDefinition>;

/** Turns a union of object types into their intersection (every module's families in one type). */
type Merged<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void ? I : never;

/** The families the modules own, by name, as one type. */
type ModuleFamilies = Merged<(typeof modules)[number]['families']>;

/** Lambda function groups, by name: every module's and the app's own. `entry` is the handler module both runtimes load. */
export const families: ModuleFamilies & typeof appFamilies = Object.assign({}, ...modules.map((manifest) => manifest.families), appFamilies);

/** Name of a route family (one Lambda function in the cloud). */
export type FamilyName = keyof typeof families;

/** The family that answers everything no route matches (API Gateway `$default`). */
export const fallbackFamily: FamilyName = 'fallback';

/** The app's own route: the API description. */
const appRoutes = [
  { method: 'GET', path: '/api/v1/openapi.json', family: 'openapi', access: { kind: 'public' } },
] as const;

/** One entry of the table: the app's own routes and every module's, with their literal methods, paths and families. */
type TableRoute = (typeof appRoutes)[number] | (typeof modules)[number]['routes'][number];

/**
 * Every route of the platform, each served by a family that exists (the compiler checks).
 * Order does not matter: literal segments beat `{params}`.
 */
export const routes: readonly TableRoute[] = [...appRoutes, ...modules.flatMap((manifest): readonly TableRoute[] => manifest.routes)];

/** Every route names a family that exists: the compiler checks this line. */
const familiesExist: readonly (RouteDefinition & { family: FamilyName })[] = routes;
void familiesExist;

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
