/**
 * How the route table becomes API Gateway routes without one resource per entry: routes are
 * grouped by their resource prefix (`/api/v1/carts`), the family serving most of a group's
 * paths gets the group as `ANY /api/v1/carts` and `ANY /api/v1/carts/{proxy+}`, and only the
 * paths another family serves get routes of their own (`ANY <path>` when one family serves every
 * method of it, one route per method when several do). API Gateway picks the most specific
 * route (literal segments beat parameters, which beat `{proxy+}`), so each table entry still
 * reaches its family; the family's handler then matches the method and path itself
 * (shared/http/middleware/route.ts) and answers 404, 405 and CORS preflight for what its
 * greedy route caught but the table does not hold (the fallback's answer, over the whole table).
 *
 * Derived from the table alone: a module that adds routes under its own prefix adds two API
 * routes, not one per entry, and nothing here names a family.
 */
import { compileRoutes } from '../../shared/http/route-matcher';
import type { RouteDefinition, RouteMethod } from '../../shared/http/routes';

/** A route as the layout needs it. */
export type LayoutInput = Pick<RouteDefinition, 'method' | 'path'> & { family: string };

/** One API Gateway route: a method (or ANY) and a path template, integrated with a family. */
export interface LayoutRoute {
  method: RouteMethod | 'ANY';
  path: string;
  family: string;
}

/** Number of leading segments that name a resource group (`api`, `v1`, `carts`). */
const GROUP_DEPTH = 3;

/** The group a path belongs to (its first three literal segments), or undefined for a path that stands alone. */
function groupOf(path: string): string | undefined {
  const segments = path.split('/').filter(Boolean);
  if (segments.length < GROUP_DEPTH) return undefined;
  const head = segments.slice(0, GROUP_DEPTH);
  if (head.some((segment) => segment.startsWith('{')) || segments.some((segment) => segment.endsWith('+}'))) return undefined;
  return `/${head.join('/')}`;
}

/** A concrete path that a template's parameters would match but no literal segment would. */
function samplePath(template: string): string {
  return template.replace(/\{[^}]+\}/g, '~param~');
}

/**
 * The API routes for `table`: greedy routes per group for the family that serves most of it,
 * and routes of their own for the rest (see the file comment).
 *
 * @example routeLayout([{ method: 'GET', path: '/api/v1/carts', family: 'carts' }, ...])
 */
export function routeLayout(table: readonly LayoutInput[]): LayoutRoute[] {
  const layout: LayoutRoute[] = [];
  const byPath = new Map<string, LayoutInput[]>();
  for (const route of table) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);

  const groups = new Map<string, string[]>();
  for (const path of byPath.keys()) {
    const group = groupOf(path);
    if (group === undefined) {
      layout.push(...ownRoutes(byPath.get(path)!));
      continue;
    }
    groups.set(group, [...(groups.get(group) ?? []), path]);
  }

  for (const [group, paths] of groups) {
    // The owner: the family serving the most paths of the group (ties: the first in table order).
    const served = new Map<string, number>();
    for (const path of paths) {
      const families = familiesOf(byPath.get(path)!);
      if (families.length === 1) served.set(families[0]!, (served.get(families[0]!) ?? 0) + 1);
    }
    const owner = [...served].sort((a, b) => b[1] - a[1])[0]?.[0];
    const owned = (path: string) => owner !== undefined && sameFamily(byPath.get(path)!, owner);
    if (owner !== undefined) {
      if (paths.some((path) => path !== group && owned(path))) layout.push({ method: 'ANY', path: `${group}/{proxy+}`, family: owner });
      if (paths.includes(group) && owned(group)) layout.push({ method: 'ANY', path: group, family: owner });
    }
    const others = paths.filter((path) => !owned(path));
    for (const path of others) layout.push(...ownRoutes(byPath.get(path)!));

    // A route of another family with a parameter where an owned path has a literal would catch
    // that path (literals only beat parameters within one route): give such owned paths their own.
    let shadowed = true;
    while (shadowed) {
      shadowed = false;
      const specific = compileRoutes(layout.filter((route) => !route.path.endsWith('{proxy+}')).map((route) => ({ ...route, access: { kind: 'public' } }) as unknown as RouteDefinition));
      for (const path of paths) {
        if (!owned(path) || layout.some((route) => route.path === path)) continue;
        const caught = specific.match('GET', samplePath(path)) ?? specific.match('POST', samplePath(path));
        if (caught) {
          layout.push({ method: 'ANY', path, family: owner! });
          shadowed = true;
        }
      }
    }
  }
  return layout;
}

/** Families serving a path's entries, in table order. */
function familiesOf(entries: readonly LayoutInput[]): string[] {
  return [...new Set(entries.map((entry) => entry.family))];
}

function sameFamily(entries: readonly LayoutInput[], family: string): boolean {
  return entries.every((entry) => entry.family === family);
}

/** A path's own routes: `ANY` when one family serves all of it, else one per method. */
function ownRoutes(entries: readonly LayoutInput[]): LayoutRoute[] {
  const families = familiesOf(entries);
  if (families.length === 1) return [{ method: 'ANY', path: entries[0]!.path, family: families[0]! }];
  return entries.map((entry) => ({ method: entry.method, path: entry.path, family: entry.family }));
}
