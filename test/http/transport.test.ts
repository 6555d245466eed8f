import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../shared/core/config';
import { isLoopback, transportOf } from '../../shared/http/transport';

const event = (headers: Record<string, string>, sourceIp: string): APIGatewayProxyEventV2 =>
  ({ headers, requestContext: { domainName: 'abc.execute-api.us-east-1.amazonaws.com', http: { sourceIp } } }) as unknown as APIGatewayProxyEventV2;

afterEach(() => {
  delete process.env.CARTWHEEL_EDGE_SECRET;
  resetConfig();
});

describe('transport facts (conventions.md 2 and 8)', () => {
  it('knows loopback addresses', () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopback(ip)).toBe(true);
    for (const ip of ['10.0.0.1', '192.0.2.2', '::ffff:10.0.0.1', 'fd00::2']) expect(isLoopback(ip)).toBe(false);
  });

  it('treats plain HTTP from a non-loopback client as insecure, and from loopback as fine', () => {
    expect(transportOf(event({ 'x-forwarded-proto': 'http', host: 'h' }, '10.1.2.3')).insecure).toBe(true);
    expect(transportOf(event({ 'x-forwarded-proto': 'http', host: 'h' }, '127.0.0.1')).insecure).toBe(false);
    expect(transportOf(event({ 'x-forwarded-proto': 'https', host: 'h' }, '10.1.2.3')).insecure).toBe(false);
  });

  it('trusts the CDN viewer scheme and forwarded host only with the edge secret', () => {
    process.env.CARTWHEEL_EDGE_SECRET = 's3cret';
    resetConfig();
    const headers = { 'x-forwarded-proto': 'https', 'cloudfront-forwarded-proto': 'http', 'x-forwarded-host': 'acct.apps.example.test', host: 'api.internal' };
    const forged = transportOf(event(headers, '10.1.2.3'));
    expect(forged).toMatchObject({ scheme: 'https', host: 'api.internal', insecure: false });
    const edge = transportOf(event({ ...headers, 'x-cartwheel-edge': 's3cret' }, '10.1.2.3'));
    expect(edge).toMatchObject({ scheme: 'http', host: 'acct.apps.example.test', insecure: true });
    expect(transportOf(event({ ...headers, 'x-cartwheel-edge': 'wrong!' }, '10.1.2.3')).host).toBe('api.internal');
  });

  it('falls back to the API domain when no host header exists', () => {
    expect(transportOf(event({}, '10.1.2.3')).host).toBe('abc.execute-api.us-east-1.amazonaws.com');
  });
});

describe('viewer country', () => {
  it('is trusted only when our own edge vouches for it', async () => {
    const { viewerCountry } = await import('../../shared/modules/carts/carts');
    process.env.CARTWHEEL_EDGE_SECRET = 's3cret';
    resetConfig();
    expect(viewerCountry({ 'cloudfront-viewer-country': 'DE' })).toBeNull();
    expect(viewerCountry({ 'cloudfront-viewer-country': 'DE', 'x-cartwheel-edge': 'wrong!' })).toBeNull();
    expect(viewerCountry({ 'cloudfront-viewer-country': 'de', 'x-cartwheel-edge': 's3cret' })).toBe('DE');
    expect(viewerCountry({ 'cloudfront-viewer-country': 'XX', 'x-cartwheel-edge': 's3cret' })).toBeNull();
  });
});
