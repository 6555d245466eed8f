import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { fromOwnEdge, isLoopback, transportOf } from '../../shared/http/transport';

const event = (headers: Record<string, string>, sourceIp: string): APIGatewayProxyEventV2 =>
  ({ headers, requestContext: { domainName: 'abc.execute-api.us-east-1.amazonaws.com', http: { sourceIp } } }) as unknown as APIGatewayProxyEventV2;

describe('transport facts (conventions.md 2 and 8)', () => {
  it('knows loopback addresses', () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopback(ip)).toBe(true);
    for (const ip of ['10.0.0.1', '192.0.2.2', '::ffff:10.0.0.1', 'fd00::2']) expect(isLoopback(ip)).toBe(false);
  });

  it('treats plain HTTP from a non-loopback client as insecure, and from loopback as fine', () => {
    expect(transportOf(event({ 'x-forwarded-proto': 'http', host: 'h' }, '10.1.2.3'), undefined).insecure).toBe(true);
    expect(transportOf(event({ 'x-forwarded-proto': 'http', host: 'h' }, '127.0.0.1'), undefined).insecure).toBe(false);
    expect(transportOf(event({ 'x-forwarded-proto': 'https', host: 'h' }, '10.1.2.3'), undefined).insecure).toBe(false);
  });

  it('trusts the CDN viewer scheme and forwarded host only with the edge secret', () => {
    const headers = { 'x-forwarded-proto': 'https', 'cloudfront-forwarded-proto': 'http', 'x-forwarded-host': 'acct.apps.example.test', host: 'api.internal' };
    const forged = transportOf(event(headers, '10.1.2.3'), 's3cret');
    expect(forged).toMatchObject({ scheme: 'https', host: 'api.internal', insecure: false });
    const edge = transportOf(event({ ...headers, 'x-cartwheel-edge': 's3cret' }, '10.1.2.3'), 's3cret');
    expect(edge).toMatchObject({ scheme: 'http', host: 'acct.apps.example.test', insecure: true });
    expect(transportOf(event({ ...headers, 'x-cartwheel-edge': 'wrong!' }, '10.1.2.3'), 's3cret').host).toBe('api.internal');
    // Without a secret no edge is trusted, whatever the request presents.
    expect(transportOf(event({ ...headers, 'x-cartwheel-edge': 's3cret' }, '10.1.2.3'), undefined).host).toBe('api.internal');
  });

  it('falls back to the API domain when no host header exists', () => {
    expect(transportOf(event({}, '10.1.2.3'), undefined).host).toBe('abc.execute-api.us-east-1.amazonaws.com');
  });
});

describe('viewer country', () => {
  it('is trusted only when our own edge vouches for it', async () => {
    const { viewerCountry } = await import('../../shared/modules/carts/carts');
    // As the pipeline reads it: the request's transport, with the surface's edge secret.
    const country = (headers: Record<string, string>) => viewerCountry(headers, fromOwnEdge(headers, 's3cret'));
    expect(country({ 'cloudfront-viewer-country': 'DE' })).toBeNull();
    expect(country({ 'cloudfront-viewer-country': 'DE', 'x-cartwheel-edge': 'wrong!' })).toBeNull();
    expect(country({ 'cloudfront-viewer-country': 'de', 'x-cartwheel-edge': 's3cret' })).toBe('DE');
    expect(country({ 'cloudfront-viewer-country': 'XX', 'x-cartwheel-edge': 's3cret' })).toBeNull();
  });
});
