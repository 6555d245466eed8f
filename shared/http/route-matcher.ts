/**
 * Matching of request paths against a route table, the way API Gateway HTTP APIs do it:
 * the most specific route wins (a literal segment beats a `{param}` at the same position, a
 * `{param}` beats a greedy `{rest+}`), and a route of the request's own method beats an `ANY`
 * route of the same path. A greedy parameter ends a path and takes one or more segments, as
 * `/func/v1/{function_id}/{path+}` will. Compiled once; used by the local gateway to dispatch
 * and by the fallback handler to tell 405 from 404.
 */
import { routeKey, type RouteDefinition } from './routes';

/** A successful match. */
export interface RouteMatch<R extends RouteDefinition = RouteDefinition> {
  route: R;
  routeKey: string;
  params: Record<string, string>;
}

interface CompiledRoute<R extends RouteDefinition> {
  route: R;
  key: string;
  pattern: RegExp;
  names: string[];
  /** Higher is more specific: literal segments weigh more the earlier they appear. */
  rank: number;
}

/** A compiled route table. */
export interface RouteMatcher<R extends RouteDefinition = RouteDefinition> {
  /** The route for a method and path, or undefined. */
  match(method: string, path: string): RouteMatch<R> | undefined;
  /** Methods that have a route for this path (for 405 and `Allow`). */
  allowedMethods(path: string): string[];
}

function compile<R extends RouteDefinition>(route: R): CompiledRoute<R> {
  const names: string[] = [];
  const segments = route.path.split('/').filter(Boolean);
  let rank = 0;
  const source = segments
    .map((segment, index) => {
      const greedy = /^\{([A-Za-z0-9_]+)\+\}$/.exec(segment);
      if (greedy) {
        if (index !== segments.length - 1) throw new Error(`Route ${route.path}: a greedy parameter must end the path`);
        names.push(greedy[1]!);
        return '/(.+?)';
      }
      const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
      if (param) {
        names.push(param[1]!);
        rank += 2 ** (31 - index);
        return '/([^/]+)';
      }
      rank += 2 ** (32 - index);
      return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  return { route, key: routeKey(route), pattern: new RegExp(`^${source}/?$`), names, rank };
}

/** Compiles a route list into a matcher. */
export function compileRoutes<R extends RouteDefinition>(routes: readonly R[]): RouteMatcher<R> {
  const byMethod = new Map<string, CompiledRoute<R>[]>();
  const all = routes.map((route) => compile(route));
  for (const compiled of all) {
    const list = byMethod.get(compiled.route.method) ?? [];
    list.push(compiled);
    byMethod.set(compiled.route.method, list);
  }
  for (const list of byMethod.values()) list.sort((a, b) => b.rank - a.rank);
  const anyMethod = byMethod.get('ANY') ?? [];
  return {
    match(method, path) {
      const own = byMethod.get(method) ?? [];
      // The most specific route wins; at equal rank the request's own method beats ANY.
      const candidates = anyMethod.length ? [...own, ...anyMethod].sort((a, b) => b.rank - a.rank) : own;
      for (const compiled of candidates) {
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
