/**
 * What an upload becomes (commerce.md §2.2): the type from the bytes, the five files at their
 * sizes, animation kept, and every refusal (400 invalid_input on `file` with a reason) found
 * before anything could be stored.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { gifComplete, processImage, sniffFormat } from '../../../shared/modules/images/image-processing';
import { animated, frameSize, hugePng, jpeg, svg, transparentPng, webp } from './fixtures';
import { refusal } from '../../support/refusal';

const upload = (data: Buffer, filename: string, contentType = 'application/octet-stream') => ({ data, filename, contentType });

describe('type sniffing', () => {
  it('knows the four formats and SVG by their bytes', async () => {
    expect(sniffFormat(await jpeg(10, 10))).toBe('jpeg');
    expect(sniffFormat(await transparentPng(10, 10))).toBe('png');
    expect(sniffFormat(await animated('gif', 10, 10, 2))).toBe('gif');
    expect(sniffFormat(await webp(10, 10))).toBe('webp');
    expect(sniffFormat(svg)).toBe('svg');
    expect(sniffFormat(Buffer.from('\uFEFF  <svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('svg');
    expect(sniffFormat(Buffer.from('hello'))).toBeUndefined();
    expect(sniffFormat(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('sizes', () => {
  it('makes a JPEG original and four sizes: longest side 100/300/800, a 300 × 300 centre crop', async () => {
    const made = await processImage(upload(await jpeg(1200, 900), 'C:\\photos\\holiday.JPG', 'image/jpeg'));
    expect(made).toMatchObject({ format: 'jpeg', width: 1200, height: 900, animated: false, filename: 'holiday.JPG' });
    expect(made.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await frameSize(made.files.original)).toMatchObject({ width: 1200, height: 900, format: 'jpeg' });
    expect(await frameSize(made.files.small)).toMatchObject({ width: 100, height: 75 });
    expect(await frameSize(made.files.medium)).toMatchObject({ width: 300, height: 225 });
    expect(await frameSize(made.files.large)).toMatchObject({ width: 800, height: 600 });
    expect(await frameSize(made.files.square)).toMatchObject({ width: 300, height: 300 });
  });

  it('never enlarges a small picture (but the square is always 300 × 300)', async () => {
    const made = await processImage(upload(await jpeg(120, 60), 'tiny.jpg'));
    expect(await frameSize(made.files.small)).toMatchObject({ width: 100, height: 50 });
    expect(await frameSize(made.files.medium)).toMatchObject({ width: 120, height: 60 });
    expect(await frameSize(made.files.large)).toMatchObject({ width: 120, height: 60 });
    expect(await frameSize(made.files.square)).toMatchObject({ width: 300, height: 300 });
  });

  it('keeps PNG transparency in every size', async () => {
    const made = await processImage(upload(await transparentPng(640, 480), 'logo.png', 'image/png'));
    expect(made.format).toBe('png');
    for (const file of Object.values(made.files)) {
      const meta = await sharp(file).metadata();
      expect(meta.format).toBe('png');
      expect(meta.hasAlpha).toBe(true);
    }
    const corner = await sharp(made.files.small).raw().toBuffer({ resolveWithObject: true });
    expect(corner.data[3]).toBeLessThan(255);
  });

  it('keeps the animation of a GIF and a WebP in every size', async () => {
    for (const format of ['gif', 'webp'] as const) {
      const made = await processImage(upload(await animated(format, 400, 200, 3), `spin.${format}`));
      expect(made).toMatchObject({ format, animated: true, width: 400, height: 200 });
      expect(await frameSize(made.files.original)).toMatchObject({ width: 400, height: 200, pages: 3 });
      expect(await frameSize(made.files.small)).toMatchObject({ width: 100, height: 50, pages: 3 });
      expect(await frameSize(made.files.large)).toMatchObject({ width: 400, height: 200, pages: 3 });
      expect(await frameSize(made.files.square)).toMatchObject({ width: 300, height: 300, pages: 3 });
    }
  });

  it('stores an animation whose frames together pass 40 megapixels from its first frame', async () => {
    // 2000 × 1000 × 21 frames = 42 megapixels of frames.
    const made = await processImage(upload(await animated('gif', 2000, 1000, 21), 'long.gif'));
    expect(made.animated).toBe(false);
    expect(await frameSize(made.files.original)).toMatchObject({ width: 2000, height: 1000, pages: 1 });
    expect(await frameSize(made.files.small)).toMatchObject({ width: 100, height: 50, pages: 1 });
  }, 60_000);

  it('turns a JPEG upright from its EXIF orientation and strips the metadata', async () => {
    const sideways = await sharp(await jpeg(400, 200)).withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'Someone' } } }).jpeg().toBuffer();
    expect((await sharp(sideways).metadata()).exif).toBeDefined();
    const made = await processImage(upload(sideways, 'phone.jpg'));
    expect(made).toMatchObject({ width: 200, height: 400 });
    const meta = await sharp(made.files.original).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
  });

  it('names a file without a name after its format', async () => {
    expect((await processImage(upload(await webp(50, 50), ''))).filename).toBe('image.webp');
    expect((await processImage(upload(await webp(50, 50), '../../x/y/shot.webp'))).filename).toBe('shot.webp');
  });
});

describe('refusals (400 invalid_input on file)', () => {
  it('refuses SVG, saying so', async () => {
    const error = await refusal(processImage(upload(svg, 'logo.svg', 'image/svg+xml')));
    expect(error).toMatchObject({ status: 400, code: 'invalid_input', meta: { property: 'file', reason: 'unsupported_type' } });
    expect(error.message).toMatch(/SVG/);
  });

  it('refuses what is not an image at all', async () => {
    const error = await refusal(processImage(upload(Buffer.from('%PDF-1.7\n...'), 'doc.pdf', 'application/pdf')));
    expect(error.meta).toMatchObject({ property: 'file', reason: 'unsupported_type' });
  });

  it('refuses a JPEG renamed .png, and a JPEG sent as image/png', async () => {
    const photo = await jpeg(100, 100);
    const renamed = await refusal(processImage(upload(photo, 'photo.png')));
    expect(renamed.meta).toMatchObject({ property: 'file', reason: 'type_mismatch', detected: 'image/jpeg' });
    expect(renamed.message).toMatch(/JPEG.*PNG/);
    const mislabelled = await refusal(processImage(upload(photo, 'photo', 'image/png')));
    expect(mislabelled.meta).toMatchObject({ reason: 'type_mismatch' });
    // Aliases and names that name no image type are fine.
    await expect(processImage(upload(photo, 'photo.jpeg', 'image/jpg'))).resolves.toMatchObject({ format: 'jpeg' });
    await expect(processImage(upload(photo, 'photo.upload', 'application/octet-stream'))).resolves.toMatchObject({ format: 'jpeg' });
  });

  it('refuses truncated JPEG, PNG, GIF and WebP files', async () => {
    for (const data of [await jpeg(800, 600), await transparentPng(800, 600), await animated('gif', 300, 300, 2), await webp(800, 800)]) {
      const cut = data.subarray(0, Math.floor(data.length * 0.6));
      const error = await refusal(processImage(upload(cut, 'cut')));
      expect(error.meta).toMatchObject({ property: 'file', reason: 'undecodable' });
    }
  });

  it('refuses more than 40 megapixels from the header, before decoding', async () => {
    const huge = await hugePng();
    const started = performance.now();
    const error = await refusal(processImage(upload(huge, 'huge.png')));
    expect(error.meta).toMatchObject({ property: 'file', reason: 'too_many_pixels', width: 8000, height: 6250 });
    // Decoding 50 megapixels takes far longer than reading a header.
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('refuses a file name over 200 characters', async () => {
    const error = await refusal(processImage(upload(await jpeg(20, 20), `${'a'.repeat(197)}.jpg`)));
    expect(error.meta).toMatchObject({ property: 'file', reason: 'too_long' });
  });
});

describe('gifComplete', () => {
  it('accepts whole GIFs (still and animated) and refuses every cut before the trailer', async () => {
    for (const data of [await animated('gif', 300, 200, 4), await sharp(await jpeg(64, 64)).gif().toBuffer()]) {
      expect(gifComplete(data)).toBe(true);
      for (let length = 0; length < data.length; length += Math.max(1, Math.floor(data.length / 97))) expect(gifComplete(data.subarray(0, length)), `cut at ${length}`).toBe(false);
      expect(gifComplete(data.subarray(0, data.length - 1))).toBe(false);
    }
  });
});
