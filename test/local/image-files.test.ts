/** The local `/images/` file server (the CloudFront behaviour's counterpart): public, immutable, and strict about paths. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveImageFile } from '../../infra/local/image-files';
import { testPlatform } from '../support/platform';

const platform = testPlatform();
const sha = 'a'.repeat(64);
const key = `images/${sha}/IMG123456789/square.png`;
let server: Server;
let origin: string;
const asked: string[] = [];

beforeAll(async () => {
  await platform.objects.put('apps', key, Buffer.from('png bytes'));
  const objects = { ...platform.objects, get: (bucket: 'apps' | 'functions', name: string) => (asked.push(name), platform.objects.get(bucket, name)) };
  server = createServer((req, res) => void serveImageFile(req, res, (req.url ?? '/').split('?')[0]!, objects));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('serveImageFile', () => {
  it('answers a stored file with its type, a year of immutable caching and an ETag', async () => {
    const response = await fetch(`${origin}/${key}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
    expect(Buffer.from(await response.arrayBuffer()).toString()).toBe('png bytes');
    const again = await fetch(`${origin}/${key}`, { headers: { 'If-None-Match': response.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const head = await fetch(`${origin}/${key}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('9');
  });

  it('answers 404 with the error envelope for a missing file', async () => {
    const response = await fetch(`${origin}/images/${sha}/IMG123456789/small.png`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { error: { code: string; status: number; reference: string } };
    expect(body.error).toMatchObject({ code: 'resource_not_found', status: 404 });
    expect(body.error.reference).toBe(response.headers.get('x-request-id'));
  });

  it('never looks up a path that is not an image file path (traversal included)', async () => {
    asked.length = 0;
    for (const path of [
      `/images/../bootstrap.json`,
      `/images/${sha}/..%2F..%2Fsecret/square.png`,
      `/images/${sha}/IMG123456789/../../../x.png`,
      `/images/${sha}/IMG123456789/square.svg`,
      `/images/${sha}/IMG123456789/other.png`,
      `/images/${sha}/IMG%2E123/square.png`,
      '/images/',
    ]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(404);
    }
    expect(asked).toEqual([]);
  });

  it('answers 405 with Allow to other methods', async () => {
    const response = await fetch(`${origin}/${key}`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});
