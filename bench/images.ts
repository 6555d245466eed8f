/**
 * Product images on the local runtime (commerce.md §2.2): what an upload costs, and what images
 * add to a product read. Prints:
 *   - p50 / p90 of POST /images with a 2 MB JPEG over HTTP (sized with sharp, five files stored);
 *   - p50 of GET /products/{id} for a product with 0 and with 20 images, and the DynamoDB calls
 *     each read costs (`/_local/metrics`): images are kept on the product, so the count is the same;
 *   - the same for a list page of 20 products with 20 images each.
 *
 *   npm run bench:images [-- --uploads 20 --reads 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { api, startRuntime } from '../test/support/runtime-process';

const { values } = parseArgs({ options: { uploads: { type: 'string', default: '20' }, reads: { type: 'string', default: '200' } } });
const uploads = Number(values.uploads);
const reads = Number(values.reads);

const dataDir = mkdtempSync(join(tmpdir(), 'cartwheel-bench-images-'));
const runtime = await startRuntime({ dataDir, env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000' } });
const base = runtime.bootstrap.api_url;
const token = runtime.bootstrap.tokens.test_secret;

const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * p))] ?? 0;

/** A JPEG of about `bytes` bytes: photo-like noise that does not compress away. */
async function jpegOfAbout(bytes: number): Promise<Buffer> {
  let side = 1200;
  for (;;) {
    const pixels = randomBytes(side * side * 3);
    const data = await sharp(pixels, { raw: { width: side, height: side, channels: 3 } }).blur(0.6).jpeg({ quality: 92 }).toBuffer();
    if (data.length >= bytes * 0.95) return data;
    side = Math.ceil(side * Math.sqrt(bytes / data.length) * 1.02);
  }
}

async function upload(data: Buffer, filename: string): Promise<{ ms: number; body: any }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: 'image/jpeg' }), filename);
  const started = performance.now();
  const response = await fetch(`${base}images`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  const body = await response.json();
  const ms = performance.now() - started;
  if (response.status !== 201) throw new Error(`upload: ${response.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

async function dynamoCalls(): Promise<number> {
  return (await api(`${runtime.url}/_local/metrics`)).body.dynamodb_calls_total;
}

/** p50 of GETs of each path (interleaved, so drift of a shared machine hits all alike), and the DynamoDB calls one GET costs. */
async function readCosts(paths: string[]): Promise<Array<{ p50: number; calls: number; bytes: number }>> {
  const samples = paths.map((): number[] => []);
  const facts: Array<{ calls: number; bytes: number }> = [];
  for (const path of paths) {
    for (let i = 0; i < 10; i++) await api(`${base}${path}`, { token }); // warm-up
    const before = await dynamoCalls();
    const one = await api(`${base}${path}`, { token });
    facts.push({ calls: (await dynamoCalls()) - before, bytes: one.text.length });
  }
  for (let i = 0; i < reads; i++) {
    // Rotate the order: whichever read follows the large list page pays for its garbage.
    for (let k = 0; k < paths.length; k++) {
      const index = (i + k) % paths.length;
      const path = paths[index]!;
      const started = performance.now();
      const response = await api(`${base}${path}`, { token });
      samples[index]!.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    }
  }
  return facts.map((fact, index) => ({ ...fact, p50: percentile(samples[index]!, 0.5) }));
}

try {
  const photo = await jpegOfAbout(2 * 1024 * 1024);
  const { width, height } = await sharp(photo).metadata();
  await upload(photo, 'warm-up.jpg');
  const samples: number[] = [];
  const callsBefore = await dynamoCalls();
  for (let i = 0; i < uploads; i++) samples.push((await upload(photo, `photo-${i}.jpg`)).ms);
  // Each /_local/metrics read is not a DynamoDB call, so the difference is the uploads' own.
  const callsPerUpload = ((await dynamoCalls()) - callsBefore) / uploads;

  const small = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#468' } }).jpeg().toBuffer();
  const imageIds: string[] = [];
  for (let i = 0; i < 20; i++) imageIds.push((await upload(small, `small-${i}.jpg`)).body.image_id);
  const product = (id: string, ids: string[]) =>
    api(`${base}products`, { method: 'POST', token, body: { product_id: id, name: id, type: 'physical', prices: [{ currency: 'USD', price: 9 }], image_ids: ids } });
  await product('bench-no-images', []);
  await product('bench-20-images', imageIds);
  for (let i = 0; i < 18; i++) await product(`bench-list-${i}`, imageIds);
  const [without, with20, page] = await readCosts(['products/bench-no-images', 'products/bench-20-images', 'products?limit=20']) as [Awaited<ReturnType<typeof readCosts>>[number], Awaited<ReturnType<typeof readCosts>>[number], Awaited<ReturnType<typeof readCosts>>[number]];

  console.log('Product images on the local runtime');
  console.log(`  POST /images, ${(photo.length / 1024 / 1024).toFixed(2)} MB JPEG (${width}x${height}), ${uploads} sequential uploads:`);
  console.log(`    p50 ${percentile(samples, 0.5).toFixed(0)} ms, p90 ${percentile(samples, 0.9).toFixed(0)} ms; DynamoDB calls per upload: ${callsPerUpload.toFixed(1)}`);
  console.log(`  GET /products/{id} (${reads} reads each):`);
  console.log(`    0 images:  p50 ${without.p50.toFixed(2)} ms, ${without.calls} DynamoDB calls, ${without.bytes} bytes`);
  console.log(`    20 images: p50 ${with20.p50.toFixed(2)} ms, ${with20.calls} DynamoDB calls, ${with20.bytes} bytes`);
  console.log(`  GET /products?limit=20 (20 products, 19 of them with 20 images): p50 ${page.p50.toFixed(2)} ms, ${page.calls} DynamoDB calls, ${page.bytes} bytes`);
} finally {
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
