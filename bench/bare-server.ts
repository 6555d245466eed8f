/**
 * The baseline for bench/http-overhead.ts: a bare node:http server that answers every
 * request with fixed bytes (the status, headers and body the platform gave for the same
 * request). Run as its own process so it does not share an event loop with the load.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const reply = JSON.parse(process.env.BARE_REPLY!) as { status: number; headers: Record<string, string>; body: string };
const body = Buffer.from(reply.body);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(reply.status, { ...reply.headers, 'Content-Length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(`bare listening on ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
