/**
 * Uploading an image (commerce.md §2.2): check and size the file in memory, then store it in
 * three steps with a recovery story for a crash between any two of them.
 *
 *   1. `pending`  one transaction: the image record as `pending` (invisible) and an
 *                 `image-files` due record one hour ahead (the clean-up if step 3 never happens).
 *   2. files      the five objects under `images/<sha256>/<image_id>/` (paths nobody else writes).
 *   3. `ready`    one transaction: the record becomes `ready` and listed (bucket counter), and the
 *                 due record goes.
 *
 * A process killed after 1 or 2 leaves an invisible pending record: an hour later the sweep
 * abandons it, deletes whatever files exist and removes it (remove-image-files.ts). Nothing is
 * visible and nothing is written twice. With an `Idempotency-Key` the image id is derived from
 * the token and the key, so a retry of a crashed upload finds the first attempt's record: a
 * pending one is carried on from step 2, a ready one is answered as it is; a different file
 * under the same key is refused (409 in_use).
 */
import { dueEntry, doneEntry } from '../../work/due-work-store';
import { derivedId, newId } from '../../core/ids';
import type { Platform } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { startListedRecord } from '../../store/offset-index';
import { transact } from '../../store/transact';
import { ImageKeyReusedError } from './errors';
import { findImage, pendingImageEntry, readyImageEntries, reserveImagePosition } from './image-store';
import { processImage, type ImageUpload, type ProcessedImage } from './image-processing';
import { IMAGE_FORMATS, IMAGE_SIZES, imageObjectKey, type ImageRecord } from './images';

/** How long an unfinished upload waits before the sweep removes it (far beyond one request). */
export const PENDING_UPLOAD_GRACE_MS = 60 * 60_000;

/** What an upload needs besides the file. */
export interface UploadImageInput {
  scope: RecordScope;
  upload: ImageUpload;
  /**
   * Fixes the image id (an `Idempotency-Key` with the calling token), so a retried upload after a
   * crash continues the first attempt instead of writing a second image.
   */
  idSeed?: string;
}

/** A 12-character commerce id derived from a seed (the same seed always gives the same id). */
export function imageIdFromSeed(seed: string): string {
  return derivedId(`image:${seed}`);
}

/** A first attempt under the same id already wrote its record (see `resume`). */
class ImageIdTaken extends Error {}

/** Stores a checked upload; answers the ready record. Refusals (400/422) happen before anything is written. */
export async function uploadImage(platform: Pick<Platform, 'objects' | 'clock'>, input: UploadImageInput): Promise<ImageRecord> {
  const processed = await processImage(input.upload);
  const { scope } = input;
  const imageId = input.idSeed ? imageIdFromSeed(input.idSeed) : newId();
  let record: ImageRecord;
  try {
    record = await writePending(platform, scope, imageId, processed);
  } catch (error) {
    if (!(error instanceof ImageIdTaken)) throw error;
    const earlier = await resume(scope, imageId, processed);
    if (earlier.state === 'ready') return earlier;
    record = earlier;
  }
  await putFiles(platform, record, processed);
  return makeReady(platform, record, processed);
}

/** Step 1: the pending record and its clean-up, together. */
async function writePending(platform: Pick<Platform, 'clock'>, scope: RecordScope, imageId: string, processed: ProcessedImage): Promise<ImageRecord> {
  const start = await startListedRecord(scope, reserveImagePosition, platform.clock);
  const now = start.created_ms;
  const record: ImageRecord = {
    image_id: imageId,
    state: 'pending',
    filename: processed.filename,
    format: processed.format,
    bytes: processed.files.original.length,
    width: processed.width,
    height: processed.height,
    sha256: processed.sha256,
    animated: processed.animated,
    ...start,
  };
  await transact([
    pendingImageEntry(record, () => new ImageIdTaken()),
    dueEntry('image-files', scope, imageId, now + PENDING_UPLOAD_GRACE_MS, now),
  ]);
  return record;
}

/** A retry under a taken id: the same file carries on (or is already done); another file is refused. */
async function resume(scope: RecordScope, imageId: string, processed: ProcessedImage): Promise<ImageRecord> {
  const earlier = await findImage(scope, imageId);
  if (!earlier || earlier.sha256 !== processed.sha256 || (earlier.state !== 'pending' && earlier.state !== 'ready')) {
    // Gone meanwhile, another file, or already deleted or abandoned: this key cannot upload again.
    throw new ImageKeyReusedError();
  }
  return earlier;
}

/** Step 2: the five files (a retry writes the same bytes to the same paths). */
async function putFiles(platform: Pick<Platform, 'objects'>, record: ImageRecord, processed: ProcessedImage): Promise<void> {
  const contentType = IMAGE_FORMATS[record.format].contentType;
  await Promise.all(IMAGE_SIZES.map((size) => platform.objects.put('apps', imageObjectKey(record, size), processed.files[size], contentType)));
}

/** Step 3: ready and listed, the clean-up dropped, in one transaction. */
async function makeReady(platform: Pick<Platform, 'clock'>, record: ImageRecord, processed: ProcessedImage): Promise<ImageRecord> {
  const scope = { accountId: record.account_id, mode: record.mode };
  const modified = Math.max(platform.clock.nowMs(), record.modified_ms);
  try {
    await transact([...readyImageEntries(record, modified, () => new ImageIdTaken()), doneEntry('image-files', scope, record.image_id)]);
  } catch (error) {
    if (!(error instanceof ImageIdTaken)) throw error;
    // A concurrent retry of the same upload finished first, or the sweep abandoned it.
    const now = await resume(scope, record.image_id, processed);
    if (now.state === 'ready') return now;
    throw new ImageKeyReusedError();
  }
  return { ...record, state: 'ready', modified_ms: modified };
}
