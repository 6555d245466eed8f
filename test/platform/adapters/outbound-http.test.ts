/**
 * The outbound HTTP port (events.md §3, §5): the address guard refuses loopback (in the cloud),
 * private, link-local, multicast and metadata addresses, checked on the resolved address; the
 * local runtime allows loopback so developers can receive on localhost; a slow server times out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressAllowed, destinationAllowed, guardedHttp, type HostResolver } from '../../../shared/platform/adapters/outbound-http';
import { ManualClock } from '../../../infra/local/manual-clock';
import { systemClock } from '../../../shared/platform/adapters/system-clock';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
    if (req.url === '/trickle') {
      // Headers at once, then a byte every 50 ms: a socket idle timer would never fire.
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 50);
      return void setTimeout(() => (clearInterval(timer), res.end()), 2_000);
    }
    if (req.url === '/hang') return;
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

describe('addressAllowed: the full events.md §3 list', () => {
  const cloud = { allowLoopback: false };
  const local = { allowLoopback: true };
  // One address inside each blocked range, at its edges where an off-by-one would show.
  const BLOCKED_V4 = [
    '0.0.0.0', '0.255.255.255', '10.0.0.0', '10.255.255.255', '100.64.0.0', '100.127.255.255', '169.254.0.1', '169.254.169.254',
    '172.16.0.0', '172.31.255.255', '192.0.0.1', '192.0.0.255', '192.168.0.1', '198.18.0.0', '198.19.255.255',
    '224.0.0.0', '239.255.255.255', '240.0.0.0', '255.255.255.255',
  ];
  const PUBLIC_V4 = ['1.1.1.1', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.0.1.1', '198.17.255.255', '198.20.0.0', '223.255.255.254'];

  it('refuses every blocked IPv4 range in both modes, and their IPv4-mapped and NAT64 forms', () => {
    for (const v4 of BLOCKED_V4) {
      for (const address of [v4, `::ffff:${v4}`, `64:ff9b::${v4}`]) {
        expect(addressAllowed(address, cloud), address).toBe(false);
        expect(addressAllowed(address, local), address).toBe(false);
      }
    }
  });

  it('allows public IPv4 addresses next to the blocked ranges, mapped or NAT64 too', () => {
    for (const v4 of PUBLIC_V4) for (const address of [v4, `::ffff:${v4}`, `64:ff9b::${v4}`]) expect(addressAllowed(address, cloud), address).toBe(true);
  });

  it('refuses the blocked IPv6 ranges: unspecified, loopback, unique local (metadata fd00:ec2::254), link-local, multicast', () => {
    for (const address of ['::', '::1', 'fc00::1', 'fd00:ec2::254', 'fdff:ffff::1', 'fe80::1', 'febf::1', 'ff02::1', 'ff0e::1', '::7f00:1', '::a00:1', '64:ff9b:1::a00:1']) {
      expect(addressAllowed(address, cloud), address).toBe(false);
    }
    expect(addressAllowed('2a00:1450:4001:80b::200e', cloud)).toBe(true);
  });

  it('allows loopback (127/8, ::1, mapped) only under the local policy', () => {
    for (const address of ['127.0.0.1', '127.255.255.254', '::1', '::ffff:127.0.0.1', '64:ff9b::127.0.0.1']) {
      expect(addressAllowed(address, cloud), address).toBe(false);
    }
    for (const address of ['127.0.0.1', '127.255.255.254', '::1', '::ffff:127.0.0.1']) expect(addressAllowed(address, local), address).toBe(true);
  });
});

describe('destinationAllowed (save-time check, injected resolver)', () => {
  const cloud = { allowLoopback: false };
  const local = { allowLoopback: true };
  const names: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'sneaky.example.com': ['93.184.216.34', '10.1.2.3'],
    'meta.example.com': ['fd00:ec2::254'],
    'home.example.com': ['127.0.0.1'],
  };
  const resolve: HostResolver = (host) => Promise.resolve(names[host] ?? []);

  it('checks literal hosts as they are, including bracketed IPv6 and the URL forms of IPv4', async () => {
    expect(await destinationAllowed('http://169.254.169.254/latest', cloud, resolve)).toBe(false);
    expect(await destinationAllowed('http://[::ffff:10.0.0.1]:8080/x', cloud, resolve)).toBe(false);
    expect(await destinationAllowed('http://0x7f000001/x', cloud, resolve)).toBe(false);
    expect(await destinationAllowed('http://2130706433/x', local, resolve)).toBe(true);
    expect(await destinationAllowed('https://93.184.216.34:8443/x', cloud, resolve)).toBe(true);
  });

  it('refuses a name when any of its addresses is blocked', async () => {
    expect(await destinationAllowed('https://hooks.example.com/x', cloud, resolve)).toBe(true);
    expect(await destinationAllowed('https://sneaky.example.com/x', cloud, resolve)).toBe(false);
    expect(await destinationAllowed('https://meta.example.com/x', local, resolve)).toBe(false);
  });

  it('treats localhost and names resolving to loopback as loopback: allowed locally, refused in the cloud', async () => {
    for (const url of ['http://localhost:3000/hook', 'http://api.localhost/x', 'http://home.example.com/x', 'http://[::1]:9/x', 'http://127.0.0.1/x']) {
      expect(await destinationAllowed(url, cloud, resolve), url).toBe(false);
      expect(await destinationAllowed(url, local, resolve), url).toBe(true);
    }
  });

  it('lets a name that does not resolve now through (every attempt checks again) and refuses non-http URLs', async () => {
    expect(await destinationAllowed('https://erp.example.test/hooks', cloud, resolve)).toBe(true);
    expect(await destinationAllowed('ftp://hooks.example.com/x', cloud, resolve)).toBe(false);
    expect(await destinationAllowed('not a url', cloud, resolve)).toBe(false);
  });

  it('is what the guarded port answers, with its own policy', async () => {
    expect(await guardedHttp(cloud, systemClock, resolve).allowsDestination('http://localhost/x')).toBe(false);
    expect(await guardedHttp(local, systemClock, resolve).allowsDestination('http://localhost/x')).toBe(true);
  });
});

describe('guardedHttp', () => {
  it('delivers to an allowed address and answers status, headers and body', async () => {
    const answer = await guardedHttp({ allowLoopback: true }, systemClock).send({ url: `http://127.0.0.1:${port}/hook`, method: 'POST', headers: { 'x-custom': 'v1' }, body: 'hello' });
    expect(answer).toMatchObject({ ok: true, status: 201, body: 'got hello', headers: { 'x-echo': 'v1' } });
  });

  it('refuses loopback in the cloud, by literal address and by a name that resolves to it', async () => {
    const http = guardedHttp({ allowLoopback: false }, systemClock);
    expect(await http.send({ url: `http://127.0.0.1:${port}/hook`, method: 'POST' })).toMatchObject({ ok: false, reason: 'refused_address' });
    expect(await http.send({ url: `http://localhost:${port}/hook`, method: 'POST' })).toMatchObject({ ok: false, reason: 'refused_address' });
    expect(await http.send({ url: 'http://169.254.169.254/latest/meta-data/', method: 'GET' })).toMatchObject({ ok: false, reason: 'refused_address' });
  });

  it('refuses other schemes and reports a timeout as such', async () => {
    const http = guardedHttp({ allowLoopback: true }, systemClock);
    expect(await http.send({ url: 'file:///etc/passwd', method: 'GET' })).toMatchObject({ ok: false, reason: 'refused_address' });
    expect(await http.send({ url: `http://127.0.0.1:${port}/slow`, method: 'GET', timeoutMs: 200 })).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('limits the whole exchange, not the silence between bytes', async () => {
    const started = Date.now();
    expect(await guardedHttp({ allowLoopback: true }, systemClock).send({ url: `http://127.0.0.1:${port}/trickle`, method: 'GET', timeoutMs: 300 })).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('ends a request when the manual clock passes its time limit (the local runtime drives timeouts)', async () => {
    const clock = new ManualClock(Date.now());
    const pending = guardedHttp({ allowLoopback: true }, clock).send({ url: `http://127.0.0.1:${port}/hang`, method: 'POST', body: 'x', timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    clock.set(clock.nowMs() + 29_000);
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    clock.set(clock.nowMs() + 1_000);
    expect(await pending).toMatchObject({ ok: false, reason: 'timeout' });
  });
});
