/**
 * What an uploaded file becomes (commerce.md §2.2), made once, in memory, before anything is
 * stored: the type from the bytes (never from the name), the checks that refuse it, and the
 * five files made with sharp (libvips).
 *
 * Order of the checks, cheapest first: magic bytes (SVG and everything else that is not JPEG,
 * PNG, GIF or WebP is refused here, before any decoder sees it); the name's extension and the
 * part's Content-Type must not name another image type than the bytes; the header (libvips
 * reads dimensions without decoding pixels) must show at most 40 megapixels; then every file
 * is made with `failOn: 'error'`, so a truncated or corrupt file fails while decoding and
 * nothing is stored. sharp's own `limitInputPixels` guards the decode as well.
 *
 * Animated GIF and WebP keep their animation in every file when all frames together stay
 * within the pixel limit (sharp resizes and crops each frame in one pipeline, at little more
 * than the cost of decoding them); a longer animation is stored from its first frame.
 * Originals are re-encoded in their own format, turned upright from their EXIF orientation,
 * without metadata (sharp writes none unless asked).
 */
import { createHash } from 'node:crypto';
import sharp, { type Metadata, type OutputInfo, type Sharp } from 'sharp';
import { InvalidImageError } from './errors';
import { MAX_IMAGE_PIXELS } from './limits';
import { IMAGE_FORMATS, SIZE_PIXELS, type ImageFormat, type ImageSize } from './images';

// Every upload is a new input: libvips' operation cache would only hold memory.
sharp.cache(false);

/** The file as uploaded. */
export interface ImageUpload {
  filename: string;
  /** The part's declared Content-Type. */
  contentType: string;
  data: Buffer;
}

/** An accepted upload: its facts and its five files. */
export interface ProcessedImage {
  filename: string;
  format: ImageFormat;
  sha256: string;
  /** Of the stored original (upright). */
  width: number;
  height: number;
  animated: boolean;
  files: Record<ImageSize, Buffer>;
}

/** Longest accepted file name. */
const MAX_FILENAME = 200;

/** What the first bytes of a file say it is: an accepted format, `svg`, or nothing known. */
export function sniffFormat(data: Buffer): ImageFormat | 'svg' | undefined {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString('latin1'))) return 'gif';
  if (data.length >= 12 && data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  const head = data.subarray(0, 1024).toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (head.startsWith('<') && head.includes('<svg')) return 'svg';
  return undefined;
}

/**
 * Whether a GIF's block structure runs complete up to its trailer. libvips' GIF loader shows a
 * cut-off GIF as far as it goes instead of failing, so a truncated GIF is found here.
 */
export function gifComplete(data: Buffer): boolean {
  if (data.length < 13) return false;
  const colourTable = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  let at = 13 + colourTable(data[10]!);
  /** Skips data sub-blocks (length-prefixed, ended by a zero length); -1 when the data ends first. */
  const skipSubBlocks = (from: number): number => {
    let position = from;
    while (position < data.length) {
      const size = data[position]!;
      position += 1 + size;
      if (size === 0) return position;
    }
    return -1;
  };
  while (at < data.length) {
    const block = data[at]!;
    if (block === 0x3b) return true;
    if (block === 0x21) at = skipSubBlocks(at + 2);
    else if (block === 0x2c) {
      if (at + 10 > data.length) return false;
      // Descriptor (10 bytes), local colour table, LZW minimum code size, image data.
      at = skipSubBlocks(at + 10 + colourTable(data[at + 9]!) + 1);
    } else return false;
    if (at < 0) return false;
  }
  return false;
}

/** Image types a file name's extension names (accepted ones by format; others by their own name). */
const EXTENSIONS: Record<string, string> = {
  jpg: 'jpeg', jpeg: 'jpeg', jpe: 'jpeg', jfif: 'jpeg', pjpeg: 'jpeg', pjp: 'jpeg',
  png: 'png', apng: 'png',
  gif: 'gif',
  webp: 'webp',
  svg: 'svg', svgz: 'svg',
  bmp: 'bmp', tif: 'tiff', tiff: 'tiff', avif: 'avif', heic: 'heic', heif: 'heif', ico: 'ico', jxl: 'jxl',
};

/** Image types a Content-Type names (aliases of the accepted ones folded in). */
function typeOfContentType(contentType: string): string | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (!type.startsWith('image/')) return undefined;
  const subtype = type.slice('image/'.length);
  const aliases: Record<string, string> = { jpg: 'jpeg', pjpeg: 'jpeg', 'x-png': 'png', apng: 'png', 'svg+xml': 'svg' };
  return aliases[subtype] ?? subtype;
}

const describe = (type: string) => (type === 'svg' ? 'SVG' : type === 'jpeg' ? 'JPEG' : type === 'webp' ? 'WebP' : type.toUpperCase());

/** The base name of an uploaded file name (no directory, no control characters), at most 200 characters. */
export function baseName(filename: string, format: ImageFormat): string {
  // eslint-disable-next-line no-control-regex
  const base = (filename.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (base.length > MAX_FILENAME) {
    throw new InvalidImageError('too_long', `The file name must be at most ${MAX_FILENAME} characters.`);
  }
  return base || `image.${IMAGE_FORMATS[format].ext}`;
}

/**
 * Checks an upload and makes its files. Every refusal is 400 invalid_input on `file` with a
 * reason: `unsupported_type` (not JPEG, PNG, GIF or WebP; SVG included), `type_mismatch` (the
 * name or the part's type names another image type), `too_many_pixels` (over 40 megapixels),
 * `undecodable` (truncated or corrupt), `too_long` (file name).
 */
export async function processImage(upload: ImageUpload): Promise<ProcessedImage> {
  const sniffed = sniffFormat(upload.data);
  if (sniffed === 'svg') throw new InvalidImageError('unsupported_type', 'SVG images are not accepted: upload a JPEG, PNG, GIF or WebP file.', { detected: 'svg' });
  if (!sniffed) throw new InvalidImageError('unsupported_type', 'The file is not a JPEG, PNG, GIF or WebP image.');
  const format = sniffed;

  const extension = /\.([A-Za-z0-9]+)$/.exec(upload.filename)?.[1]?.toLowerCase();
  const named = extension ? EXTENSIONS[extension] : undefined;
  if (named && named !== format) {
    throw new InvalidImageError('type_mismatch', `The file is a ${describe(format)} image, but its name says ${describe(named)} (.${extension}).`, { detected: IMAGE_FORMATS[format].contentType });
  }
  const declared = typeOfContentType(upload.contentType);
  if (declared && declared !== format) {
    throw new InvalidImageError('type_mismatch', `The file is a ${describe(format)} image, but it was sent as ${upload.contentType}.`, { detected: IMAGE_FORMATS[format].contentType });
  }
  const filename = baseName(upload.filename, format);

  // The header only: dimensions and frame count, no pixels decoded yet.
  let header: Metadata;
  try {
    header = await sharp(upload.data, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch {
    throw new InvalidImageError('undecodable', `The file cannot be read as a ${describe(format)} image.`);
  }
  if (header.format !== format || !header.width || !header.height) {
    throw new InvalidImageError('undecodable', `The file cannot be read as a ${describe(format)} image.`);
  }
  const framePixels = header.width * header.height;
  if (framePixels > MAX_IMAGE_PIXELS) {
    throw new InvalidImageError('too_many_pixels', `The image has ${(framePixels / 1e6).toFixed(1)} megapixels; at most ${MAX_IMAGE_PIXELS / 1e6} are accepted.`, {
      width: header.width,
      height: header.height,
    });
  }
  if (format === 'gif' && !gifComplete(upload.data)) {
    throw new InvalidImageError('undecodable', 'The file is not a complete GIF image (truncated or corrupt).');
  }
  const pages = header.pages ?? 1;
  // Every frame is decoded to animate the sizes: only while all frames fit the pixel budget.
  const animated = (format === 'gif' || format === 'webp') && pages > 1 && framePixels * pages <= MAX_IMAGE_PIXELS;

  const source = () =>
    sharp(upload.data, { animated, failOn: 'error', limitInputPixels: animated ? framePixels * pages : MAX_IMAGE_PIXELS }).autoOrient();
  const encode = (image: Sharp, quality: number) => {
    switch (format) {
      case 'jpeg':
        return image.jpeg({ quality });
      case 'png':
        return image.png();
      case 'gif':
        return image.gif();
      case 'webp':
        return image.webp({ quality });
    }
  };
  const bounded = (side: number) => source().resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
  let made: Array<{ data: Buffer; info: OutputInfo }>;
  try {
    made = await Promise.all([
      encode(source(), 90).toBuffer({ resolveWithObject: true }),
      encode(bounded(SIZE_PIXELS.small), 85).toBuffer({ resolveWithObject: true }),
      encode(bounded(SIZE_PIXELS.medium), 85).toBuffer({ resolveWithObject: true }),
      encode(bounded(SIZE_PIXELS.large), 85).toBuffer({ resolveWithObject: true }),
      encode(source().resize({ width: SIZE_PIXELS.square, height: SIZE_PIXELS.square, fit: 'cover', position: 'centre' }), 85).toBuffer({ resolveWithObject: true }),
    ]);
  } catch {
    throw new InvalidImageError('undecodable', `The file is not a complete ${describe(format)} image (truncated or corrupt).`);
  }
  const [original, small, medium, large, square] = made as [(typeof made)[number], (typeof made)[number], (typeof made)[number], (typeof made)[number], (typeof made)[number]];
  return {
    filename,
    format,
    sha256: createHash('sha256').update(upload.data).digest('hex'),
    width: original.info.width,
    height: original.info.pageHeight ?? original.info.height,
    animated,
    files: { original: original.data, small: small.data, medium: medium.data, large: large.data, square: square.data },
  };
}
