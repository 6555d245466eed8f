/**
 * Deleting an image (commerce.md §2.2): products that list it drop it, and its files stay 90
 * days (orders and emails may still show them) before they go.
 *
 *   1. request    one transaction: the image becomes `deleted` (unlisted, unreadable, no longer
 *                 listable by products) and `image-unlink` work is written, claimed by this
 *                 request.
 *   2. unlink     this request then drops the image from the products in its set, one product
 *                 transaction each (the product's new images and the image's set, together), up
 *                 to a budget; the due-work sweep continues a longer list, or the work of a
 *                 process that died (its claim's lease lapses).
 *   3. last       with the set empty, one transaction finishes the unlink work and makes
 *                 `image-files` work due in 90 days (remove-image-files.ts deletes the files
 *                 and the record).
 *
 * Every step is a transaction that either happened or not, and each next step reads where the
 * last one left off (the image's state and set), so a crash anywhere only delays the rest.
 */
import { claimWritten, dueEntry, finishEntry, retryLater, type DueClaim } from '../../work/due-work-store';
import { runClaimed, type DueHandler } from '../../work/runner';
import { newId } from '../../core/ids';
import type { Clock, Platform } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { RecordNotFoundError, TransactionRejectedError } from '../../store/errors';
import { findRecord, retryOnConflict } from '../../store/records';
import { transact, writeOne } from '../../store/transact';
import { productDeclaration, saveProduct } from '../catalog';
import { deletedImageEntries, findImage } from './image-store';
import { getImage } from './read-images';
import { withoutImage } from './product-images';

/** How long the files of a deleted image are kept (orders and emails may still show them). */
export const DELETED_FILES_KEPT_MS = 90 * 24 * 3600_000;

/** How many products the deleting request itself updates; the sweep does the rest. */
export const PRODUCTS_PER_REQUEST = 50;

/** How many products one sweep run updates before it hands the rest to the next run. */
const PRODUCTS_PER_RUN = 500;

/** How long a run holds the unlink work (longer than a run of PRODUCTS_PER_RUN takes). */
const UNLINK_LEASE_MS = 5 * 60_000;

/** Deletes a ready image (404 when there is none, 400 token_type_mismatch for the other mode); products drop it before this answers, up to a budget. */
export async function deleteImage(platform: Platform, scope: RecordScope, imageId: string): Promise<void> {
  const image = await getImage(scope, imageId);
  const now = platform.clock.nowMs();
  const unlink = dueEntry('image-unlink', scope, imageId, now + UNLINK_LEASE_MS, now, newId());
  await transact([...deletedImageEntries(image, now, () => new RecordNotFoundError('image', imageId, 'image_id')), unlink]);
  await runClaimed(platform, imageUnlinkWork, claimWritten(unlink), { budget: PRODUCTS_PER_REQUEST });
}

/** A lease that lapsed mid-run passed the work on: whoever holds it now finishes it. */
function ignoreLostClaim(error: unknown): void {
  if (!(error instanceof TransactionRejectedError)) throw error;
}

/** Drops the image from one product and the product from the image's set, in one transaction. */
async function dropFromProduct(scope: RecordScope, imageId: string, productId: string, clock: Clock): Promise<void> {
  await retryOnConflict(async () => {
    const product = await findRecord(productDeclaration, scope, productId);
    const change = withoutImage(scope, product ?? { product_id: productId }, imageId);
    if (!product || !(product.image_ids ?? []).includes(imageId)) {
      // The product no longer lists it (or is gone): only the set still names it.
      await writeOne(change.entries[0]!).catch(ignoreLostClaim);
      return;
    }
    await saveProduct(product, product, product.deleted, clock, change);
  });
}

/**
 * The unlink work: drops a deleted image from every product in its set, then makes its files
 * due for removal in 90 days. `known.budget` bounds the products of this run (the deleting
 * request passes a small one); the rest is put back for the sweep's next run.
 */
async function unlinkClaimed(platform: Platform, claim: DueClaim, known?: unknown): Promise<void> {
  const scope: RecordScope = { accountId: claim.record.account_id, mode: claim.record.mode };
  const imageId = claim.record.ref;
  let budget = (known as { budget?: number } | undefined)?.budget ?? PRODUCTS_PER_RUN;
  for (;;) {
    const image = await findImage(scope, imageId);
    if (image?.state !== 'deleted') {
      // Nothing (left) to unlink: gone already, or never deleted.
      await writeOne(finishEntry(claim)).catch(ignoreLostClaim);
      return;
    }
    const listing = [...(image.product_ids ?? [])];
    if (!listing.length) {
      const now = platform.clock.nowMs();
      await transact([finishEntry(claim), dueEntry('image-files', scope, imageId, now + DELETED_FILES_KEPT_MS, now)]).catch(ignoreLostClaim);
      return;
    }
    if (budget <= 0) {
      await retryLater(claim, platform.clock.nowMs(), `${listing.length} products still list the image; the next run continues`);
      return;
    }
    for (const productId of listing.slice(0, budget)) {
      await dropFromProduct(scope, imageId, productId, platform.clock);
      budget--;
    }
  }
}

/** Dropping a deleted image from the products that list it, as due work. */
export const imageUnlinkWork: DueHandler = { kind: 'image-unlink', leaseMs: UNLINK_LEASE_MS, run: unlinkClaimed };
