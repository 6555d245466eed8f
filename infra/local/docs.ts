/**
 * The API reference on the local runtime: `/docs` (and `/docs/`) answer the page of
 * infra/docs/site.ts, `/docs/<vendored script>` the Scalar build it loads. The page reads the
 * runtime's own `GET /api/v1/openapi.json`, whose server is this runtime: "try it" calls it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { docsPage, SCALAR_SCRIPT } from '../docs/site';

/** The repository's vendored files: found up from this module, in the sources or in a build under `.build/local/<key>/` (any chunk). */
function vendorDir(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'infra/docs/vendor');
    if (existsSync(join(candidate, SCALAR_SCRIPT))) return candidate;
    if (dirname(dir) === dir) throw new Error(`infra/docs/vendor/${SCALAR_SCRIPT} is missing`);
  }
}

let script: Buffer | undefined;

/** Answers a request under `/docs`: the page, the script, or 404. */
export function serveDocs(req: IncomingMessage, res: ServerResponse, path: string): void {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
    return;
  }
  if (path === '/docs' || path === '/docs/' || path === '/docs/index.html') {
    const page = docsPage();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(page), 'Cache-Control': 'no-cache' });
    res.end(method === 'HEAD' ? undefined : page);
    return;
  }
  if (path === `/docs/${SCALAR_SCRIPT}`) {
    script ??= readFileSync(join(vendorDir(), SCALAR_SCRIPT));
    res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Content-Length': script.length, 'Cache-Control': 'public, max-age=31536000, immutable' });
    res.end(method === 'HEAD' ? undefined : script);
    return;
  }
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
}
