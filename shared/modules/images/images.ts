/**
 * Images (commerce.md §2.2): the stored record, its declaration and its JSON. An image is
 * written once and never changes; what a product shows of it (`ImageFacts`) is copied onto the
 * product when the product lists it, so rendering `product.images` reads nothing more (the
 * expand engine's one BatchGetItem per depth level stays one).
 *
 * The files live in the apps bucket under `images/<sha256 of the original>/<image_id>/<size>.<ext>`:
 * the content hash makes each path immutable (a retried upload with other bytes gets other
 * paths, never overwrites), the image id keeps two uploads of the same bytes apart so deleting
 * one never removes the other's files.
 */
import { declareResource } from '../../rest/declarations';
import type { RenderContext } from '../../rest/render-context';

/** The formats an image may have, by the name sharp and the files use. */
export const IMAGE_FORMATS = {
  jpeg: { contentType: 'image/jpeg', ext: 'jpg' },
  png: { contentType: 'image/png', ext: 'png' },
  gif: { contentType: 'image/gif', ext: 'gif' },
  webp: { contentType: 'image/webp', ext: 'webp' },
} as const;

/** An accepted image format. */
export type ImageFormat = keyof typeof IMAGE_FORMATS;

/** The files of an image: the original (metadata stripped) and four made at upload. */
export const IMAGE_SIZES = ['original', 'small', 'medium', 'large', 'square'] as const;

/** One of the files of an image. */
export type ImageSize = (typeof IMAGE_SIZES)[number];

/** Longest side of the bounded sizes (never enlarged), and the side of the centre-cropped square. */
export const SIZE_PIXELS = { small: 100, medium: 300, large: 800, square: 300 } as const;

/** The immutable facts of an image: its JSON, and what a product that lists it keeps. */
export interface ImageFacts {
  image_id: string;
  /** The uploaded file's base name (at most 200 characters). */
  filename: string;
  format: ImageFormat;
  /** Of the stored original. */
  bytes: number;
  width: number;
  height: number;
  /** Hex SHA-256 of the uploaded bytes: part of every file's path. */
  sha256: string;
  /** Whether the sized files keep an animation (animated GIF and WebP). */
  animated: boolean;
  created_ms: number;
}

/**
 * Where an image is in its life, all but `ready` invisible to the API:
 * - `pending`: its files are being stored; if the upload never finishes, the sweep abandons it;
 * - `ready`: listed, readable, listable by products;
 * - `deleted`: products drop it, then its files are kept 90 days and removed with the record;
 * - `abandoned`: an upload that never finished, its files being removed with the record.
 */
export type ImageState = 'pending' | 'ready' | 'deleted' | 'abandoned';

/** A stored image. */
export interface ImageRecord extends ImageFacts {
  account_id: string;
  mode: 'live' | 'test';
  state: ImageState;
  /** Products that list it (a string set, absent when none): kept in the products' own write transactions. */
  product_ids?: Set<string>;
  modified_ms: number;
  /** Its place in the creation-order listing, which holds it while it is ready (pending and deleted images are not listed). */
  seq: number;
}

/** The object key of one file of an image in the apps bucket. */
export function imageObjectKey(image: Pick<ImageFacts, 'sha256' | 'image_id' | 'format'>, size: ImageSize): string {
  return `images/${image.sha256}/${image.image_id}/${size}.${IMAGE_FORMATS[image.format].ext}`;
}

/** Every object key of an image. */
export function imageObjectKeys(image: Pick<ImageFacts, 'sha256' | 'image_id' | 'format'>): string[] {
  return IMAGE_SIZES.map((size) => imageObjectKey(image, size));
}

/**
 * The public root the `images/...` keys are served under: in the cloud the apps distribution
 * (the site's `imagesUrl`, from `CARTWHEEL_PUBLIC_IMAGES_URL`, e.g. `https://d111.cloudfront.net/`),
 * locally the origin the request came to (the local gateway serves `/images/`).
 */
export function imagesOrigin(context: Pick<RenderContext, 'baseUrl' | 'site'>): string {
  const configured = context.site.imagesUrl;
  if (configured) return configured.endsWith('/') ? configured : `${configured}/`;
  return `${new URL(context.baseUrl).origin}/`;
}

/** The path of an image below the API root. */
export function imagePath(imageId: string): string {
  return `images/${encodeURIComponent(imageId)}`;
}

/** The JSON of an image (of a record, or of the facts a product keeps, with that product's mode). */
export function imageJson(image: ImageFacts, owner: { account_id: string; mode: 'live' | 'test' }, context: RenderContext): Record<string, unknown> {
  const origin = imagesOrigin(context);
  const link = (size: ImageSize) => `${origin}${imageObjectKey(image, size)}`;
  return {
    object: 'image',
    url: context.url(imagePath(image.image_id)),
    image_id: image.image_id,
    filename: image.filename,
    content_type: IMAGE_FORMATS[image.format].contentType,
    bytes: image.bytes,
    width: image.width,
    height: image.height,
    link: link('original'),
    link_small: link('small'),
    link_medium: link('medium'),
    link_large: link('large'),
    link_square: link('square'),
    test: owner.mode === 'test',
    account_id: owner.account_id,
    // Images never change: modified is created.
    date_created: context.date(image.created_ms),
    date_modified: context.date(image.created_ms),
  };
}

/** The facts of a record (what a product keeps when it lists the image). */
export function factsOf(image: ImageFacts): ImageFacts {
  return {
    image_id: image.image_id,
    filename: image.filename,
    format: image.format,
    bytes: image.bytes,
    width: image.width,
    height: image.height,
    sha256: image.sha256,
    animated: image.animated,
    created_ms: image.created_ms,
  };
}

/** The formattable properties of an image object (also used for `product.images`). */
export const imageFormattedShape = { dates: ['date_created', 'date_modified'] } as const;

/** The image declaration (REST conventions engine). */
export const imageDeclaration = declareResource<ImageRecord>({
  name: 'image',
  collection: 'images',
  idField: 'image_id',
  permission: 'products',
  scope: 'mode',
  formatted: imageFormattedShape,
  idOf: (stored) => stored.image_id,
  toJson: (stored, context) => imageJson(stored, stored, context),
});
