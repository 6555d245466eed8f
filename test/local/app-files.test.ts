/**
 * Hosted apps on the local gateway (hosting.md §11), in this process with a fake hosting
 * source and stand-in API handlers that record the events they get: both address forms on
 * the one port, host names matched case-insensitively, the API proxied in-process on app hosts
 * with the app host vouched for, forwarded headers from anyone else ignored, and one account's
 * host never reaching another account's apps.
 */
import { mkdtempSync } from 'node:fs';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, createGatewayServer, type HttpHandler } from '../../infra/local/gateway';
import { NOT_FOUND_PAGE } from '../../shared/modules/hosting/serving';
import { fakeHostingSource } from '../support/hosting-source';
import { systemClock } from '../../shared/platform/adapters/system-clock';

const ACCOUNT = 'XG5908XMX3MH';
const OTHER = 'QW12ER34TY56';
const EDGE_SECRET = 'local-edge-secret';
const source = fakeHostingSource();
const events: APIGatewayProxyEventV2[] = [];
const images = new Map<string, Buffer>();
let server: Server;
let port: number;

beforeAll(async () => {
  for (const account of [ACCOUNT, OTHER]) {
    source.addAccount(account);
    source.addApp({ app_id: `APP${account}`, account_id: account, settings: { owner: account } });
    source.addVersion(account, `APP${account}`, 'V1', { 'index.html': `home of ${account}`, 'docs/index.html': 'docs' });
  }
  source.point(ACCOUNT, 'shop', `APP${ACCOUNT}`, 'V1');
  source.point(OTHER, 'other', `APP${OTHER}`, 'V1');
  images.set('apps/images/' + 'a'.repeat(64) + '/IMG1/small.png', Buffer.from('png'));
  const record: HttpHandler = async (event) => {
    events.push(event);
    return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' };
  };
  const gateway = createGateway({
    handler: async () => record,
    localPages: { outboxDir: mkdtempSync(join(tmpdir(), 'cartwheel-apps-')), clock: systemClock, isReady: () => true, dynamoCalls: () => ({}), storeMemory: () => ({ readCache: { hits: 0, misses: 0, entries: 0, chars: 0 }, transactionTokens: 0 }) },
    edgeSecret: EDGE_SECRET,
    port: () => port,
    ready: Promise.resolve(),
    objects: { put: async () => undefined, get: async (_bucket, key) => images.get(`apps/${key}`), delete: async () => undefined },
    apps: { source, domain: 'apps.localhost:4000', clock: { nowMs: () => Date.UTC(2026, 10, 21, 12) } },
  });
  server = createGatewayServer(gateway.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  events.length = 0;
});

/** One request to the gateway with an explicit Host (nothing here resolves *.apps.localhost). */
function send(host: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: host, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const appHost = (account: string) => `${account.toLowerCase()}.apps.localhost:4000`;

describe('host form', () => {
  it('serves the account’s alias on its app host, the host matched case-insensitively', async () => {
    for (const host of [appHost(ACCOUNT), `${ACCOUNT}.apps.localhost:4000`, `${ACCOUNT.toLowerCase()}.APPS.Localhost:4000`]) {
      const response = await send(host, '/shop/');
      expect(response.status, host).toBe(200);
      expect(response.body).toBe(`home of ${ACCOUNT}`);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
    const settings = await send(appHost(ACCOUNT), '/shop/settings/app.json');
    expect(JSON.parse(settings.body)).toMatchObject({ owner: ACCOUNT, account_id: ACCOUNT, alias: 'shop' });
    expect(events).toEqual([]);
  });

  it('redirects /<alias> and directories relative to the request', async () => {
    const alias = await send(appHost(ACCOUNT), '/shop?x=1');
    expect(alias.status).toBe(301);
    expect(new URL(alias.headers.location as string, `http://${appHost(ACCOUNT)}/shop?x=1`).href).toBe(`http://${appHost(ACCOUNT)}/shop/?x=1`);
    const docs = await send(appHost(ACCOUNT), '/shop/docs');
    expect(new URL(docs.headers.location as string, `http://${appHost(ACCOUNT)}/shop/docs`).pathname).toBe('/shop/docs/');
  });

  it('never serves another account’s alias, files or settings', async () => {
    for (const path of ['/other/', '/other/settings/app.json', '/other/index.html', '/other/oauth/callback.html']) {
      const response = await send(appHost(ACCOUNT), path);
      expect(response.status, path).toBe(404);
      expect(response.body).toBe(NOT_FOUND_PAGE);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    expect((await send(appHost(OTHER), '/shop/')).status).toBe(404);
  });

  it('answers 405 with Allow to methods other than GET and HEAD, and HEAD without a body', async () => {
    const post = await send(appHost(ACCOUNT), '/shop/', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const head = await send(appHost(ACCOUNT), '/shop/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(String(`home of ${ACCOUNT}`.length));
  });

  it('has no local pages, and serves image files like every host', async () => {
    expect((await send(appHost(ACCOUNT), '/_local/health')).body).toBe(NOT_FOUND_PAGE);
    expect((await send('localhost:4000', '/_local/health')).status).toBe(200);
    const image = await send(appHost(ACCOUNT), `/images/${'a'.repeat(64)}/IMG1/small.png`);
    expect(image).toMatchObject({ status: 200, body: 'png' });
  });
});

describe('the API on an app host', () => {
  it('forwards /api/v1/* (any method) in-process with the app host and the edge secret', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await send(appHost(ACCOUNT), '/api/v1/carts?limit=2', { method, headers: { Authorization: 'Bearer x', 'Content-Type': 'application/json' } });
      expect(response.status).toBe(200);
    }
    expect(events.map((event) => event.requestContext.http.method)).toEqual(['GET', 'POST', 'DELETE']);
    for (const event of events) {
      expect(event.rawPath).toBe('/api/v1/carts');
      expect(event.rawQueryString).toBe('limit=2');
      expect(event.headers).toMatchObject({
        host: appHost(ACCOUNT),
        'x-forwarded-host': appHost(ACCOUNT),
        'x-forwarded-proto': 'http',
        'x-cartwheel-edge': EDGE_SECRET,
        authorization: 'Bearer x',
      });
    }
  });

  it('replaces a forwarded host the client sent on an app host, and drops it on other hosts', async () => {
    await send(appHost(ACCOUNT), '/api/v1/auths/me', { headers: { 'X-Forwarded-Host': 'evil.test', 'X-Cartwheel-Edge': 'guess' } });
    await send('localhost:4000', '/api/v1/auths/me', { headers: { 'X-Forwarded-Host': appHost(OTHER) } });
    expect(events.map((event) => event.headers['x-forwarded-host'])).toEqual([appHost(ACCOUNT), undefined]);
    expect(events.every((event) => event.headers['x-cartwheel-edge'] === EDGE_SECRET)).toBe(true);
  });

  it('does not take /api/v1 for an app path, nor an app path for the API', async () => {
    expect((await send(appHost(ACCOUNT), '/api/v2/x')).body).toBe(NOT_FOUND_PAGE);
    expect(events).toEqual([]);
  });
});

describe('path form', () => {
  it('serves /apps/<account_id>/<alias>/... on the API host, the account id in any case', async () => {
    expect((await send('localhost:4000', `/apps/${ACCOUNT}/shop/`)).body).toBe(`home of ${ACCOUNT}`);
    expect((await send('127.0.0.1:4000', `/apps/${ACCOUNT.toLowerCase()}/shop/settings/app.json`)).body).toContain(`"alias":"shop"`);
    const redirect = await send('localhost:4000', `/apps/${ACCOUNT}/shop`);
    expect(new URL(redirect.headers.location as string, `http://localhost:4000/apps/${ACCOUNT}/shop`).pathname).toBe(`/apps/${ACCOUNT}/shop/`);
    expect(events).toEqual([]);
  });

  it('keeps accounts apart and answers HTML 404s for incomplete addresses', async () => {
    for (const path of [`/apps/${ACCOUNT}/other/`, `/apps/${OTHER}/shop/`, `/apps/${ACCOUNT}`, `/apps/${ACCOUNT}/`, '/apps/', `/apps/${ACCOUNT}/shop/../../${OTHER}/other/`]) {
      const response = await send('localhost:4000', path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).toBe(NOT_FOUND_PAGE);
    }
  });
});
