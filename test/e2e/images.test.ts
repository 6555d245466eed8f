/**
 * End-to-end over HTTP against a real local runtime: product images (commerce.md §2.2).
 * Uploads of a JPEG, a PNG with transparency, an animated GIF and a WebP each get five public
 * links that serve the right pixel sizes; a JPEG renamed .png, an SVG, a truncated file, an
 * 11 MB file and a 50-megapixel PNG are refused with the error envelope and leave no record and
 * no file in the apps bucket (read from the data directory, where the local S3 keeps objects);
 * products list images inline, in order, and drop a deleted one; limited tokens get 403.
 */
import { request } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animated, hugePng, jpeg, svg, transparentPng, webp } from '../modules/images/fixtures';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';
import { storedObjectKeys } from '../support/stored-objects';

let runtime: RuntimeProcess;
let base: string;
let token: string;

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  token = runtime.bootstrap.tokens.test_secret;
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

type Response = Awaited<ReturnType<typeof api>>;

/** Posts a file to /images as multipart/form-data (a new random boundary every time). */
async function upload(data: Buffer, filename: string, options: { type?: string; field?: string; headers?: Record<string, string>; auth?: string } = {}): Promise<Response> {
  const form = new FormData();
  form.append(options.field ?? 'file', new Blob([new Uint8Array(data)], { type: options.type ?? 'application/octet-stream' }), filename);
  const response = await fetch(`${base}images`, { method: 'POST', headers: { Authorization: `Bearer ${options.auth ?? token}`, ...options.headers }, body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

const expectError = (response: Response, status: number, code: string, meta?: Record<string, unknown>) => {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.body.error).toMatchObject({ status, code });
  expect(response.body.error.reference).toBe(response.headers.get('x-request-id'));
  if (meta) expect(response.body.error.meta).toMatchObject(meta);
};

/** Every file under images/ in the local apps bucket. */
const storedFiles = () => storedObjectKeys(runtime.dataDir, 'apps', 'images');

const imageCount = async () => (await api(`${base}images`, { token })).body.total_items as number;

/** Fetches a link with no token and reads the picture. */
async function fetchPicture(url: string): Promise<{ status: number; type: string | null; cache: string | null; width: number; height: number; pages: number; alpha: boolean }> {
  const response = await fetch(url);
  const bytes = Buffer.from(await response.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  return { status: response.status, type: response.headers.get('content-type'), cache: response.headers.get('cache-control'), width: meta.width!, height: meta.height!, pages: meta.pages ?? 1, alpha: meta.hasAlpha === true };
}

const images: Record<string, any> = {};

describe('uploads', () => {
  const cases = [
    { name: 'jpeg', file: 'photo.jpg', make: () => jpeg(1600, 1200), type: 'image/jpeg', size: [1600, 1200], small: [100, 75], medium: [300, 225], large: [800, 600], pages: 1, alpha: false },
    { name: 'png', file: 'logo.png', make: () => transparentPng(640, 480), type: 'image/png', size: [640, 480], small: [100, 75], medium: [300, 225], large: [640, 480], pages: 1, alpha: true },
    { name: 'gif', file: 'spinner.gif', make: () => animated('gif', 400, 200, 4), type: 'image/gif', size: [400, 200], small: [100, 50], medium: [300, 150], large: [400, 200], pages: 4, alpha: true },
    { name: 'webp', file: 'banner.webp', make: () => webp(1000, 500), type: 'image/webp', size: [1000, 500], small: [100, 50], medium: [300, 150], large: [800, 400], pages: 1, alpha: false },
  ] as const;

  it.each(cases)('$name: 201 with five public links at the right sizes', async (testCase) => {
    const response = await upload(await testCase.make(), testCase.file, { type: testCase.type });
    expect(response.status, response.text).toBe(201);
    const image = response.body;
    images[testCase.name] = image;
    expect(response.headers.get('location')).toBe(image.url);
    expect(image).toMatchObject({ object: 'image', filename: testCase.file, content_type: testCase.type, width: testCase.size[0], height: testCase.size[1], test: true });
    expect(image.url).toBe(`${base}images/${image.image_id}`);
    expect(image.image_id).toMatch(/^[0-9A-Z]{12}$/);
    const expected = { link: testCase.size, link_small: testCase.small, link_medium: testCase.medium, link_large: testCase.large, link_square: [300, 300] } as const;
    for (const [link, [width, height]] of Object.entries(expected)) {
      expect(image[link]).toMatch(new RegExp(`^${runtime.url}/images/[0-9a-f]{64}/${image.image_id}/`));
      const picture = await fetchPicture(image[link]);
      expect(picture, link).toMatchObject({ status: 200, type: testCase.type, cache: 'public, max-age=31536000, immutable', width, height, pages: testCase.pages });
      if (testCase.alpha) expect(picture.alpha, link).toBe(true);
    }
    const original = await fetch(image.link);
    expect(Number(original.headers.get('content-length'))).toBe(image.bytes);
    expect((await api(image.url, { token })).body).toEqual(image);
  });

  it('lists them newest first by default', async () => {
    const list = await api(`${base}images?limit=2`, { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', total_items: 4, total_pages: 2, next_page_offset: 2 });
    expect(list.body.data.map((image: any) => image.image_id)).toEqual([images.webp.image_id, images.gif.image_id]);
    const oldest = await api(`${base}images?desc=false&limit=1`, { token });
    expect(oldest.body.data[0].image_id).toBe(images.jpeg.image_id);
  });
});

describe('refusals store nothing', () => {
  it.each([
    ['a JPEG renamed .png', async () => upload(await jpeg(200, 200), 'photo.png'), 400, 'invalid_input', { property: 'file', reason: 'type_mismatch' }],
    ['a JPEG sent as image/webp', async () => upload(await jpeg(200, 200), 'photo', { type: 'image/webp' }), 400, 'invalid_input', { property: 'file', reason: 'type_mismatch' }],
    ['an SVG', async () => upload(svg, 'logo.svg', { type: 'image/svg+xml' }), 400, 'invalid_input', { property: 'file', reason: 'unsupported_type' }],
    ['a text file', async () => upload(Buffer.from('just text'), 'notes.txt', { type: 'text/plain' }), 400, 'invalid_input', { property: 'file', reason: 'unsupported_type' }],
    ['a truncated JPEG', async () => { const data = await jpeg(800, 600); return upload(data.subarray(0, data.length >> 1), 'cut.jpg'); }, 400, 'invalid_input', { property: 'file', reason: 'undecodable' }],
    ['a truncated GIF', async () => { const data = await animated('gif', 200, 200, 3); return upload(data.subarray(0, data.length - 40), 'cut.gif'); }, 400, 'invalid_input', { property: 'file', reason: 'undecodable' }],
    ['an 11 MB file', async () => upload(Buffer.concat([await jpeg(100, 100), Buffer.alloc(11_000_000, 7)]), 'big.jpg'), 422, 'account_limit_exceeded', { property: 'file' }],
    ['a 50-megapixel PNG', async () => upload(await hugePng(), 'huge.png'), 400, 'invalid_input', { property: 'file', reason: 'too_many_pixels' }],
    ['no file field', async () => upload(await jpeg(50, 50), 'a.jpg', { field: 'picture' }), 400, 'invalid_input', { property: 'file', reason: 'required' }],
  ] as const)('%s', async (_name, send, status, code, meta) => {
    const [filesBefore, countBefore] = [storedFiles(), await imageCount()];
    expectError(await send(), status, code, meta);
    expect(storedFiles()).toEqual(filesBefore);
    expect(await imageCount()).toBe(countBefore);
  });

  it('refuses a JSON body and a bodiless request with the envelope', async () => {
    expectError(await api(`${base}images`, { method: 'POST', token, body: { file: 'x' } }), 400, 'invalid_syntax', { header: 'Content-Type', expected: 'multipart/form-data' });
    expectError(await api(`${base}images`, { method: 'POST', token }), 400, 'invalid_input', { property: 'file', reason: 'required' });
  });

  it('refuses a body far over the limit before reading it all (the gateway answers), storing nothing', async () => {
    const filesBefore = storedFiles();
    const response = await upload(Buffer.alloc(13 * 1024 * 1024, 1), 'huge.jpg');
    // 413 from this branch's gateway; the gateway's enveloped 422 for every over-size body replaces it.
    expect([413, 422]).toContain(response.status);
    expect(storedFiles()).toEqual(filesBefore);
  });
});

describe('Idempotency-Key on uploads', () => {
  it('replays a retried upload (new boundary, same file) and refuses another file under the key', async () => {
    const data = await jpeg(320, 240);
    const headers = { 'Idempotency-Key': 'upload-retry-1' };
    const first = await upload(data, 'retry.jpg', { headers });
    expect(first.status, first.text).toBe(201);
    const count = await imageCount();
    const retry = await upload(data, 'retry.jpg', { headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.image_id).toBe(first.body.image_id);
    expect(await imageCount()).toBe(count);
    expectError(await upload(await jpeg(321, 240), 'other.jpg', { headers }), 409, 'in_use', { parameter: 'Idempotency-Key' });
  });
});

describe('products with images', () => {
  it('renders images inline in image_ids order, with a working 300 × 300 link_square, and costs no extra read', async () => {
    const ids = [images.png.image_id, images.jpeg.image_id, images.gif.image_id];
    const created = await api(`${base}products`, { method: 'POST', token, body: { product_id: 'pictured', name: 'Pictured', type: 'physical', prices: [{ currency: 'USD', price: 5 }], image_ids: ids } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.images.map((image: any) => image.image_id)).toEqual(ids);
    expect(created.body.images[1]).toEqual(images.jpeg);
    for (const image of created.body.images) expect(await fetchPicture(image.link_square)).toMatchObject({ status: 200, width: 300, height: 300 });
    const plain = await api(`${base}products`, { method: 'POST', token, body: { product_id: 'plain', name: 'Plain', type: 'physical', prices: [{ currency: 'USD', price: 5 }] } });
    expect(plain.body.images).toEqual([]);
    // expand=images is accepted and changes nothing; show reaches into the array.
    expect((await api(`${base}products/pictured?expand=images`, { token })).body.images).toEqual(created.body.images);
    expect((await api(`${base}products/pictured?show=images.link_square`, { token })).body.images).toEqual(ids.map((_, i) => ({ link_square: created.body.images[i].link_square })));
    const formatted = (await api(`${base}products/pictured?formatted=true`, { token })).body.images[0];
    expect(formatted.formatted).toEqual({ date_created: expect.any(String), date_modified: expect.any(String) });
    // A read of a product with images costs the DynamoDB calls of one without.
    const calls = async (path: string) => {
      const metrics = async () => (await api(`${runtime.url}/_local/metrics`)).body.dynamodb_calls_total as number;
      const before = await metrics();
      expect((await api(`${base}${path}`, { token })).status).toBe(200);
      return (await metrics()) - before;
    };
    // Background work (the due-work sweep, a settings cache refill) may land inside one read's
    // window: the fewest calls of a few reads is what the read itself costs.
    const fewest = async (path: string) => Math.min(await calls(path), await calls(path), await calls(path));
    expect(await fewest('products/pictured')).toBe(await fewest('products/plain'));
  });

  it('refuses unknown ids and ids of the other mode by position', async () => {
    const body = { name: 'Bad', type: 'digital', prices: [{ currency: 'USD', price: 1 }] };
    expectError(await api(`${base}products`, { method: 'POST', token, body: { ...body, image_ids: [images.png.image_id, 'NOPE12345678'] } }), 400, 'invalid_input', { property: 'image_ids[1]', reason: 'not_found' });
    const live = runtime.bootstrap.tokens.live_secret;
    expectError(await api(`${base}products`, { method: 'POST', token: live, body: { ...body, image_ids: [images.png.image_id] } }), 400, 'token_type_mismatch', { property: 'image_ids[0]' });
    expectError(await api(`${base}images/${images.png.image_id}`, { token: live }), 400, 'token_type_mismatch');
  });

  it('drops a deleted image from the products that list it; its files stay', async () => {
    expect((await api(`${base}images/${images.jpeg.image_id}`, { method: 'DELETE', token })).status).toBe(204);
    const product = await api(`${base}products/pictured`, { token });
    expect(product.body.images.map((image: any) => image.image_id)).toEqual([images.png.image_id, images.gif.image_id]);
    expectError(await api(`${base}images/${images.jpeg.image_id}`, { token }), 404, 'resource_not_found');
    expectError(await api(`${base}images/${images.jpeg.image_id}`, { method: 'DELETE', token }), 404, 'resource_not_found');
    expect((await fetch(images.jpeg.link_square)).status).toBe(200);
    expect((await api(`${base}images`, { token })).body.data.map((image: any) => image.image_id)).not.toContain(images.jpeg.image_id);
  });

  it('lets limited tokens see images only inside products', async () => {
    const account = runtime.bootstrap.account_id;
    const limited = (await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token })).body.token;
    const product = await api(`${base}products/pictured`, { token: limited });
    expect(product.status).toBe(200);
    expect(product.body.images).toHaveLength(2);
    expectError(await api(`${base}images`, { token: limited }), 403, 'insufficient_permissions');
    expectError(await api(`${base}images/${images.png.image_id}`, { token: limited }), 403, 'insufficient_permissions');
    expectError(await upload(await jpeg(10, 10), 'x.jpg', { auth: limited }), 403, 'insufficient_permissions');
  });
});

describe('image files', () => {
  it('answers a missing file with the 404 envelope and never serves a path outside the image files', async () => {
    const missing = await api(`${runtime.url}/images/${'0'.repeat(64)}/NOSUCHIMAGE1/square.png`);
    expectError(missing, 404, 'resource_not_found');
    const raw = (path: string) =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: runtime.port, path, method: 'GET' }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end();
      });
    expect(await raw('/images/../bootstrap.json')).toBe(404);
    expect(await raw('/images/%2e%2e/%2e%2e/bootstrap.json')).toBe(404);
    expect(await raw(`/images/${'0'.repeat(64)}/../../../local.key`)).toBe(404);
  });
});
