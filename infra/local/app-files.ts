/**
 * The local counterpart of the apps CDN (hosting.md §11): requests under an app address,
 * host form (`http://<account_id>.apps.localhost:<port>/<alias>/...`) or path form
 * (`http://localhost:<port>/apps/<account_id>/<alias>/...`), answered by the same serving
 * rules the cloud's hosting handler runs, from the local table and object store.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveAppRequest, type HostingSource } from '../../shared/modules/hosting';
import type { Clock } from '../../shared/platform/ports';
import { surfaceNamed } from '../../shared/app/surfaces';

/** Path prefix of the local path form (the apps surface's, shared/app/surfaces.ts). */
export const APPS_PATH_PREFIX = surfaceNamed('apps').pathPrefix;

/** What app serving needs from the runtime. */
export interface LocalApps {
  source: HostingSource;
  /** `apps.localhost:<port>`: app hosts are `<account_id>.<domain>`. */
  domain: string;
  clock: Clock;
}

/**
 * The account and the path below it of a path-form request (`/apps/<account_id>/<alias>/...`),
 * the account id upper-cased; a bare `/apps/<account_id>` has the path `''` (no alias: 404).
 */
export function pathFormTarget(path: string): { accountId: string; path: string } {
  const rest = path.slice(APPS_PATH_PREFIX.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? { accountId: rest.toUpperCase(), path: '' } : { accountId: rest.slice(0, slash).toUpperCase(), path: rest.slice(slash) };
}

/** Answers one request under an app address of `accountId`; `path` is below the account (`/<alias>/...`). */
export async function serveAppFile(req: IncomingMessage, res: ServerResponse, apps: LocalApps, accountId: string, path: string): Promise<void> {
  const url = req.url ?? '/';
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const method = req.method ?? 'GET';
  const response = await serveAppRequest(apps.source, { method, accountId, path, query, headers, nowMs: apps.clock.nowMs() });
  res.writeHead(response.status, response.headers);
  res.end(method === 'HEAD' ? undefined : response.body);
}
