/** Types shared by the HTTP layer and the actions it calls. */
import type { Context } from 'aws-lambda';
import type { z } from 'zod';
import type { RouteDefinition } from './routes';
import type { Principal } from '../core/access/principal';
import type { Platform } from '../platform/ports';
import type { AccountRendering } from '../rest/render-context';

/**
 * One API request, parsed once by the pipeline and handed to an action. `Params` is the
 * route's path parameters (`RouteParams<'GET /api/v1/carts/{cart_id}'>` gives `{ cart_id: string }`);
 * actions written for any route take the default.
 */
export interface ApiContext<Params extends Record<string, string> = Record<string, string>, Body = Record<string, unknown> | undefined> {
  requestId: string;
  method: string;
  route: RouteDefinition;
  /** Path parameters of the route template, e.g. `{ auth_id: '5HDN3BV2SSNY' }`. */
  params: Params;
  /** Query parameters; when one is repeated the last occurrence wins. */
  query: Record<string, string>;
  /** Request headers with lowercase names. */
  headers: Record<string, string>;
  /**
   * The body: parsed and converted by the action's declared schema (`withBody`), or, for an
   * action that declares none, the object the request carried: its JSON object, or its form
   * fields (strings) on a `form` or `form-or-json` route. Undefined on `multipart` and `raw` routes.
   */
  body: Body;
  /**
   * The unparsed body bytes of a `multipart` route (./body/multipart reads them) or a `raw`
   * route (exactly as sent; the type is in `headers['content-type']`). Absent on other routes.
   */
  rawBody?: Buffer | undefined;
  /** The authenticated caller (absent only on public routes called without a token). */
  principal: Principal | undefined;
  /** Absolute API root for links, from the scheme and host the request arrived on. */
  baseUrl: string;
  sourceIp: string;
  /** Whether our own edge vouched for the forwarded headers (such as the CDN's viewer country). */
  fromOwnEdge: boolean;
  lambdaContext: Context | undefined;
  /** The process's ports (clock, email, secrets, gateway, ...): what operations are handed. */
  platform: Platform;
  /** The account's zone and locale defaults and currencies (rest/render-context.ts reads them). */
  accountRendering: (accountId: string) => Promise<AccountRendering>;
}

/** What an action answers; the pipeline adds the standard headers and serializes the body. */
export interface ApiResult {
  status: number;
  body?: unknown;
  /** Absolute URL of a created resource (sent as `Location` on 201). */
  location?: string;
  headers?: Record<string, string>;
  /** The body holds a secret (a new token, a signature key): an idempotent replay copy is stored sealed. */
  sensitive?: boolean;
  /** A body that is not JSON (the public `account.js`, a receipt's PDF bytes), sent as it is with its own type; `body` is then unused. */
  raw?: { body: string | Uint8Array; contentType: string };
}

/** What an action declares about its input: the body schema, validated before the action runs. */
export interface ActionInput {
  /** A list route's paging style and its own filters (documentation; the action reads them). */
  query?: QueryDeclaration;
  body?: z.ZodType;
  /** A body whose schema a path parameter picks (`POST /settings/{group}`); another value gets none. */
  bodyByParam?: { param: string; schemas: Readonly<Record<string, z.ZodType>> };
  /** A second media type the success answer may have (`application/pdf`: a printable form, ./accept.ts). */
  printable?: string;
  /** What the success answer is, where the route's path does not tell (an action, a token issue): see `declareAnswer`. */
  answer?: AnswerDeclaration;
}

/**
 * What an action answers with, for the API description, when its route's path does not say it
 * (a path names a resource, a list or an item; an action such as `/publish` or `/auths/secret`
 * names none):
 * - `resource`: the declared resource of that name (`invoice`), as every route of it renders it;
 * - `shape`: a specific object, whose JSON Schema `npm run generate:api` reads from the code with
 *   the TypeScript checker (the `body` the action returns, or what `from`, the function named as
 *   the declaration's third argument, returns) into shared/app/answer-shapes.json, by this name;
 * - `schema`: a JSON Schema written out, for an answer no type describes (the API description itself);
 * - `text`: a non-JSON answer of that media type (`application/javascript`).
 */
export type AnswerDeclaration = (
  | { resource: string; description?: string }
  | { shape: string; description: string }
  | { schema: Readonly<Record<string, unknown>>; description: string }
  | { text: string; description: string }
) & {
  /** The operation's summary, where the one made from the path reads badly (`Create a secret token`, not `Auths: secret`). */
  summary?: string;
};

/**
 * Declares what an action answers with, beside the action, so the API description types the
 * answer (and the e2e helper validates it). `from` (a `shape` only) names the function whose
 * return value the answer is, when the action returns it in another form (`raw`); the generator
 * reads the argument's name, the runtime ignores it.
 *
 * @example declareAnswer(publishInvoiceAction, { resource: 'invoice' })
 * @example declareAnswer(paymentOptionsAction, { shape: 'payment_options', description: 'What a checkout form needs' })
 */
export function declareAnswer<A extends (...args: never[]) => unknown>(action: A, answer: AnswerDeclaration, from?: (...args: never[]) => unknown): void {
  void from;
  const declared = action as unknown as Action;
  declared.input = { ...declared.input, answer };
}

/** The query parameters a list action takes besides the rendering ones (conventions.md §12). */
export interface QueryDeclaration {
  /** Offset lists take `limit`, `offset`; cursor lists `limit`, `after_item`, `before_item`, `date_type`, `date_start`, `date_end`; both `desc`. */
  list: 'offset' | 'cursor';
  /** The endpoint's own filters and sort orders: name → what it does. */
  filters?: Readonly<Record<string, string>>;
}

/**
 * Declares the query parameters of a list action, beside the action, so the API description
 * lists exactly what it reads.
 *
 * @example declareQuery(listProductsAction, { list: 'offset', filters: { q: 'Search in name and product_id' } })
 */
export function declareQuery<A extends (...args: never[]) => unknown>(action: A, query: QueryDeclaration): void {
  const declared = action as unknown as Action;
  declared.input = { ...declared.input, query };
}

/** An action: the domain call behind one route (`Params`: that route's path parameters). */
export type Action<Params extends Record<string, string> = Record<string, string>> = ((context: ApiContext<Params>) => Promise<ApiResult>) & {
  input?: ActionInput;
};

/**
 * An action whose body schema the path parameter `param` picks from `schemas`, validated before
 * the action runs like `withBody`'s; a parameter value with no schema reaches the action
 * unvalidated (it answers 404 for it). The document lists the schemas as alternatives.
 *
 * @example withBodyFor('group', settingsUpdates, async (context) => ...)
 */
export function withBodyFor<Schemas extends Readonly<Record<string, z.ZodType>>, Params extends Record<string, string> = Record<string, string>>(
  param: string,
  schemas: Schemas,
  action: (context: ApiContext<Params, z.output<Schemas[keyof Schemas]>>) => Promise<ApiResult>,
): Action<Params> {
  const declared = action as unknown as Action<Params>;
  declared.input = { bodyByParam: { param, schemas } };
  return declared;
}

/**
 * An action with a declared body: the pipeline validates the request body against `schema`
 * (conventions.md §4 tolerance and §20 limits included) before anything runs, and the action
 * receives the parsed, typed value. The same schema is the route's OpenAPI request body.
 *
 * @example export const createProductAction = withBody(productCreate, async (context) => ...context.body.name...)
 */
export function withBody<S extends z.ZodType, Params extends Record<string, string> = Record<string, string>>(
  schema: S,
  action: (context: ApiContext<Params, z.output<S>>) => Promise<ApiResult>,
): Action<Params> {
  const declared = action as unknown as Action<Params>;
  declared.input = { body: schema };
  return declared;
}

/** A principal that must be present (for routes that require a token). */
export function requirePrincipal(context: ApiContext): Principal {
  if (!context.principal) throw new Error(`Route ${context.route.path} needs a principal`);
  return context.principal;
}
