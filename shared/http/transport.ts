/**
 * Where a request came from and how: scheme, host, client address, and whether the
 * platform's own edge (the CDN or the local gateway) vouched for the forwarded headers
 * (conventions.md sections 2 and 8).
 */
import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** How a request reached us. */
export interface Transport {
  scheme: string;
  host: string;
  sourceIp: string;
  /** True when the request is plain HTTP from a non-loopback client (401 tls_required). */
  insecure: boolean;
  /** True when our own edge vouched for the forwarded headers (`fromOwnEdge`). */
  fromOwnEdge: boolean;
}

/**
 * Whether the edge header proves that our own edge set the forwarded headers: it carries
 * `edgeSecret`, which the surface was handed by its composition (none: no edge is trusted).
 */
export function fromOwnEdge(headers: Record<string, string | undefined>, secret: string | undefined): boolean {
  const presented = headers['x-cartwheel-edge'];
  if (!secret || !presented || presented.length !== secret.length) return false;
  return timingSafeEqual(Buffer.from(presented), Buffer.from(secret));
}

/** Whether an address is loopback (127.0.0.0/8 or ::1, also IPv4-mapped). */
export function isLoopback(ip: string): boolean {
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return address === '::1' || address.startsWith('127.');
}

/** Reads the transport facts of an API Gateway v2 event, trusting forwarded headers only from the edge that holds `edgeSecret`. */
export function transportOf(event: APIGatewayProxyEventV2, edgeSecret: string | undefined): Transport {
  const headers = event.headers ?? {};
  const edge = fromOwnEdge(headers, edgeSecret);
  const scheme = ((edge ? headers['cloudfront-forwarded-proto'] : undefined) ?? headers['x-forwarded-proto'] ?? 'https')
    .split(',')[0]!
    .trim()
    .toLowerCase();
  const host = (edge ? headers['x-forwarded-host'] : undefined) ?? headers.host ?? event.requestContext.domainName;
  const sourceIp = event.requestContext.http.sourceIp;
  return { scheme, host, sourceIp, insecure: scheme === 'http' && !isLoopback(sourceIp), fromOwnEdge: edge };
}
