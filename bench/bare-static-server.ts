/**
 * The baseline for bench/app-serving.ts: a bare node:http static server holding a few files in
 * memory (`BARE_FILES`: path → { type, base64 }), answering each with its type, length and an
 * ETag. Run as its own process so it does not share an event loop with the load.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const files = new Map(
  Object.entries(JSON.parse(process.env.BARE_FILES!) as Record<string, { type: string; base64: string }>).map(([path, file]) => {
    const body = Buffer.from(file.base64, 'base64');
    return [path, { type: file.type, body, etag: `"${createHash('md5').update(body).digest('hex')}"` }];
  }),
);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const file = files.get((req.url ?? '/').split('?')[0]!);
    if (!file) {
      res.writeHead(404, { 'Content-Length': 0 });
      return void res.end();
    }
    res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length, ETag: file.etag, 'Cache-Control': 'no-cache' });
    res.end(file.body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(`bare listening on ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
