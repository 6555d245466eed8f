/**
 * Routes as data: what a route is (method, path template, family, access rule, body kind) and
 * the key API Gateway and the local gateway know it by. The platform's own table is
 * shared/app/routes.ts, composed from the modules' manifests; this file knows none of them.
 */
import type { PermissionMethod, PermissionResource } from '../core/access/permission-names';

/** HTTP methods used by routes. */
export type RouteMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'ANY';

/**
 * Who may call a route.
 * - `permission`: a token whose permissions allow `resource:method` (auth.md section 8).
 * - `any-token`: any valid token (`/auths/me`).
 * - `public`: no token needed; the per-IP rate limit applies unless a valid token is sent.
 */
export type RouteAccess =
  | {
      kind: 'permission';
      resource: PermissionResource;
      method: PermissionMethod;
      /**
       * A single resource a limited token may reach through a binding or a paid sale
       * (auth.md 3.3): limited tokens pass the type-level check and the action decides (404
       * when out of reach).
       */
      reach?: true;
    }
  | { kind: 'any-token' }
  | { kind: 'public' };

/** One route: method, API Gateway path template, serving family, and access rule. */
export interface RouteDefinition {
  method: RouteMethod;
  /** API Gateway v2 path template, e.g. `/api/v1/auths/{auth_id}`. */
  path: string;
  /** The family (one Lambda function) that serves it. */
  family: string;
  access: RouteAccess;
  /**
   * A `multipart/form-data` file upload (conventions.md §4): the pipeline leaves the body to the
   * action instead of parsing JSON, and the local gateway reads bodies up to `maxBytes`.
   */
  upload?: {
    maxBytes: number;
    /** Text fields the form may carry beside `file`: name → what it is (the API description lists them). */
    fields?: Readonly<Record<string, string>>;
  };
  /**
   * The route creates a resource (201 with `Location`) although its permission is not `create`:
   * an upload or action that adds to a resource the caller updates (`POST /apps/{id}/versions`).
   */
  created?: true;
}

/** The route key of one route entry type, e.g. `GET /api/v1/auths/{auth_id}`. */
export type KeyOfRoute<R> = R extends { method: infer M extends string; path: infer P extends string } ? `${M} ${P}` : never;

/**
 * The parameter names of a path template, as Hono's `ParamKeys` derives them:
 * `ParamKeys<'/carts/{cart_id}/items/{item_id}'>` is `'cart_id' | 'item_id'`.
 */
export type ParamKeys<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamKeys<Rest> : never;

/** The path parameters of a route key (or path template): exactly its `{names}`, as strings. */
export type RouteParams<Key extends string> = { [Name in ParamKeys<Key>]: string };

/** The API Gateway route key of a route, e.g. `GET /api/v1/auths/{auth_id}`. */
export function routeKey<R extends Pick<RouteDefinition, 'method' | 'path'>>(route: R): string extends R['path'] ? string : KeyOfRoute<R> {
  return `${route.method} ${route.path}` as string extends R['path'] ? string : KeyOfRoute<R>;
}

/** A route open to tokens whose permissions allow `resource:method`. */
export const allow = (resource: PermissionResource, method: PermissionMethod): RouteAccess => ({
  kind: 'permission',
  resource,
  method,
});

/** Like `allow`, and limited tokens may come through to the action for resources they reach. */
export const allowOrReach = (resource: PermissionResource, method: PermissionMethod): RouteAccess => ({
  kind: 'permission',
  resource,
  method,
  reach: true,
});
