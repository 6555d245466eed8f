/**
 * Where images live: the image entity (keyed by account, mode and id, listed newest first
 * through the bucketed offset index once ready) and the writes that move an image through
 * its life (pending → ready → deleted → gone) and keep its set of listing products in step
 * with the products' own writes.
 */
import { bySequence, defineEntity, type RecordScope, type TransactEntry } from '../../store/entity';
import { table } from '../../store/client';
import { bucketCounterWrite, listingKeys, readOffsetCollection, reserveSequence } from '../../store/offset-index';
import type { ImageRecord, ImageState } from './images';

const images = defineEntity<ImageRecord>({ name: 'image', collection: 'images', scope: 'mode', idField: 'image_id',
  indexes: { gsi1: 'images by creation sequence (offset list); pending and deleted ones are not listed' },
  indexKeys: (image, partition) => ({ gsi1: image.state === 'ready' ? bySequence(partition, image.seq) : undefined }) });

const STATE = { '#state': 'state' };

/** Reserves the listing position of a new image (its creation sequence). */
export async function reserveImagePosition(scope: RecordScope): Promise<number> {
  return reserveSequence(images.partition(scope));
}

/** An image record in any state, or undefined (strongly consistent). */
export async function findImage(scope: RecordScope, imageId: string): Promise<ImageRecord | undefined> {
  return images.find(scope, imageId);
}

/** Image records by id in one batch read (missing ones absent; any state). */
export async function findImages(scope: RecordScope, imageIds: readonly string[]): Promise<Map<string, ImageRecord>> {
  return imageIds.length ? images.findMany(scope, imageIds) : new Map();
}

/** Whether an image id exists in the other mode (for token_type_mismatch). */
export async function existsInOtherMode(scope: RecordScope, imageId: string): Promise<boolean> {
  const other: RecordScope = { ...scope, mode: scope.mode === 'live' ? 'test' : 'live' };
  return (await images.find(other, imageId))?.state === 'ready';
}

/** The entry that writes a new image as pending (not listed, not readable); a taken id fails with `onTaken`. */
export function pendingImageEntry(record: ImageRecord, onTaken: () => Error): TransactEntry {
  return images.putEntry(record, { ifNew: true, name: 'image.pending', onConditionFailed: onTaken });
}

/** The entries that make a pending image ready: listed (with its bucket counter), readable; `onChanged` if it is no longer pending. */
export function readyImageEntries(record: ImageRecord, modifiedMs: number, onChanged: () => Error): TransactEntry[] {
  const scope = { accountId: record.account_id, mode: record.mode };
  const partition = images.partition(scope);
  return [
    images.updateEntry(scope, record.image_id, {
      name: 'image.ready',
      set: { state: 'ready', modified_ms: modifiedMs, ...listingKeys(partition, record.seq) },
      condition: { expression: '#state = :pending', names: STATE, values: { ':pending': 'pending' } },
      onConditionFailed: onChanged,
    }),
    { name: 'image.bucket-counter', item: bucketCounterWrite(partition, record.seq, 1) },
  ];
}

/**
 * The entries that mark a ready image deleted: out of the listing (and its count), no longer
 * readable or listable by products; `onChanged` when it is no longer ready.
 */
export function deletedImageEntries(record: ImageRecord, modifiedMs: number, onChanged: () => Error): TransactEntry[] {
  const scope = { accountId: record.account_id, mode: record.mode };
  return [
    images.updateEntry(scope, record.image_id, {
      name: 'image.delete',
      set: { state: 'deleted', modified_ms: modifiedMs },
      remove: ['gsi1pk', 'gsi1sk'],
      condition: { expression: '#state = :ready', names: STATE, values: { ':ready': 'ready' } },
      onConditionFailed: onChanged,
    }),
    { name: 'image.bucket-counter', item: bucketCounterWrite(images.partition(scope), record.seq, -1) },
  ];
}

/** The entry that removes an image record for good, if it is still in `state`. */
export function removeImageEntry(record: ImageRecord, state: ImageState): TransactEntry {
  return images.deleteEntry({ accountId: record.account_id, mode: record.mode }, record.image_id, {
    name: 'image.remove',
    condition: { expression: '#state = :state', names: STATE, values: { ':state': state } },
  });
}

/**
 * The entry, written with a product that starts listing the image, that adds the product to
 * the image's set; it fails with `onGone` when the image is not (or no longer) ready.
 */
export function linkProductEntry(scope: RecordScope, imageId: string, productId: string, onGone: () => Error): TransactEntry {
  return {
    name: 'image.link-product',
    item: {
      Update: {
        TableName: table(),
        Key: images.key(scope, imageId),
        UpdateExpression: 'ADD product_ids :product',
        ConditionExpression: 'attribute_exists(pk) AND #state = :ready',
        ExpressionAttributeNames: STATE,
        ExpressionAttributeValues: { ':product': new Set([productId]), ':ready': 'ready' },
      },
    },
    onConditionFailed: onGone,
  };
}

/**
 * The entry, written with a product that stops listing the image, that takes the product out of
 * the image's set (in any state: a deleted image still being dropped from products included).
 */
export function unlinkProductEntry(scope: RecordScope, imageId: string, productId: string, onGone: () => Error): TransactEntry {
  return {
    name: 'image.unlink-product',
    item: {
      Update: {
        TableName: table(),
        Key: images.key(scope, imageId),
        UpdateExpression: 'DELETE product_ids :product',
        // Never recreate a removed record as a bare key.
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':product': new Set([productId]) },
      },
    },
    onConditionFailed: onGone,
  };
}

/** How a page of images is read: creation order (or newest first), optionally filtered or sorted otherwise. */
export interface ImagePageRead {
  offset: number;
  limit: number;
  descending: boolean;
  filter?: (image: ImageRecord) => boolean;
  sortKey?: (image: ImageRecord) => string | number;
}

/**
 * One page of the ready images of a scope and their total: the bucket index for the default
 * order, the whole listing for a filter or another order.
 */
export async function readImagePage(scope: RecordScope, read: ImagePageRead): Promise<{ items: ImageRecord[]; total: number }> {
  return readOffsetCollection<ImageRecord>({
    partition: images.partition(scope),
    counted: true,
    idOf: (image) => image.image_id,
    ...read,
  });
}

/** The entry that gives up an upload that never finished (pending → abandoned); `onChanged` if it is no longer pending. */
export function abandonImageEntry(record: ImageRecord, modifiedMs: number, onChanged: () => Error): TransactEntry {
  return images.updateEntry({ accountId: record.account_id, mode: record.mode }, record.image_id, {
    name: 'image.abandon',
    set: { state: 'abandoned', modified_ms: modifiedMs },
    condition: { expression: '#state = :pending', names: STATE, values: { ':pending': 'pending' } },
    onConditionFailed: onChanged,
  });
}
