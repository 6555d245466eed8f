/**
 * The local gateway's translation between Node HTTP and the API Gateway v2 (payload 2.0)
 * event and result shapes, so handlers receive exactly what the HTTP API would send them.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { newId } from '../../shared/core/ids';
import { isTextual } from '../../shared/http/body/content-type';

/** Headers only the platform's own edge may set; anything a client sends under these names is dropped. */
const EDGE_HEADERS = new Set(['x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'x-forwarded-for', 'x-cartwheel-edge', 'cloudfront-forwarded-proto']);

/** What the gateway knows about the incoming connection. */
export interface EdgeFacts {
  sourceIp: string;
  port: number;
  /** Set when the local app-host proxy forwards a request on behalf of an app host. */
  forwardedHost?: string;
  edgeSecret: string;
}

/** Builds the API Gateway v2 event for a request. */
export function toApiGatewayEvent(
  req: IncomingMessage,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
  edge: EdgeFacts,
): APIGatewayProxyEventV2 {
  const url = req.url ?? '/';
  const queryIndex = url.indexOf('?');
  const rawPath = queryIndex === -1 ? url : url.slice(0, queryIndex);
  const rawQueryString = queryIndex === -1 ? '' : url.slice(queryIndex + 1);
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    if (EDGE_HEADERS.has(name)) continue;
    if (name === 'cookie') {
      cookies.push(...value.split(';').map((cookie) => cookie.trim()).filter(Boolean));
      continue;
    }
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-for'] = edge.sourceIp;
  headers['x-forwarded-port'] = String(edge.port);
  // The local gateway is the edge: it vouches for what it forwards, as CloudFront does in the
  // cloud. A `cloudfront-viewer-country` a local client sends passes through (there is no geo
  // lookup on one machine), which is how tests and developers pick a country.
  headers['x-cartwheel-edge'] = edge.edgeSecret;
  if (edge.forwardedHost) headers['x-forwarded-host'] = edge.forwardedHost;
  const queryStringParameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    queryStringParameters[name] = queryStringParameters[name] === undefined ? value : `${queryStringParameters[name]},${value}`;
  }
  const now = Date.now();
  const method = req.method ?? 'GET';
  // Bytes that are not UTF-8 travel base64-encoded, so the handler judges the body as sent.
  const isText = body.length === 0 || (isTextual(headers['content-type']) && isUtf8(body));
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters } : {}),
    ...(pathParameters && Object.keys(pathParameters).length ? { pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? `localhost:${edge.port}`,
      domainPrefix: (headers.host ?? 'localhost').split('.')[0]!,
      http: { method, path: rawPath, protocol: `HTTP/${req.httpVersion}`, sourceIp: edge.sourceIp, userAgent: headers['user-agent'] ?? '' },
      requestId: newId(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(body.length ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: !isText,
  };
}

/** A Lambda context for a local invocation with the same time budget as the cloud function. */
export function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: newId(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Writes an API Gateway v2 result to the Node response. */
export function writeResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies?.length) headers['Set-Cookie'] = result.cookies;
  const body = result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  if (body) headers['Content-Length'] = String(body.length);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}
