/**
 * The image operations against the DynamoDB emulator (commerce.md §2.2): an upload stores five
 * files and a listed record, a refusal stores nothing, an upload cut short at any step leaves
 * nothing visible and is cleaned up by the sweep (or carried on by a retry with the same
 * Idempotency-Key), products list images by id with their facts inline, and a delete drops the
 * image from every product, then removes its files after 90 days.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { productImagesChange } from '../../../shared/modules/images/product-images';
import { deleteImage, DELETED_FILES_KEPT_MS, imageUnlinkWork, PRODUCTS_PER_REQUEST } from '../../../shared/modules/images/delete-image';
import { findImage } from '../../../shared/modules/images/image-store';
import { imageObjectKeys, type ImageRecord } from '../../../shared/modules/images/images';
import { getImage, listImages } from '../../../shared/modules/images/read-images';
import { imageFilesWork } from '../../../shared/modules/images/remove-image-files';
import { PENDING_UPLOAD_GRACE_MS, uploadImage } from '../../../shared/modules/images/upload-image';
import { createProduct, productDeclaration, productFields, saveProduct, type ProductRecord } from '../../../shared/modules/catalog/products';
import { productCreate, productUpdate } from '../../../shared/modules/catalog/product-schemas';
import { parseInput } from '../../../shared/rest/validate';
import { findDue } from '../../../shared/work/due-work-store';
import { sweepDue } from '../../../shared/work/runner';
import type { RenderContext } from '../../../shared/rest/render-context';
import { db, table } from '../../../shared/store/client';
import { findRecord, recordKey } from '../../../shared/store/records';
import { Harness, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { paymentSettings } from '../pricing/fixtures';
import { testPlatform, type TestPlatform } from '../../support/platform';
import { jpeg, svg, transparentPng } from './fixtures';
import { ManualClock } from '../../../infra/local/manual-clock';
import { refusal } from '../../support/refusal';
import { readConfig, siteOf } from '../../../shared/core/config';

const harness = new Harness();
const scope = { accountId: 'ACCTIMG', mode: 'test' as const };
const live = { accountId: 'ACCTIMG', mode: 'live' as const };
const T0 = Date.parse('2026-11-22T08:00:00Z');
const clock = new ManualClock(T0);

useEmulatedTable(harness);

const context = {
  baseUrl: 'http://localhost:4000/api/v1/',
  site: siteOf(readConfig({})),
  url: (path: string) => `http://localhost:4000/api/v1/${path}`,
  date: (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null),
  currency: 'USD',
  payment: paymentSettings(),
} as unknown as RenderContext;

const upload = async (data?: Buffer, filename = 'photo.jpg') => ({ data: data ?? (await jpeg(640, 480)), filename, contentType: 'application/octet-stream' });

/** The stored object keys under images/ of a fake platform. */
const storedKeys = (platform: TestPlatform) => [...platform.stored.keys()].filter((key) => key.startsWith('apps/images/')).sort();
const keysOf = (image: ImageRecord) => imageObjectKeys(image).map((key) => `apps/${key}`).sort();

async function newProduct(productId: string, imageIds?: string[], at = scope): Promise<ProductRecord> {
  const body = parseInput(productCreate, { product_id: productId, name: productId, type: 'digital', prices: [{ currency: 'USD', price: 1 }], ...(imageIds ? { image_ids: imageIds } : {}) });
  return createProduct(at, body, paymentSettings(), clock);
}

async function updateImages(productId: string, imageIds: unknown): Promise<ProductRecord> {
  const current = (await findRecord(productDeclaration, scope, productId))!;
  const body = parseInput(productUpdate, { image_ids: imageIds });
  return saveProduct(current, productFields(body, current, paymentSettings(), scope.mode), current.deleted, clock, await productImagesChange(scope, productId, body, current));
}

const productImages = async (productId: string) => ((await findRecord(productDeclaration, scope, productId))?.image_ids ?? []);

describe('upload', () => {
  it('stores five files, then a ready, listed record', async () => {
    const platform = testPlatform({ clock });
    const image = await uploadImage(platform, { scope, upload: await upload() });
    expect(image).toMatchObject({ state: 'ready', format: 'jpeg', width: 640, height: 480, filename: 'photo.jpg' });
    expect(image.image_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{12}$/);
    expect(storedKeys(platform)).toEqual(keysOf(image));
    expect(image.bytes).toBe(platform.stored.get(`apps/images/${image.sha256}/${image.image_id}/original.jpg`)!.length);
    expect(await getImage(scope, image.image_id)).toMatchObject({ image_id: image.image_id, state: 'ready' });
    expect((await listImages(scope, { offset: 0, limit: 100, sortBy: 'date_created', descending: true })).items.map((i) => i.image_id)).toContain(image.image_id);
    // No clean-up is left due for a finished upload.
    expect(await findDue('image-files', scope, image.image_id)).toBeUndefined();
  });

  it('stores nothing when it refuses a file', async () => {
    const platform = testPlatform({ clock });
    const before = (await listImages(scope, { offset: 0, limit: 100, sortBy: 'date_created', descending: true })).total;
    await expect(uploadImage(platform, { scope, upload: { data: svg, filename: 'x.svg', contentType: 'image/svg+xml' } })).rejects.toMatchObject({ status: 400 });
    await expect(uploadImage(platform, { scope, upload: await upload(await jpeg(100, 100), 'renamed.png') })).rejects.toMatchObject({ meta: { reason: 'type_mismatch' } });
    expect(storedKeys(platform)).toEqual([]);
    expect((await listImages(scope, { offset: 0, limit: 100, sortBy: 'date_created', descending: true })).total).toBe(before);
  });

  it('lists newest first, by file name, and searched by name', async () => {
    const platform = testPlatform({ clock });
    const at = { accountId: 'ACCTLIST', mode: 'test' as const };
    const names = ['b.png', 'a.png', 'c.png'];
    for (const name of names) await uploadImage(platform, { scope: at, upload: { data: await transparentPng(20, 20), filename: name, contentType: 'image/png' } });
    const read = (query: Partial<Parameters<typeof listImages>[1]>) => listImages(at, { offset: 0, limit: 100, sortBy: 'date_created', descending: true, ...query });
    expect((await read({})).items.map((i) => i.filename)).toEqual(['c.png', 'a.png', 'b.png']);
    expect((await read({ descending: false })).items.map((i) => i.filename)).toEqual(names);
    expect((await read({ sortBy: 'filename', descending: false })).items.map((i) => i.filename)).toEqual(['a.png', 'b.png', 'c.png']);
    expect(await read({ search: 'a.' })).toMatchObject({ total: 1, items: [{ filename: 'a.png' }] });
    expect(await read({ offset: 1, limit: 1 })).toMatchObject({ total: 3, items: [{ filename: 'a.png' }] });
  });

  it('leaves nothing visible when the process dies while storing files, and the sweep removes what it left an hour later', async () => {
    const platform = testPlatform({ clock });
    let puts = 0;
    const dying = testPlatform({
      clock,
      objects: {
        ...platform.objects,
        put: async (bucket, key, body) => {
          if (++puts > 2) throw new Error('killed');
          await platform.objects.put(bucket, key, body);
        },
      },
    });
    const seed = 'token-hash:key-1';
    await expect(uploadImage(dying, { scope, upload: await upload(), idSeed: seed })).rejects.toThrow('killed');
    const stranded = storedKeys(platform);
    expect(stranded).toHaveLength(2);
    const [, , , imageId] = stranded[0]!.split('/');
    const pending = (await findImage(scope, imageId!))!;
    expect(pending.state).toBe('pending');
    await expect(getImage(scope, imageId!)).rejects.toMatchObject({ status: 404 });
    expect((await listImages(scope, { offset: 0, limit: 100, sortBy: 'date_created', descending: true })).items.map((i) => i.image_id)).not.toContain(imageId);
    // Not before the grace period...
    await sweepDue(platform, [imageFilesWork], clock.nowMs() + PENDING_UPLOAD_GRACE_MS - 1000);
    expect(storedKeys(platform)).toHaveLength(2);
    // ...then the files and the record go.
    await sweepDue(platform, [imageFilesWork], clock.nowMs() + PENDING_UPLOAD_GRACE_MS + 1000);
    expect(storedKeys(platform)).toEqual([]);
    expect(await findImage(scope, imageId!)).toBeUndefined();
    expect(await findDue('image-files', scope, imageId!)).toBeUndefined();
  });

  it('carries on a crashed upload when it is retried with the same Idempotency-Key, and answers a finished one as it is', async () => {
    const platform = testPlatform({ clock });
    const file = await upload();
    const seed = 'token-hash:key-2';
    const dying = testPlatform({ clock, objects: { ...platform.objects, put: () => Promise.reject(new Error('killed')) } });
    await expect(uploadImage(dying, { scope, upload: file, idSeed: seed })).rejects.toThrow('killed');
    const retried = await uploadImage(platform, { scope, upload: file, idSeed: seed });
    expect(retried.state).toBe('ready');
    expect(storedKeys(platform)).toEqual(keysOf(retried));
    expect(await findDue('image-files', scope, retried.image_id)).toBeUndefined();
    // Once more (the answer was lost): the same image, no second record.
    const again = await uploadImage(platform, { scope, upload: file, idSeed: seed });
    expect(again.image_id).toBe(retried.image_id);
    expect((await listImages(scope, { offset: 0, limit: 100, sortBy: 'date_created', descending: true })).items.filter((i) => i.image_id === retried.image_id)).toHaveLength(1);
    // Another file under the same key is refused.
    await expect(uploadImage(platform, { scope, upload: await upload(await jpeg(50, 50)), idSeed: seed })).rejects.toMatchObject({ status: 409, code: 'in_use' });
  });

  it('does not revive an upload the sweep abandoned', async () => {
    const platform = testPlatform({ clock });
    const file = await upload();
    const seed = 'token-hash:key-3';
    const dying = testPlatform({ clock, objects: { ...platform.objects, put: () => Promise.reject(new Error('killed')) } });
    await expect(uploadImage(dying, { scope, upload: file, idSeed: seed })).rejects.toThrow('killed');
    await sweepDue(platform, [imageFilesWork], clock.nowMs() + PENDING_UPLOAD_GRACE_MS + 1000);
    // The record is gone with its files: a retry starts afresh under the same id.
    const fresh = await uploadImage(platform, { scope, upload: file, idSeed: seed });
    expect(fresh.state).toBe('ready');
    expect(storedKeys(platform)).toEqual(keysOf(fresh));
  });
});

describe('products listing images', () => {
  it('keeps the images in order with their facts, so rendering reads nothing', async () => {
    const platform = testPlatform({ clock });
    const [first, second] = [await uploadImage(platform, { scope, upload: await upload() }), await uploadImage(platform, { scope, upload: await upload(await transparentPng(), 'logo.png') })];
    const product = await newProduct('with-images', [second!.image_id, first!.image_id]);
    const json = productDeclaration.toJson(product, context);
    expect((json.images as Array<Record<string, unknown>>).map((image) => image.image_id)).toEqual([second!.image_id, first!.image_id]);
    expect((json.images as Array<Record<string, unknown>>)[1]).toMatchObject({
      object: 'image',
      url: `http://localhost:4000/api/v1/images/${first!.image_id}`,
      content_type: 'image/jpeg',
      width: 640,
      link_square: `http://localhost:4000/images/${first!.sha256}/${first!.image_id}/square.jpg`,
      test: true,
    });
    expect((await findImage(scope, first!.image_id))!.product_ids).toEqual(new Set(['with-images']));
    expect(productDeclaration.toJson(await newProduct('without-images'), context).images).toEqual([]);
  });

  it('refuses unknown ids, ids of the other mode, duplicates and more than 20 (nothing written)', async () => {
    const platform = testPlatform({ clock });
    const image = await uploadImage(platform, { scope, upload: await upload() });
    const liveImage = await uploadImage(platform, { scope: live, upload: await upload() });
    expect(await refusal(newProduct('p-unknown', [image.image_id, 'NOSUCHIMAGE1']))).toMatchObject({ status: 400, code: 'invalid_input', meta: { property: 'image_ids[1]', reason: 'not_found' } });
    expect(await refusal(newProduct('p-mode', [liveImage.image_id]))).toMatchObject({ status: 400, code: 'token_type_mismatch', meta: { property: 'image_ids[0]' } });
    expect(await refusal(newProduct('p-dup', [image.image_id, image.image_id]))).toMatchObject({ meta: { property: 'image_ids[1]', reason: 'conflict' } });
    expect(await refusal(newProduct('p-many', Array.from({ length: 21 }, (_, i) => `ID${i}`)))).toMatchObject({ meta: { property: 'image_ids', reason: 'too_long' } });
    expect(await refusal(newProduct('p-type', [7 as unknown as string]))).toMatchObject({ meta: { property: 'image_ids[0]', reason: 'invalid' } });
    expect(await findRecord(productDeclaration, scope, 'p-unknown')).toBeUndefined();
    expect((await findImage(scope, image.image_id))!.product_ids).toBeUndefined();
  });

  it('replaces the list on update, null and [] clear it, and the images’ product sets follow', async () => {
    const platform = testPlatform({ clock });
    const [a, b] = [await uploadImage(platform, { scope, upload: await upload() }), await uploadImage(platform, { scope, upload: await upload() })];
    await newProduct('p-update', [a!.image_id]);
    await updateImages('p-update', [b!.image_id, a!.image_id]);
    expect(await productImages('p-update')).toEqual([b!.image_id, a!.image_id]);
    await updateImages('p-update', [b!.image_id]);
    expect((await findImage(scope, a!.image_id))!.product_ids).toBeUndefined();
    expect((await findImage(scope, b!.image_id))!.product_ids).toEqual(new Set(['p-update']));
    await updateImages('p-update', null);
    expect(await productImages('p-update')).toEqual([]);
    await updateImages('p-update', [a!.image_id]);
    await updateImages('p-update', []);
    expect(await productImages('p-update')).toEqual([]);
    expect((await findImage(scope, a!.image_id))!.product_ids).toBeUndefined();
  });
});

describe('delete', () => {
  it('drops the image from every product before answering, keeps the files 90 days, then removes them and the record', async () => {
    const platform = testPlatform({ clock });
    const [doomed, kept] = [await uploadImage(platform, { scope, upload: await upload() }), await uploadImage(platform, { scope, upload: await upload() })];
    await newProduct('d-one', [kept!.image_id, doomed!.image_id]);
    await newProduct('d-two', [doomed!.image_id]);
    const removed = await findRecord(productDeclaration, scope, 'd-two');
    await saveProduct(removed!, removed!, true, clock); // a soft-deleted product drops it too
    await deleteImage(platform, scope, doomed!.image_id);
    expect(await productImages('d-one')).toEqual([kept!.image_id]);
    expect(await productImages('d-two')).toEqual([]);
    await expect(getImage(scope, doomed!.image_id)).rejects.toMatchObject({ status: 404 });
    await expect(deleteImage(platform, scope, doomed!.image_id)).rejects.toMatchObject({ status: 404 });
    await expect(refusal(newProduct('d-three', [doomed!.image_id]))).resolves.toMatchObject({ meta: { property: 'image_ids[0]', reason: 'not_found' } });
    expect(await findDue('image-unlink', scope, doomed!.image_id)).toBeUndefined();
    const files = await findDue('image-files', scope, doomed!.image_id);
    expect(files?.next_ms).toBe(clock.nowMs() + DELETED_FILES_KEPT_MS);
    // Its record outlives the 30-day keep of due work: 90 days plus that.
    const filesItem = (await db().send(new GetCommand({ TableName: table(), Key: recordKey({ collection: 'due', scope: 'mode' }, scope, files!.due_id) }))).Item!;
    expect((filesItem.ttl as number) * 1000).toBeGreaterThan(clock.nowMs() + DELETED_FILES_KEPT_MS);
    // The files stay through the 90 days.
    await sweepDue(platform, [imageFilesWork], clock.nowMs() + DELETED_FILES_KEPT_MS - 60_000);
    expect(storedKeys(platform)).toEqual([...keysOf(doomed!), ...keysOf(kept!)].sort());
    await sweepDue(platform, [imageFilesWork], clock.nowMs() + DELETED_FILES_KEPT_MS + 60_000);
    expect(storedKeys(platform)).toEqual(keysOf(kept!));
    expect(await findImage(scope, doomed!.image_id)).toBeUndefined();
  });

  it('answers 400 token_type_mismatch for an image of the other mode', async () => {
    const platform = testPlatform({ clock });
    const liveImage = await uploadImage(platform, { scope: live, upload: await upload() });
    await expect(deleteImage(platform, scope, liveImage.image_id)).rejects.toMatchObject({ status: 400, code: 'token_type_mismatch' });
    await expect(getImage(scope, liveImage.image_id)).rejects.toMatchObject({ status: 400, code: 'token_type_mismatch' });
  });

  it('leaves a long product list to the sweep, and so an unlinking that failed', async () => {
    clock.set(clock.nowMs() + 1000);
    const platform = testPlatform({ clock });
    const image = await uploadImage(platform, { scope, upload: await upload() });
    const count = PRODUCTS_PER_REQUEST + 5;
    for (let i = 0; i < count; i++) await newProduct(`many-${i}`, [image.image_id]);
    await deleteImage(platform, scope, image.image_id);
    const listed = async () => {
      let n = 0;
      for (let i = 0; i < count; i++) if ((await productImages(`many-${i}`)).length) n++;
      return n;
    };
    expect(await listed()).toBe(5);
    expect(await findDue('image-unlink', scope, image.image_id)).toMatchObject({ claim_id: null });
    await sweepDue(platform, [imageUnlinkWork], clock.nowMs());
    expect(await listed()).toBe(0);
    expect(await findDue('image-unlink', scope, image.image_id)).toBeUndefined();
    expect(await findDue('image-files', scope, image.image_id)).toBeDefined();

    // A deleting request whose unlinking fails (or whose process dies): the sweep finishes it later.
    const second = await uploadImage(platform, { scope, upload: await upload() });
    await newProduct('orphaned-by-crash', [second.image_id]);
    const crashing = testPlatform({ clock: { nowMs: () => clock.nowMs() } });
    const original = imageUnlinkWork.run;
    imageUnlinkWork.run = () => Promise.reject(new Error('killed'));
    try {
      await deleteImage(crashing, scope, second.image_id);
    } finally {
      imageUnlinkWork.run = original;
    }
    expect(await productImages('orphaned-by-crash')).toEqual([second.image_id]);
    await sweepDue(platform, [imageUnlinkWork], clock.nowMs() + 10 * 60_000);
    expect(await productImages('orphaned-by-crash')).toEqual([]);
  });
});
