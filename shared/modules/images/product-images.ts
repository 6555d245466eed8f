/**
 * `image_ids` on product writes (commerce.md §2): which images a product lists, in order. The
 * product keeps each listed image's immutable facts, so `product.images` renders without
 * reading the images (one BatchGetItem per expand level stays one, however many products an
 * order's items name). Each image keeps the set of products that list it, changed in the same
 * transaction as the product, so deleting an image finds every product to drop it from
 * (delete-image.ts) without a scan, whatever crashes.
 */
import type { RecordScope } from '../../store/entity';
import type { TransactEntry } from '../../store/transact';
import { invalid } from '../../rest/input';
import { ImageNotFoundError, ImageOtherModeError } from './errors';
import { existsInOtherMode, findImages, linkProductEntry, unlinkProductEntry } from './image-store';
import { factsOf, type ImageFacts } from './images';

/** What a product stores of its images. */
export interface ProductImages {
  image_ids: string[];
  images: ImageFacts[];
}

/** A change of a product's images: the new list, and the image writes that go with the product's. */
export interface ProductImagesChange {
  fields: ProductImages;
  entries: TransactEntry[];
}

/** The ids of a product's images (records written before images existed have none). */
function listedIds(product: Partial<ProductImages> | undefined): string[] {
  return product?.image_ids ?? [];
}

/** Checks the parsed `image_ids` (the schema made it an array of at most 20 strings): each listed once. */
function distinctImageIds(value: readonly string[]): string[] {
  const seen = new Set<string>();
  return value.map((id, index) => {
    const property = `image_ids[${index}]`;
    if (seen.has(id)) invalid(property, `The image ${id} is listed twice.`, 'conflict');
    seen.add(id);
    return id;
  });
}

/**
 * Validates the `image_ids` of a product create (`current` undefined) or update, and answers
 * the product's new image fields with the writes that keep the images' product sets in step,
 * to be written in the product's transaction; undefined when the body does not send
 * `image_ids`. An unknown id is 400 invalid_input (`image_ids[i]`, reason `not_found`); an id
 * of the other mode is 400 token_type_mismatch. An image the product already lists that is
 * being deleted is dropped quietly (its deletion drops it anyway).
 */
export async function productImagesChange(
  scope: RecordScope,
  productId: string,
  body: { image_ids?: string[] | undefined },
  current: Partial<ProductImages> | undefined,
): Promise<ProductImagesChange | undefined> {
  if (body.image_ids === undefined) return undefined;
  const wanted = distinctImageIds(body.image_ids);
  const before = listedIds(current);
  const removed = before.filter((id) => !wanted.includes(id));
  const found = await findImages(scope, [...wanted, ...removed]);
  const ids: string[] = [];
  const images: ImageFacts[] = [];
  const entries: TransactEntry[] = [];
  for (const [index, id] of wanted.entries()) {
    const property = `image_ids[${index}]`;
    const image = found.get(id);
    const kept = before.includes(id);
    if (image?.state !== 'ready') {
      if (kept) {
        if (image) entries.push(unlinkProductEntry(scope, id, productId, () => new ImageNotFoundError(property, id)));
        continue;
      }
      if (!image && (await existsInOtherMode(scope, id))) throw new ImageOtherModeError(property, id);
      throw new ImageNotFoundError(property, id);
    }
    ids.push(id);
    images.push(factsOf(image));
    // A deletion that commits between this read and the product's write fails the write (400 not_found).
    if (!kept) entries.push(linkProductEntry(scope, id, productId, () => new ImageNotFoundError(property, id)));
  }
  for (const id of removed) {
    // A record already gone has no set to update (its deletion dropped the product first).
    if (found.has(id)) entries.push(unlinkProductEntry(scope, id, productId, () => new ImageNotFoundError('image_ids', id)));
  }
  return { fields: { image_ids: ids, images }, entries };
}

/** The change that drops one image from a product (what deleting the image does to each product listing it). */
export function withoutImage(scope: RecordScope, product: { product_id: string } & Partial<ProductImages>, imageId: string): ProductImagesChange {
  return {
    fields: {
      image_ids: listedIds(product).filter((id) => id !== imageId),
      images: (product.images ?? []).filter((image) => image.image_id !== imageId),
    },
    entries: [unlinkProductEntry(scope, imageId, product.product_id, () => new ImageNotFoundError('image_ids', imageId))],
  };
}
