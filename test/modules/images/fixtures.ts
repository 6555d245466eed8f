/** Image files made with sharp for the tests (no binary fixtures in the repository). */
import sharp from 'sharp';

/** A JPEG of `width` × `height` with a gradient-ish fill (so it is not trivially compressible). */
export async function jpeg(width = 1200, height = 900): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .composite([{ input: Buffer.from(`<svg width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#e33"/></svg>`) }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** A PNG with transparency (half-transparent background, an opaque square). */
export async function transparentPng(width = 640, height = 480): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.25 } } })
    .composite([{ input: { create: { width: Math.round(width / 2), height: Math.round(height / 2), channels: 4, background: { r: 10, g: 200, b: 30, alpha: 1 } } }, left: Math.round(width / 4), top: Math.round(height / 4) }])
    .png()
    .toBuffer();
}

/** An animated GIF or WebP of `frames` frames. */
export async function animated(format: 'gif' | 'webp', width = 400, height = 200, frames = 3): Promise<Buffer> {
  const pages = await Promise.all(
    Array.from({ length: frames }, (_, i) => sharp({ create: { width, height, channels: 4, background: { r: (i * 80) % 255, g: 60, b: 200, alpha: 1 } } }).png().toBuffer()),
  );
  const joined = sharp(pages, { join: { animated: true } });
  const delay = Array.from({ length: frames }, () => 100);
  return format === 'gif' ? joined.gif({ delay, loop: 0 }).toBuffer() : joined.webp({ delay, loop: 0 }).toBuffer();
}

/** A still WebP. */
export async function webp(width = 1000, height = 1000): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 180, b: 20 } } }).webp({ quality: 80 }).toBuffer();
}

/** A PNG over 40 megapixels (8000 × 6250 = 50 MP) that compresses to about 1.5 MB. */
export async function hugePng(): Promise<Buffer> {
  return sharp({ create: { width: 8000, height: 6250, channels: 3, background: '#0a0' } }).png({ compressionLevel: 9 }).toBuffer();
}

/** An SVG document. */
export const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="red"/></svg>');

/** Pixel size of one frame of an image file. */
export async function frameSize(data: Buffer): Promise<{ width: number; height: number; pages: number; format: string | undefined }> {
  const meta = await sharp(data).metadata();
  return { width: meta.width!, height: meta.height!, pages: meta.pages ?? 1, format: meta.format };
}
