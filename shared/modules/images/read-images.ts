/** Reading images as the API shows them: only ready ones exist (commerce.md §2.2). */
import type { RecordScope } from '../../store/entity';
import { OtherModeError, RecordNotFoundError } from '../../store/errors';
import { existsInOtherMode, findImage, readImagePage, type ImagePageRead } from './image-store';
import type { ImageRecord } from './images';

/** A ready image: 404 resource_not_found when there is none (pending, deleted and abandoned ones included), 400 token_type_mismatch when it is the other mode's. */
export async function getImage(scope: RecordScope, imageId: string): Promise<ImageRecord> {
  const image = await findImage(scope, imageId);
  if (image?.state === 'ready') return image;
  if (!image && (await existsInOtherMode(scope, imageId))) throw new OtherModeError('image', imageId);
  throw new RecordNotFoundError('image', imageId, 'image_id');
}

/** Sort orders of the image list. */
export const IMAGE_SORT_FIELDS = ['date_created', 'filename'] as const;

/** What the image list can be asked for. */
export interface ImageListQuery {
  offset: number;
  limit: number;
  sortBy: (typeof IMAGE_SORT_FIELDS)[number];
  descending: boolean;
  /** Part of the file name (case-insensitive). */
  search?: string;
}

/** One page of ready images and their total. */
export async function listImages(scope: RecordScope, query: ImageListQuery): Promise<{ items: ImageRecord[]; total: number }> {
  const read: ImagePageRead = { offset: query.offset, limit: query.limit, descending: query.descending };
  if (query.search !== undefined) {
    const search = query.search;
    read.filter = (image) => image.filename.toLowerCase().includes(search);
  }
  if (query.sortBy === 'filename') read.sortKey = (image) => image.filename.toLowerCase();
  return readImagePage(scope, read);
}
