/**
 * Route families as the app composes them: a family's actions are checked against the route
 * table (shared/app/routes.ts) by the compiler and again when the module loads, and served over
 * the cloud platform and the app's gate in a Lambda function.
 */
import { apiHandler, type ActionTable, type ServedFamily } from '../http/pipeline';
import type { ParamKeys } from '../http/routes';
import type { Action } from '../http/types';
import { apiGate } from './gate';
import './resources';
import { cloudPlatform } from './platforms';
import { routeKey, routes, routesOf, type FamilyName, type FamilyRouteKey } from './routes';
import { fallback } from '../http/fallback';
import { config } from '../core/config';

/**
 * Exactly one action per route of family `F`, each typed with its route's path parameters:
 * a missing route or a key outside the family fails the compiler.
 */
export type FamilyActionTable<F extends FamilyName> = { [Key in FamilyRouteKey<F>]: Action<{ [Name in ParamKeys<Key>]: string }> };

/**
 * Declares a route family's actions. The compiler checks the table against the route table;
 * the same check runs at load time for tables it could not see (built dynamically), so a
 * route can never dispatch to nothing.
 *
 * @example defineFamily('settings', { 'GET /api/v1/settings/{group}': async ({ params }) => ..., ... })
 */
export function defineFamily<F extends FamilyName>(family: F, actions: FamilyActionTable<F>): ServedFamily {
  // Each action reads only its own route's parameters, which the pipeline fills from that route.
  const table = actions as unknown as ActionTable;
  const routes = routesOf(family);
  const familyRoutes = new Set(routes.map((definition) => routeKey(definition)));
  for (const key of familyRoutes) {
    if (!table[key]) throw new Error(`Family ${family}: route ${key} has no action`);
  }
  for (const key of Object.keys(table)) {
    if (!familyRoutes.has(key)) throw new Error(`Family ${family}: action ${key} is not in the route table`);
  }
  return { family, actions: table, routes };
}

/**
 * The Lambda handler of a family: the cloud platform and the app's gate on its configuration,
 * built once when the module loads. The family's API routes are greedy (infra/cloud/route-layout.ts),
 * so what they catch beyond its routes gets the fallback's answer over the whole table.
 */
export function lambdaHandler(definition: ServedFamily) {
  const platform = cloudPlatform();
  const settings = config();
  return apiHandler(definition, platform, apiGate(platform.clock, settings), fallback(routes, { edgeSecret: settings.edgeSecret }));
}
