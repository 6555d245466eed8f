/**
 * The API reference in the cloud: `https://<api>/docs` is the docs family's Lambda function,
 * behind the API's `ANY /docs` and `ANY /docs/{proxy+}` routes, and its bundle carries the
 * vendored Scalar script in `docs/` (the bundled handler finds it there from its own URL, byte
 * for byte the repository's), with no bucket deployment (which would add a Python function).
 * The handler's answers (the page with its CSP, the script, 404 and 405) are the same code the
 * local runtime calls (test/e2e/docs-browser.test.ts renders them in Chromium). Synthesized with
 * the docs family and the fallback only, so only those two are bundled.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { DOCS_FAMILY, DOCS_ROUTES } from '../../infra/cloud/api';
import { DOCS_BUNDLE_FOLDER, SCALAR_SCRIPT, SCALAR_SETUP } from '../../shared/http/docs-site';
import { DOCS_PAGE_CSP, docsAnswer, docsScriptFolder } from '../../handlers/http/docs';
import { queues } from '../../shared/app/queues';
import { families } from '../../shared/app/routes';
import { bundleFolderOf, functionWithRole, referencedId, resourcesOfType, synthesize, synthTimeout, type Synthesized } from './synthesize';

const VENDORED = path.resolve(import.meta.dirname, '../../infra/docs/vendor', SCALAR_SCRIPT);

/** An API Gateway v2 event of `method path` with `headers`. */
const event = (method: string, rawPath: string, headers: Record<string, string> = {}): APIGatewayProxyEventV2 =>
  ({ version: '2.0', routeKey: `ANY ${rawPath}`, rawPath, rawQueryString: '', headers, requestContext: { http: { method, path: rawPath } }, isBase64Encoded: false }) as unknown as APIGatewayProxyEventV2;

describe('the docs family handler (both runtimes)', () => {
  it('answers the page with a CSP that allows only its own script and its set-up, by hash', () => {
    for (const path of ['/docs', '/docs/', '/docs/index.html']) {
      const answer = docsAnswer(event('GET', path));
      expect(answer.statusCode, path).toBe(200);
      expect(answer.headers!['Content-Type']).toBe('text/html; charset=utf-8');
      expect(answer.body).toContain(`<script src="/docs/${SCALAR_SCRIPT}"></script>`);
      expect(answer.body).toContain(`<script>${SCALAR_SETUP}</script>`);
    }
    const csp = String(docsAnswer(event('GET', '/docs')).headers!['Content-Security-Policy']);
    expect(csp).toBe(DOCS_PAGE_CSP);
    const hash = createHash('sha256').update(SCALAR_SETUP).digest('base64');
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-eval|\*/);
  });

  it('answers the vendored script, gzip when the client takes it, as text otherwise (base64 of it would pass the 6 MB a Lambda answer holds)', () => {
    const vendored = readFileSync(VENDORED);
    const gzip = docsAnswer(event('GET', `/docs/${SCALAR_SCRIPT}`, { 'accept-encoding': 'gzip, deflate, br' }));
    expect(gzip).toMatchObject({ statusCode: 200, isBase64Encoded: true });
    expect(gzip.headers).toMatchObject({ 'Content-Type': 'text/javascript; charset=utf-8', 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding', 'X-Content-Type-Options': 'nosniff' });
    expect(gunzipSync(Buffer.from(gzip.body!, 'base64')).equals(vendored)).toBe(true);
    const plain = docsAnswer(event('GET', `/docs/${SCALAR_SCRIPT}`, { 'accept-encoding': 'gzip;q=0' }));
    expect(plain.isBase64Encoded).toBe(false);
    expect(plain.headers!['Content-Encoding']).toBeUndefined();
    expect(Buffer.from(plain.body!, 'utf8').equals(vendored)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(plain))).toBeLessThan(6 * 1024 * 1024);
    const head = docsAnswer(event('HEAD', `/docs/${SCALAR_SCRIPT}`));
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('answers 404 for anything else under /docs and 405 for methods but GET and HEAD', () => {
    expect(docsAnswer(event('GET', '/docs/other.js')).statusCode).toBe(404);
    expect(docsAnswer(event('GET', '/docs/scalar-api-reference-0.0.0.standalone.js')).statusCode).toBe(404);
    const post = docsAnswer(event('POST', '/docs'));
    expect(post.statusCode).toBe(405);
    expect(post.headers!.Allow).toBe('GET, HEAD');
  });
});

describe('the API reference in the cloud', () => {
  let synth: Synthesized;
  const bundleOf = (name: string): string => bundleFolderOf(synth, name);

  beforeAll(() => {
    synth = synthesize({
      families: { docs: families.docs, fallback: families.fallback },
      fallbackFamily: 'fallback',
      routes: [],
      queues: queues.map(({ consumer: _consumer, ...queue }) => queue),
      schedules: [],
    });
  }, synthTimeout);

  it('routes ANY /docs and ANY /docs/{proxy+} of the HTTP API to the docs family function', () => {
    expect(families.docs.apiReference).toBe(true);
    const docsFunction = functionWithRole(synth.json, `family:${DOCS_FAMILY}`);
    for (const route of DOCS_ROUTES) {
      const key = `${route.method} ${route.path}`;
      const routeId = resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Route').find((id) => synth.json.Resources[id]!.Properties!.RouteKey === key);
      expect(routeId, key).toBeDefined();
      const target = synth.json.Resources[routeId!]!.Properties!.Target as { 'Fn::Join': [string, unknown[]] };
      const integration = synth.json.Resources[referencedId(target['Fn::Join'][1][1])!]!;
      expect(referencedId(integration.Properties!.IntegrationUri), key).toBe(docsFunction);
    }
    // No bucket deployment and no function but the two families' (a bucket deployment adds a Python one).
    expect(resourcesOfType(synth.json, 'Custom::CDKBucketDeployment')).toEqual([]);
    for (const id of resourcesOfType(synth.json, 'AWS::Lambda::Function')) expect(String(synth.json.Resources[id]!.Properties!.Runtime)).toMatch(/^nodejs/);
  });

  it('ships the vendored script in docs/ beside index.mjs, where the bundled handler looks first', () => {
    const bundle = bundleOf(DOCS_FAMILY);
    const shipped = path.join(bundle, DOCS_BUNDLE_FOLDER, SCALAR_SCRIPT);
    expect(existsSync(shipped)).toBe(true);
    expect(readFileSync(shipped).equals(readFileSync(VENDORED))).toBe(true);
    expect(docsScriptFolder(pathToFileURL(path.join(bundle, 'index.mjs')).href)).toBe(path.join(bundle, `${DOCS_BUNDLE_FOLDER}/`));
    expect(readFileSync(path.join(bundle, 'index.mjs'), 'utf8')).toContain(SCALAR_SCRIPT);
    // Other families carry no copy.
    expect(existsSync(path.join(bundleOf('fallback'), DOCS_BUNDLE_FOLDER))).toBe(false);
  });
});
