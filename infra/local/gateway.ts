/**
 * The local gateway: one HTTP listener that plays API Gateway. It matches requests against
 * the route table, builds the same API Gateway v2 event, and calls the same family handler
 * module the CDK stack deploys; unmatched requests go to the fallback family, as `$default`
 * does in the cloud. `/_local/` pages, image files and hosted apps (both address forms, with
 * the API proxied in-process on app hosts) are answered here. Every API answer carries
 * `x-cartwheel-dynamodb: calls=N; rounds=M; ops=…`, what its handler cost in DynamoDB
 * (`shared/store/request-cost.ts`); the cloud has no such header.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { families, fallbackFamily, routes, type FamilyName, type RouteDefinition } from '../../shared/app/routes';
import type { ApiGate } from '../../shared/http/gate';
import { apiGate } from '../../shared/app/gate';
import { surfaces, type SurfaceName } from '../../shared/app/surfaces';
import { surfaceFor, type SurfaceDefinition } from '../../shared/http/surfaces';
import { compileRoutes } from '../../shared/http/route-matcher';
import { bodyTooLarge, requestBodyLimit } from '../../shared/http/body-limits';
import { MAX_INVOKE_BYTES } from '../../shared/modules/functions';
import { ServiceUnavailableError } from '../../shared/http/errors';
import { apiHandler, type ServedFamily } from '../../shared/http/pipeline';
import { fallback } from '../../shared/http/fallback';
import type { ObjectStorage, Platform } from '../../shared/platform/ports';
import { lambdaContext, toApiGatewayEvent, writeResult, type EdgeFacts } from './api-event';
import { answerClientError, answerError, headersTooLarge, hostMissing, MAX_REQUEST_HEADER_BYTES, NODE_MAX_HEADER_BYTES, requestHeaderBytes } from './edge-answers';
import { handleLocalPage, type LocalPagesOptions } from './local-pages';
import { serveImageFile } from './image-files';
import { pathFormTarget, serveAppFile, type LocalApps } from './app-files';
import { appHostAccount } from '../../shared/http/app-hosts';
import { COST_HEADER, formatCost, measureCost } from '../../shared/store/request-cost';
import type { PlatformConfig } from '../../shared/core/config';

/** A family handler as both runtimes call it. */
export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway's integration timeout. */
const TIMEOUT_MS = 29_000;

/**
 * The root from which route-table entries (`handlers/http/carts.ts`) are resolved: the repository,
 * or the runtime's build (`.build/local/`, infra/local/launch.mjs), which keeps the same layout
 * with `.js` files.
 */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** The URL of an entry (`handlers/...ts`) as this runtime loads it: the source, or its built module. */
export function entryUrl(entry: string): string {
  const built = !import.meta.url.endsWith('.ts');
  return pathToFileURL(resolve(REPO_ROOT, built ? entry.replace(/\.ts$/, '.js') : entry)).href;
}

/**
 * Each family's handler over the local platform, loaded on the family's first request (the
 * module's own `handler` is the Lambda one, over the cloud platform; a module without `family`,
 * the fallback, needs no ports), with the gate on the local configuration (`settings`). Loading
 * every family before serving cost a sixth of the start-up (sharp, sanitize-html, every schema),
 * and a product list needs one family: a family's first request pays for its module instead,
 * as a Lambda function's cold start does.
 */
export function familyHandlers(platform: Platform, settings: Pick<PlatformConfig, 'rateLimits' | 'appsDomain' | 'edgeSecret'>): (family: FamilyName) => Promise<HttpHandler> {
  const gate = apiGate(platform.clock, settings);
  const unmatched = fallback(routes, { edgeSecret: settings.edgeSecret });
  const loaded = new Map<FamilyName, Promise<HttpHandler>>();
  const load = async (family: FamilyName): Promise<HttpHandler> => {
    const module = (await import(entryUrl(families[family].entry))) as { handler: HttpHandler; family?: ServedFamily; surfaceHandler?: (platform: Platform, gate: ApiGate) => unknown };
    if (typeof module.handler !== 'function') throw new Error(`${families[family].entry} does not export a handler`);
    // A route family is served by the pipeline, a surface's handler is built, both over the local platform.
    // With the fallback's answer for what no route of the family holds, as in Lambda (shared/app/families.ts).
    if (module.family) return apiHandler(module.family, platform, gate, unmatched) as unknown as HttpHandler;
    if (module.surfaceHandler) return module.surfaceHandler(platform, gate) as HttpHandler;
    return module.handler;
  };
  return (family) => {
    let handler = loaded.get(family);
    if (!handler) {
      handler = load(family);
      // A module that failed to load is tried again by the next request, not remembered broken.
      handler.catch(() => loaded.delete(family));
      loaded.set(family, handler);
    }
    return handler;
  };
}

/** Loads every family's handler at once (route-table tests call every route). */
export async function loadFamilyHandlers(platform: Platform, settings: Pick<PlatformConfig, 'rateLimits' | 'appsDomain' | 'edgeSecret'>): Promise<Record<FamilyName, HttpHandler>> {
  const handlerOf = familyHandlers(platform, settings);
  const entries = await Promise.all((Object.keys(families) as FamilyName[]).map(async (family) => [family, await handlerOf(family)] as const));
  return Object.fromEntries(entries) as Record<FamilyName, HttpHandler>;
}

/** What the gateway needs. */
export interface GatewayOptions {
  /** Hosted apps: both address forms are served on this listener (hosting.md §11). */
  apps: LocalApps;
  /** A family's handler (loaded on its first request: `familyHandlers`). */
  handler: (family: FamilyName) => Promise<HttpHandler>;
  localPages: LocalPagesOptions;
  edgeSecret: string;
  port: () => number;
  /** Resolves when start-up finished; requests wait for it. */
  ready: Promise<void>;
  /** The objects port: image files are served from the apps bucket (`/images/`). */
  objects: ObjectStorage;
}

/**
 * The runtime's one HTTP server over `listener`, with nothing left for Node to answer on its
 * own (bare 400, 417 and 431 answers without the envelope): its header limit is raised far
 * above the contract's and a missing `Host` is left to the gateway, both answered with the
 * envelope there; its parser failures are answered with the envelope by `answerClientError`;
 * `Expect: 100-continue` is left to the gateway, which refuses an oversized body before the
 * client sends it, and other expectations are ignored (RFC 9110 §10.1.1 allows it).
 */
export function createGatewayServer(listener: RequestListener): Server {
  const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_BYTES, requireHostHeader: false }, listener);
  // Every header counts toward the 16 KiB (Node drops those past 2000 by default).
  server.maxHeadersCount = 0;
  server.on('checkContinue', listener);
  server.on('checkExpectation', listener);
  server.on('clientError', answerClientError);
  return server;
}

/** The platform's surfaces, after the local runtime's own pages (`/_local/`, on the platform host only). */
const localSurfaces: readonly SurfaceDefinition<SurfaceName | 'local' | 'docs'>[] = [
  { name: 'local', pathPrefix: '/_local/', hosts: 'platform' },
  // The API reference: the docs family (handlers/http/docs.ts), as the API's `ANY /docs` and
  // `ANY /docs/{proxy+}` routes call it in the cloud (infra/cloud/api.ts).
  { name: 'docs', pathPrefix: '/docs/', bare: true, hosts: 'platform' },
  ...surfaces,
];

/** Builds the Node request listener. */
export function createGateway(options: GatewayOptions) {
  const matcher = compileRoutes<RouteDefinition & { family: FamilyName }>(routes);
  let inFlight = 0;
  let idle: (() => void) | undefined;
  let refusing = false;

  const listener = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (refusing) return answerError(req, res, new ServiceUnavailableError('stopping', 'The runtime is stopping; retry shortly.'), true);
    inFlight++;
    try {
      const method = req.method ?? 'GET';
      const path = (req.url ?? '/').split('?')[0]!;
      // What can be refused from the head alone is refused before a byte of the body is read.
      if (requestHeaderBytes(req.rawHeaders) > MAX_REQUEST_HEADER_BYTES) return answerError(req, res, headersTooLarge(), true);
      if (req.httpVersion === '1.1' && req.headers.host === undefined) return answerError(req, res, hostMissing(), true);
      const match = matcher.match(method, path);
      // An app host answers its account's apps, image files and, in-process, the API (links
      // come back on the app host); it has no local pages.
      const appAccount = appHostAccount(req.headers.host, options.apps.domain);
      const onAppHost = appAccount !== undefined;
      const surface = surfaceFor(localSurfaces, path, onAppHost ? 'app-hosts' : 'platform')!;
      // An invoke URL takes up to 6 MB, and a larger body is the contract's 422 (functions.md §7.1).
      const limit = surface.name === 'functions' ? MAX_INVOKE_BYTES : requestBodyLimit({ contentType: req.headers['content-type'], route: match?.route });
      if (Number(req.headers['content-length'] ?? 0) > limit) return answerError(req, res, bodyTooLarge(limit), true);
      if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
      const body = await readBody(req, limit);
      if (body === undefined) return answerError(req, res, bodyTooLarge(limit), true);
      const sourceIp = req.socket.remoteAddress ?? '127.0.0.1';
      if (surface.name === 'local') {
        await handleLocalPage(req, res, body, sourceIp, options.localPages);
        return;
      }
      await options.ready;
      /** Calls a family's handler with the API Gateway event of this request, as API Gateway would. */
      const callFamily = async (family: FamilyName, routeKey: string, params: Record<string, string> | undefined, withCost = true) => {
        const edge: EdgeFacts = { sourceIp, port: options.port(), edgeSecret: options.edgeSecret, ...(onAppHost ? { forwardedHost: req.headers.host! } : {}) };
        const event = toApiGatewayEvent(req, body, routeKey, params, edge);
        // What the request cost in DynamoDB, counted when its answer is ready (work left running
        // after that is not the request's): local only, for benches and curious developers.
        const handler = await options.handler(family);
        const { value: result, cost } = await measureCost(() => handler(event, lambdaContext(family, TIMEOUT_MS)));
        writeResult(res, withCost ? { ...result, headers: { ...result.headers, [COST_HEADER]: formatCost(cost) } } : result);
      };
      // The API reference, as its routes call it in the cloud; no cost header of the platform's.
      if (surface.name === 'docs') return await callFamily('docs', path === '/docs' ? 'ANY /docs' : 'ANY /docs/{proxy+}', path === '/docs' ? undefined : { proxy: path.slice('/docs/'.length) }, false);
      const serve: Record<SurfaceName, () => Promise<void>> = {
        images: () => serveImageFile(req, res, path, options.objects),
        apps: () => {
          if (onAppHost) return serveAppFile(req, res, options.apps, appAccount, path);
          const target = pathFormTarget(path);
          return serveAppFile(req, res, options.apps, target.accountId, target.path);
        },
        // Invoke URLs: the function router, as its `ANY /func/v1/{proxy+}` route calls it in the cloud.
        // A function's answer is passed through as it is: no cost header of the platform's.
        functions: () => callFamily('function-router', 'ANY /func/v1/{proxy+}', { proxy: path.slice('/func/v1/'.length) }, false),
        // The sign-in page, as its `ANY /signin/{proxy+}` route calls it in the cloud.
        signin: () => callFamily('signin', 'ANY /signin/{proxy+}', { proxy: path.slice('/signin/'.length) }, false),
        api: () => callFamily(match ? match.route.family : fallbackFamily, match ? match.routeKey : '$default', match?.params),
      };
      return await serve[surface.name]();
    } catch (error) {
      // An unexpected fault is logged by errorResult and answered as a detail-free 500.
      answerError(req, res, error, !req.complete);
    } finally {
      inFlight--;
      if (inFlight === 0) idle?.();
    }
  };

  return {
    listener,
    /** From now on, answer 503 and close the connection (shutdown). */
    refuseNewRequests: () => {
      refusing = true;
    },
    /** Resolves when no request is in flight (or after `timeoutMs`). */
    drain: (timeoutMs: number) =>
      new Promise<void>((resolveDrain) => {
        if (inFlight === 0) return resolveDrain();
        const timer = setTimeout(resolveDrain, timeoutMs);
        idle = () => {
          clearTimeout(timer);
          resolveDrain();
        };
      }),
  };
}

/**
 * Reads the whole body, or stops at `limit` bytes and resolves undefined: what the client
 * still sends is then dropped as it arrives, never held.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', reject);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      req.resume();
      resolveBody(undefined);
    };
    const onEnd = () => {
      stop();
      resolveBody(Buffer.concat(chunks));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}
