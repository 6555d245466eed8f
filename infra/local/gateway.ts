/**
 * The local gateway: one HTTP listener that plays API Gateway. It matches requests against
 * the route table, builds the same API Gateway v2 event, and calls the same family handler
 * module the CDK stack deploys; unmatched requests go to the fallback family, as `$default`
 * does in the cloud. `/_local/` pages are answered here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { families, fallbackFamily, routes, type FamilyName } from '../routes';
import { compileRoutes } from '../../shared/http/route-matcher';
import { apiHandler, type FamilyActions } from '../../shared/http/pipeline';
import type { ObjectStorage, Platform } from '../../shared/platform/ports';
import { logger } from '../../shared/logging';
import { lambdaContext, toApiGatewayEvent, writeResult, type EdgeFacts } from './api-event';
import { handleLocalPage, type LocalPagesOptions } from './local-pages';
import { IMAGE_FILES_PREFIX, serveImageFile } from './image-files';

/** A family handler as both runtimes call it. */
export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Largest request body the gateway accepts (API Gateway's own limit is 10 MB). */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/** API Gateway's integration timeout. */
const TIMEOUT_MS = 29_000;

/** The repository root, from which route-table entries are resolved. */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/**
 * Loads every family's handler module, as listed in the route table, and builds each family's
 * handler over the local platform (the module's own `handler` is the Lambda one, over the
 * cloud platform). A module without `family` (the fallback) needs no ports.
 */
export async function loadFamilyHandlers(platform: Platform): Promise<Record<FamilyName, HttpHandler>> {
  const entries = await Promise.all(
    (Object.keys(families) as FamilyName[]).map(async (family) => {
      const module = (await import(pathToFileURL(resolve(REPO_ROOT, families[family].entry)).href)) as { handler: HttpHandler; family?: FamilyActions };
      if (typeof module.handler !== 'function') throw new Error(`${families[family].entry} does not export a handler`);
      return [family, module.family ? (apiHandler(module.family, platform) as unknown as HttpHandler) : module.handler] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<FamilyName, HttpHandler>;
}

/** What the gateway needs. */
export interface GatewayOptions {
  handlers: Record<FamilyName, HttpHandler>;
  localPages: LocalPagesOptions;
  edgeSecret: string;
  port: () => number;
  /** Resolves when start-up finished; requests wait for it. */
  ready: Promise<void>;
  /** The objects port: image files are served from the apps bucket (`/images/`). */
  objects: ObjectStorage;
}

/** Builds the Node request listener. */
export function createGateway(options: GatewayOptions) {
  const matcher = compileRoutes(routes);
  let inFlight = 0;
  let idle: (() => void) | undefined;
  let refusing = false;

  const listener = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (refusing) {
      res.writeHead(503, { 'Content-Type': 'application/json', Connection: 'close', 'Retry-After': '1' });
      res.end(JSON.stringify({ message: 'Shutting down' }));
      return;
    }
    inFlight++;
    try {
      const method = req.method ?? 'GET';
      const path = (req.url ?? '/').split('?')[0]!;
      // Upload routes (route table `upload`) accept larger bodies than the rest.
      const match = matcher.match(method, path);
      const body = await readBody(req, match?.route.upload?.maxBytes ?? MAX_REQUEST_BYTES);
      if (body === undefined) {
        res.writeHead(413, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ message: 'Request Entity Too Large' }));
        return;
      }
      const sourceIp = req.socket.remoteAddress ?? '127.0.0.1';
      if (path.startsWith('/_local/')) {
        await handleLocalPage(req, res, body, sourceIp, options.localPages);
        return;
      }
      await options.ready;
      if (path.startsWith(IMAGE_FILES_PREFIX)) return await serveImageFile(req, res, path, options.objects);
      const edge: EdgeFacts = { sourceIp, port: options.port(), edgeSecret: options.edgeSecret };
      const family: FamilyName = match ? match.route.family : fallbackFamily;
      const event = toApiGatewayEvent(req, body, match ? match.routeKey : '$default', match?.params, edge);
      const result = await options.handlers[family](event, lambdaContext(family, TIMEOUT_MS));
      writeResult(res, result);
    } catch (error) {
      logger.error('Gateway error', { error: error as Error });
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ message: 'Internal Server Error' }));
      }
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

function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolveBody(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
