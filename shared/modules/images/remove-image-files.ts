/**
 * Removing an image's files, as due work (`image-files`, referenced by image id): 90 days after
 * a deletion finished dropping it from products, or an hour after an upload that never became
 * ready (upload-image.ts). A pending upload is first abandoned (one conditional write, which
 * either it or the upload's own last step wins), so no retry can revive it while its files go.
 * Then every file is deleted (deleting a missing one is fine) and the record is removed in the
 * same transaction that finishes the work; a crash in between runs it all again later.
 */
import { finishEntry, type DueClaim } from '../../work/due-work-store';
import type { DueHandler } from '../../work/runner';
import type { Platform } from '../../platform/ports';
import type { RecordScope } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { transact, writeOne } from '../../store/transact';
import { abandonImageEntry, findImage, removeImageEntry } from './image-store';
import { imageObjectKeys } from './images';

/** The abandon lost: the upload became ready meanwhile. */
class NoLongerPending extends Error {}

/** A lease that lapsed mid-run passed the work on: whoever holds it now finishes it. */
function ignoreLostClaim(error: unknown): void {
  if (!(error instanceof TransactionRejectedError)) throw error;
}

async function removeFilesClaimed(platform: Platform, claim: DueClaim): Promise<void> {
  const scope: RecordScope = { accountId: claim.record.account_id, mode: claim.record.mode };
  let image = await findImage(scope, claim.record.ref);
  if (image?.state === 'pending') {
    try {
      await writeOne(abandonImageEntry(image, platform.clock.nowMs(), () => new NoLongerPending()));
      image = { ...image, state: 'abandoned' };
    } catch (error) {
      if (!(error instanceof NoLongerPending)) throw error;
      image = await findImage(scope, claim.record.ref);
    }
  }
  if (image?.state !== 'abandoned' && image?.state !== 'deleted') {
    // Gone already, or a ready image (its upload finished): nothing to remove.
    await writeOne(finishEntry(claim)).catch(ignoreLostClaim);
    return;
  }
  await Promise.all(imageObjectKeys(image).map((key) => platform.objects.delete('apps', key)));
  await transact([removeImageEntry(image, image.state), finishEntry(claim)]).catch(ignoreLostClaim);
}

/** Removing the files (and record) of a deleted or abandoned image, as due work. */
export const imageFilesWork: DueHandler = { kind: 'image-files', leaseMs: 5 * 60_000, run: removeFilesClaimed };
