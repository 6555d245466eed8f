/**
 * The event a function receives (functions.md §7.2), built from the API Gateway v2 event of an
 * invoke URL request, or from a notification delivered to a function (events.md §9).
 */
import { isUtf8 } from 'node:buffer';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { isTextual } from '../../../http/body/content-type';

/** The event object of §7.2. */
export interface FunctionEvent {
  httpMethod: string;
  path: string;
  headers: Record<string, string>;
  queryStringParameters: Record<string, string>;
  multiValueQueryStringParameters: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
  requestContext: { requestId: string; sourceIp: string };
}

/** Which function, in which account and mode: the three headers the platform always sets. */
export interface EventOrigin {
  accountId: string;
  mode: 'live' | 'test';
  functionId: string;
  requestId: string;
  sourceIp: string;
}

/** The headers the platform sets itself, in their exact spelling (any client-sent copy is dropped). */
const PLATFORM_HEADERS = ['X-Account-Id', 'X-Test', 'X-Hosted-Function-Id'] as const;
const platformNames = new Set(PLATFORM_HEADERS.map((name) => name.toLowerCase()));

/** Headers that are the platform's own edge's business, never the function's (the edge secret above all). */
const EDGE_ONLY = new Set(['x-cartwheel-edge']);

/** An object with no prototype: a header or parameter named `__proto__` is data like any other. */
function bare<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** The three platform headers of §7.2. */
function platformHeaders(origin: EventOrigin): Record<string, string> {
  return { 'X-Account-Id': origin.accountId, 'X-Test': origin.mode === 'test' ? 'true' : 'false', 'X-Hosted-Function-Id': origin.functionId };
}

/** The headers as the function sees them: lower-case names, client copies of the platform's headers dropped, the platform's set. */
export function functionHeaders(sent: Record<string, string | undefined>, origin: EventOrigin, drop: readonly string[] = []): Record<string, string> {
  const headers = bare<string>();
  const dropped = new Set(drop);
  for (const [name, value] of Object.entries(sent)) {
    const lower = name.toLowerCase();
    if (value === undefined || platformNames.has(lower) || EDGE_ONLY.has(lower) || dropped.has(lower)) continue;
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  return Object.assign(headers, platformHeaders(origin));
}

/** `rawQueryString` without the `token` parameter (when the credential came from it). */
function queryWithout(rawQuery: string, dropToken: boolean): string {
  if (!dropToken || rawQuery === '') return rawQuery;
  return rawQuery
    .split('&')
    .filter((pair) => {
      const name = pair.split('=')[0]!;
      try {
        return decodeURIComponent(name.replace(/\+/g, ' ')) !== 'token';
      } catch {
        return true;
      }
    })
    .join('&');
}

/** The query parameters: last value wins, and every value by name. */
function parameters(rawQuery: string): { single: Record<string, string>; multi: Record<string, string[]> } {
  const single = bare<string>();
  const multi = bare<string[]>();
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    single[name] = value;
    (multi[name] ??= []).push(value);
  }
  return { single, multi };
}

/**
 * The event of an invoke URL request. `credentialFrom` says where the token was found, so it
 * is removed before the function sees the request (§7.1).
 */
export function invokeEvent(event: APIGatewayProxyEventV2, origin: EventOrigin, credentialFrom: 'header' | 'query'): FunctionEvent {
  const query = queryWithout(event.rawQueryString ?? '', credentialFrom === 'query');
  const { single, multi } = parameters(query);
  const sent: Record<string, string | undefined> = { ...event.headers };
  // API Gateway moves cookies out of the headers; the function reads them as the header they came in.
  if (event.cookies?.length) sent.cookie = event.cookies.join('; ');
  const headers = functionHeaders(sent, origin, credentialFrom === 'header' ? ['authorization'] : []);
  const raw = event.body === undefined ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  const text = raw.length === 0 || (isTextual(headers['content-type']) && isUtf8(raw));
  return {
    httpMethod: event.requestContext.http.method,
    path: query ? `${event.rawPath}?${query}` : event.rawPath,
    headers,
    queryStringParameters: single,
    multiValueQueryStringParameters: multi,
    body: text ? raw.toString('utf8') : raw.toString('base64'),
    isBase64Encoded: !text,
    requestContext: { requestId: origin.requestId, sourceIp: origin.sourceIp },
  };
}

/**
 * The event of a notification delivered to a function (events.md §9): POST, the destination's
 * path and query, the rendered body and the delivery headers next to the platform's three.
 */
export function deliveryEvent(destination: URL, headers: Record<string, string>, body: string, origin: EventOrigin): FunctionEvent {
  const query = destination.search.startsWith('?') ? destination.search.slice(1) : '';
  const { single, multi } = parameters(query);
  return {
    httpMethod: 'POST',
    path: `${destination.pathname}${destination.search}`,
    headers: functionHeaders(headers, origin),
    queryStringParameters: single,
    multiValueQueryStringParameters: multi,
    body,
    isBase64Encoded: false,
    requestContext: { requestId: origin.requestId, sourceIp: origin.sourceIp },
  };
}
