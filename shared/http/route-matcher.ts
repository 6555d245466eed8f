/**
 * Matching of request paths against the route table, the way API Gateway HTTP APIs do it:
 * among the routes of the request's method, the most specific wins (a literal segment beats
 * a `{param}` at the same position). Compiled once; used by the local gateway to dispatch and
 * by the fallback handler to tell 405 from 404.
 */
import { routeKey, type RouteDefinition } from '../app/routes';

/** A successful match. */
export interface RouteMatch {
  route: RouteDefinition;
  routeKey: string;
  params: Record<string, string>;
}

interface CompiledRoute {
  route: RouteDefinition;
  key: string;
  pattern: RegExp;
  names: string[];
  /** Higher is more specific: literal segments weigh more the earlier they appear. */
  rank: number;
}

/** A compiled route table. */
export interface RouteMatcher {
  /** The route for a method and path, or undefined. */
  match(method: string, path: string): RouteMatch | undefined;
  /** Methods that have a route for this path (for 405 and `Allow`). */
  allowedMethods(path: string): string[];
}

function compile(route: RouteDefinition): CompiledRoute {
  const names: string[] = [];
  const segments = route.path.split('/').filter(Boolean);
  let rank = 0;
  const source = segments
    .map((segment, index) => {
      const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
      if (param) {
        names.push(param[1]!);
        return '/([^/]+)';
      }
      rank += 2 ** (32 - index);
      return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  return { route, key: routeKey(route), pattern: new RegExp(`^${source}/?$`), names, rank };
}

/** Compiles a route list into a matcher. */
export function compileRoutes(routes: readonly RouteDefinition[]): RouteMatcher {
  const byMethod = new Map<string, CompiledRoute[]>();
  const all = routes.map(compile);
  for (const compiled of all) {
    const list = byMethod.get(compiled.route.method) ?? [];
    list.push(compiled);
    byMethod.set(compiled.route.method, list);
  }
  for (const list of byMethod.values()) list.sort((a, b) => b.rank - a.rank);
  return {
    match(method, path) {
      for (const compiled of byMethod.get(method) ?? []) {
        const found = compiled.pattern.exec(path);
        if (!found) continue;
        const params: Record<string, string> = {};
        compiled.names.forEach((name, index) => {
          params[name] = safeDecode(found[index + 1]!);
        });
        return { route: compiled.route, routeKey: compiled.key, params };
      }
      return undefined;
    },
    allowedMethods(path) {
      const methods = new Set<string>();
      for (const compiled of all) if (compiled.pattern.test(path)) methods.add(compiled.route.method);
      if (methods.size) methods.add('OPTIONS');
      return [...methods];
    },
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
