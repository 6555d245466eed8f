/**
 * The hosting handler as the CDN's origin (hosting.md §10), reached through a Lambda function
 * URL with the API Gateway v2 event shape:
 *
 * - the behaviours for `settings/`, `analytics/` and `oauth/callback.html` send the viewer's
 *   path (`/<alias>/...`): every rule of §6 applies;
 * - a bucket miss of the app-files behaviour arrives with the path the edge function rewrote
 *   it to (`/apps/<account_id>/<app_id>/<version_id>/<path>`): rules 5 to 8 from the manifest.
 *
 * The account always comes from the viewer's host, which CloudFront forwards in
 * `x-forwarded-host` and vouches for with the edge secret; a rewritten path of another account
 * is a 404, so one account's host never serves another's files.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { transportOf } from '../../../http/transport';
import { appHostAccount } from '../../../http/app-hosts';
import { notFound } from './pages';
import { serveAppRequest, serveVersionMiss } from './serve';
import type { AppResponse, HostingSource } from './types';

/** Request header the edge function sets (to `1`) when it appended `index.html` to a path ending in `/`. */
export const INDEX_APPENDED_HEADER = 'x-cartwheel-index';

/** A rewritten path: `/apps/<account_id>/<app_id>/<version_id>/<path>`. */
const VERSION_PATH = /^\/apps\/([^/]+)\/([^/]+)\/([^/]+)\/(.*)$/;

/** Where app hosts are: the apps domain, and the secret the CDN proves the forwarded host with. */
export interface AppHosting {
  appsDomain: string;
  edgeSecret: string | undefined;
}

/** Answers a CDN origin request (function URL event) for the app host it names under `hosting.appsDomain`. */
export async function serveCdnOrigin(source: HostingSource, event: APIGatewayProxyEventV2, nowMs: number, hosting: AppHosting): Promise<APIGatewayProxyStructuredResultV2> {
  const method = event.requestContext.http.method;
  const headers = event.headers ?? {};
  const accountId = appHostAccount(transportOf(event, hosting.edgeSecret).host, hosting.appsDomain);
  if (!accountId) return toFunctionUrlResult(notFound(method));
  const rewritten = VERSION_PATH.exec(event.rawPath);
  if (rewritten) {
    const [, pathAccount, appId, versionId, rawPath] = rewritten;
    if (pathAccount!.toUpperCase() !== accountId) return toFunctionUrlResult(notFound(method));
    return toFunctionUrlResult(await serveVersionMiss(source, { method, headers, accountId, appId: appId!, versionId: versionId!, rawPath: rawPath!, indexAppended: headers[INDEX_APPENDED_HEADER] === '1' }));
  }
  return toFunctionUrlResult(await serveAppRequest(source, { method, accountId, path: event.rawPath, query: event.rawQueryString ?? '', headers, nowMs }));
}

/** An answer as a function URL result: binary bodies base64-encoded, the length left to Lambda. */
export function toFunctionUrlResult(response: AppResponse): APIGatewayProxyStructuredResultV2 {
  const { 'Content-Length': _length, ...headers } = response.headers;
  if (typeof response.body === 'string') return { statusCode: response.status, headers, body: response.body };
  return { statusCode: response.status, headers, body: response.body.toString('base64'), isBase64Encoded: true };
}
