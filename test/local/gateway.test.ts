/**
 * The local gateway's own 500 and 503 answers, on its real HTTP server in this process with
 * stand-in family handlers (a handler that throws cannot be provoked in a real runtime, and
 * the shutdown 503 is a state the test sets directly): both carry the error envelope,
 * `Content-Type: application/json` exactly, `X-Request-Id` = `reference` and the CORS headers.
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REQUEST_HEADER_BYTES, requestHeaderBytes } from '../../infra/local/edge-answers';
import { createGateway, createGatewayServer, type HttpHandler } from '../../infra/local/gateway';
import { fakeHostingSource } from '../support/hosting-source';
import { systemClock } from '../../shared/platform/adapters/system-clock';

const ORIGIN = 'http://localhost:3000';
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A gateway whose every family answers with `handler`, served on a free port. */
async function serve(handler: HttpHandler): Promise<{ url: string; gateway: ReturnType<typeof createGateway> }> {
  const gateway = createGateway({
    handler: async () => handler,
    localPages: { outboxDir: mkdtempSync(join(tmpdir(), 'cartwheel-gateway-')), clock: systemClock, isReady: () => true, dynamoCalls: () => ({}), storeMemory: () => ({ readCache: { hits: 0, misses: 0, entries: 0, chars: 0 }, transactionTokens: 0 }) },
    edgeSecret: 'secret',
    port: () => (server!.address() as AddressInfo).port,
    ready: Promise.resolve(),
    // No image files here: the stand-in handlers are what the tests look at.
    objects: { put: async () => undefined, get: async () => undefined, delete: async () => undefined },
    apps: { source: fakeHostingSource(), domain: 'apps.localhost:4000', clock: { nowMs: () => Date.now() } },
  });
  server = createGatewayServer(gateway.listener);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, gateway };
}

async function expectEnvelope(response: Response, status: number, code: string): Promise<Record<string, any>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  const { error } = (await response.json()) as { error: Record<string, any> };
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'meta', 'reference', 'status', 'type']);
  expect(error).toMatchObject({ status, code });
  expect(error.reference).toMatch(/^[0-9A-Z]{12}$/);
  expect(error.reference).toBe(response.headers.get('x-request-id'));
  expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  expect(response.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  return error;
}

describe('the gateway’s own answers', () => {
  it('answers a handler that throws with 500 unspecified_error, no detail', async () => {
    const { url } = await serve(async () => {
      throw new Error('secret detail');
    });
    const response = await fetch(`${url}/api/v1/auths`, { headers: { Origin: ORIGIN } });
    const error = await expectEnvelope(response, 500, 'unspecified_error');
    expect(error).toMatchObject({ type: 'internal_server_error', meta: null });
    expect(JSON.stringify(error)).not.toContain('secret detail');
  });

  it('answers 503 stopping with Retry-After and Connection: close once it refuses new requests', async () => {
    const { url, gateway } = await serve(async () => ({ statusCode: 200, body: '{}' }));
    expect((await fetch(`${url}/api/v1/auths`)).status).toBe(200);
    gateway.refuseNewRequests();
    const response = await fetch(`${url}/api/v1/auths`, { method: 'POST', headers: { Origin: ORIGIN, 'Content-Type': 'application/json' }, body: '{}' });
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.headers.get('connection')).toBe('close');
    const error = await expectEnvelope(response, 503, 'stopping');
    expect(error.type).toBe('service_unavailable');
  });
});

describe('requestHeaderBytes', () => {
  it('counts each header line as sent, name, value, separator and line end, against 16 KiB', () => {
    expect(MAX_REQUEST_HEADER_BYTES).toBe(16 * 1024);
    expect(requestHeaderBytes([])).toBe(0);
    // "Host: a\r\n" and "X-Y: bc\r\n"
    expect(requestHeaderBytes(['Host', 'a', 'X-Y', 'bc'])).toBe(9 + 9);
  });
});
