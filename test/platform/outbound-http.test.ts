/**
 * The outbound HTTP port (events.md §3, §5): the address guard refuses loopback (in the cloud),
 * private, link-local, multicast and metadata addresses, checked on the resolved address; the
 * local runtime allows loopback so developers can receive on localhost; a slow server times out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressAllowed, guardedHttp } from '../../shared/platform/outbound-http';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      res.writeHead(201, { 'x-echo': req.headers['x-custom'] ?? '' });
      res.end(`got ${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('addressAllowed', () => {
  it('allows public unicast and refuses private, link-local, metadata, multicast and unspecified addresses', () => {
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8']) expect(addressAllowed(address, { allowLoopback: false })).toBe(true);
    for (const address of ['10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', 'fd00::1', 'fe80::1', '224.0.0.1', '0.0.0.0', '::', '100.64.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(addressAllowed(address, { allowLoopback: false }), address).toBe(false);
    }
  });

  it('allows loopback only where the policy says (the local runtime)', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(addressAllowed(address, { allowLoopback: true })).toBe(true);
      expect(addressAllowed(address, { allowLoopback: false })).toBe(false);
    }
  });
});

describe('guardedHttp', () => {
  it('delivers to an allowed address and answers status, headers and body', async () => {
    const answer = await guardedHttp({ allowLoopback: true }).send({ url: `http://127.0.0.1:${port}/hook`, method: 'POST', headers: { 'x-custom': 'v1' }, body: 'hello' });
    expect(answer).toMatchObject({ ok: true, status: 201, body: 'got hello', headers: { 'x-echo': 'v1' } });
  });

  it('refuses loopback in the cloud, by literal address and by a name that resolves to it', async () => {
    const http = guardedHttp({ allowLoopback: false });
    expect(await http.send({ url: `http://127.0.0.1:${port}/hook`, method: 'POST' })).toMatchObject({ ok: false, reason: 'refused_address' });
    expect(await http.send({ url: `http://localhost:${port}/hook`, method: 'POST' })).toMatchObject({ ok: false, reason: 'refused_address' });
    expect(await http.send({ url: 'http://169.254.169.254/latest/meta-data/', method: 'GET' })).toMatchObject({ ok: false, reason: 'refused_address' });
  });

  it('refuses other schemes and reports a timeout as such', async () => {
    const http = guardedHttp({ allowLoopback: true });
    expect(await http.send({ url: 'file:///etc/passwd', method: 'GET' })).toMatchObject({ ok: false, reason: 'refused_address' });
    expect(await http.send({ url: `http://127.0.0.1:${port}/slow`, method: 'GET', timeoutMs: 200 })).toMatchObject({ ok: false, reason: 'timeout' });
  });
});
