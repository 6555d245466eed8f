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

/**
 * How a route's request body is read, the parser the body step runs (./body/):
 * - `json` (the default): a JSON object (conventions.md §4);
 * - `form`: `application/x-www-form-urlencoded` fields, every value a string (the sign-in page, auth.md §5.1);
 * - `form-or-json`: either, by `Content-Type` (`POST /oauth/token`, auth.md §6.3);
 * - `multipart`: a `multipart/form-data` upload, left to the action (`ApiContext.rawBody`, ./body/multipart);
 * - `raw`: the bytes as sent and their type, for the action (`ApiContext.rawBody`; a signed webhook).
 */
export type BodyKind = 'json' | 'form' | 'form-or-json' | 'multipart' | 'raw';

/** What an upload route adds: how large its body may be and the text fields its form may carry. */
export interface MultipartBody {
  /** The body cap of the route (the local gateway reads no further): the file and its framing. */
  maxBytes: number;
  /** Text fields the form may carry beside `file`: name → what it is (the API description lists them). */
  fields?: Readonly<Record<string, string>>;
}

/**
 * The body of a route: any kind but `multipart` on its own (default `json`), or a `multipart`
 * upload with its cap (conventions.md §4), which the compiler asks for.
 */
export type RouteBody =
  | { body?: Exclude<BodyKind, 'multipart'>; multipart?: undefined }
  | { body: 'multipart'; multipart: MultipartBody };

/** One route: method, API Gateway path template, serving family, access rule and body kind. */
export type RouteDefinition = RouteBody & {
  method: RouteMethod;
  /** API Gateway v2 path template, e.g. `/api/v1/auths/{auth_id}`. */
  path: string;
  /** The family (one Lambda function) that serves it. */
  family: string;
  access: RouteAccess;
  /**
   * The route creates a resource (201 with `Location`) although its permission is not `create`:
   * an upload or action that adds to a resource the caller updates (`POST /apps/{id}/versions`).
   */
  created?: true;
  /**
   * Success statuses the route answers beside its main one (`POST /carts/{id}/items` answers 200
   * when the line was already in the cart; an item update that removes the line answers 204).
   */
  alsoAnswers?: readonly (200 | 201 | 204)[];
};

/** The body kind of a route (`json` unless it says otherwise). */
export function bodyKindOf(route: Pick<RouteDefinition, 'body'>): BodyKind {
  return route.body ?? 'json';
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

/**
 * The standard routes of a collection resource, by what they do: `list` and `create` on the
 * collection path, `read`, `update` and `delete` on the item path (`{path}/{id}`).
 */
export type CollectionOperation = 'list' | 'create' | 'read' | 'update' | 'delete';

/** The method and path (collection or item) of each standard route, in the order the routes are listed. */
const COLLECTION_OPERATIONS = {
  list: { method: 'GET', on: 'collection' },
  create: { method: 'POST', on: 'collection' },
  read: { method: 'GET', on: 'item' },
  update: { method: 'POST', on: 'item' },
  delete: { method: 'DELETE', on: 'item' },
} as const satisfies Record<CollectionOperation, { method: RouteMethod; on: 'collection' | 'item' }>;

/** Who may call each standard route a collection has: the operations it lists are the routes it gets. */
export type CollectionAccess = Partial<Record<CollectionOperation, RouteAccess>>;

/** One standard route, with its literal method and path (`GET /api/v1/promotions/{promotion_id}` for `read`). */
export type CollectionRoute<Op extends CollectionOperation, F extends string, P extends string, Id extends string> = {
  method: (typeof COLLECTION_OPERATIONS)[Op]['method'];
  path: (typeof COLLECTION_OPERATIONS)[Op]['on'] extends 'collection' ? P : `${P}/{${Id}}`;
  family: F;
  access: RouteAccess;
};

/** The standard routes of the operations `Ops`, as a union the route keys are derived from. */
export type CollectionRoutes<F extends string, P extends string, Id extends string, Ops extends CollectionOperation> = readonly {
  [Op in Ops]: CollectionRoute<Op, F, P, Id>;
}[Ops][];

/**
 * The standard routes of a collection served by `family`: one route per operation `access`
 * names, in the order list, create, read, update, delete. Method, path and family keep their
 * literal types, so the route keys (`GET /api/v1/promotions/{promotion_id}`) are derived from
 * them as from routes written out. A route that carries more (an upload, `created`) is written
 * out beside them.
 */
export function collectionRoutes<const F extends string, const P extends string, const Id extends string, const A extends CollectionAccess>(collection: {
  family: F;
  path: P;
  id: Id;
  access: A;
}): CollectionRoutes<F, P, Id, keyof A & CollectionOperation> {
  const { family, path, id, access } = collection;
  return (Object.keys(COLLECTION_OPERATIONS) as CollectionOperation[]).flatMap((operation) => {
    const routeAccess = access[operation];
    if (!routeAccess) return [];
    const { method, on } = COLLECTION_OPERATIONS[operation];
    return [{ method, path: on === 'collection' ? path : `${path}/{${id}}`, family, access: routeAccess }];
  }) as unknown as CollectionRoutes<F, P, Id, keyof A & CollectionOperation>;
}

/**
 * The access of all five standard routes when each asks `resource` for its own permission
 * method: `read` to list and read, `create`, `update` and `delete` for the others.
 */
export const allowCrud = (resource: PermissionResource): Record<CollectionOperation, RouteAccess> => ({
  list: allow(resource, 'read'),
  create: allow(resource, 'create'),
  read: allow(resource, 'read'),
  update: allow(resource, 'update'),
  delete: allow(resource, 'delete'),
});
