/**
 * Lambda entry point of the `docs` family: the API reference, `/docs` (the page of
 * shared/http/docs-site.ts) and `/docs/<vendored script>` (the Scalar build it loads). The same
 * handler answers both runtimes: API Gateway's `ANY /docs` and `ANY /docs/{proxy+}` routes in
 * the cloud (infra/cloud/api.ts), the local gateway's docs surface locally. The page reads the
 * description of the host it came from, `GET /api/v1/openapi.json`, whose server is that host's
 * API root: "try it" calls it.
 *
 * The script ships in `docs/` beside the bundle (the family's `apiReference`, copied by
 * infra/cloud/platform-function.ts); the sources and the local build read it from infra/docs/vendor.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { docsPage, DOCS_BUNDLE_FOLDER, SCALAR_SCRIPT, SCALAR_SETUP } from '../../shared/http/docs-site';

/**
 * The folder holding the vendored script: `docs/` beside the bundle (a Lambda function), else
 * infra/docs/vendor found up from this module (the sources, or a local build under `.build/`).
 * Throws, naming where it looked, when neither has it.
 */
export function docsScriptFolder(from: string = import.meta.url): string {
  const beside = fileURLToPath(new URL(`./${DOCS_BUNDLE_FOLDER}/`, from));
  if (existsSync(join(beside, SCALAR_SCRIPT))) return beside;
  for (let dir = dirname(fileURLToPath(from)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'infra/docs/vendor');
    if (existsSync(join(candidate, SCALAR_SCRIPT))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${SCALAR_SCRIPT} is missing (looked in ${beside} and every infra/docs/vendor up from ${fileURLToPath(from)})`);
  }
}

/** The script's bytes and their gzip form, read on first use and kept (4.9 MB; 1.3 MB compressed). */
let script: { text: string; gzip: Buffer } | undefined;

function scriptBytes(): { text: string; gzip: Buffer } {
  if (!script) {
    const plain = readFileSync(join(docsScriptFolder(), SCALAR_SCRIPT));
    script = { text: plain.toString('utf8'), gzip: gzipSync(plain) };
  }
  return script;
}

/** The hash of the page's one inline script (the reference's set-up), for the page's CSP. */
const SETUP_HASH = `'sha256-${createHash('sha256').update(SCALAR_SETUP).digest('base64')}'`;

/**
 * The page's Content Security Policy: scripts only from this host (the vendored build) and the
 * set-up by its hash; the reference's own styles, inline images and fonts; requests only to this
 * host (the description and "try it", which calls the API root of the same host); no framing.
 */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  `script-src 'self' ${SETUP_HASH}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every answer under `/docs`. */
const COMMON = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' } as const;

/** A plain-text answer (404, 405). */
function text(statusCode: number, body: string, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...COMMON, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers }, body };
}

/** Whether the request accepts a gzip body. */
function acceptsGzip(event: APIGatewayProxyEventV2): boolean {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'accept-encoding')?.[1] ?? '';
  return /\bgzip\b(?!;\s*q=0(?:\.0*)?\b)/i.test(header);
}

/**
 * The answer to a request under `/docs`: the page (`/docs`, `/docs/`, `/docs/index.html`), the
 * script (gzip when the client takes it: a Lambda answer holds at most 6 MB), else 404; only
 * GET and HEAD (405 otherwise). A HEAD answer has the headers and no body.
 */
export function docsAnswer(event: APIGatewayProxyEventV2): APIGatewayProxyStructuredResultV2 {
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.rawPath;
  if (method !== 'GET' && method !== 'HEAD') return text(405, 'Method not allowed\n', { Allow: 'GET, HEAD' });
  const head = method === 'HEAD';
  if (path === '/docs' || path === '/docs/' || path === '/docs/index.html') {
    const page = docsPage();
    return {
      statusCode: 200,
      headers: { ...COMMON, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Security-Policy': DOCS_PAGE_CSP },
      body: head ? '' : page,
    };
  }
  if (path === `/docs/${SCALAR_SCRIPT}`) {
    const bytes = scriptBytes();
    const gzip = acceptsGzip(event);
    return {
      statusCode: 200,
      headers: {
        ...COMMON,
        'Content-Type': 'text/javascript; charset=utf-8',
        // The name carries the version: a new build is a new name.
        'Cache-Control': 'public, max-age=31536000, immutable',
        Vary: 'Accept-Encoding',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      },
      // Base64 of the plain script would pass the 6 MB a Lambda answer holds; as text it does not (4.9 MB).
      body: head ? '' : gzip ? bytes.gzip.toString('base64') : bytes.text,
      isBase64Encoded: gzip && !head,
    };
  }
  return text(404, 'Not found\n');
}

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => docsAnswer(event);
