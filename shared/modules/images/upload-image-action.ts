/** `POST /images` (commerce.md §2.2): the upload, the one images action whose operation needs sharp. */
import { readUpload } from '../../http/body/multipart';
import type { ApiContext, ApiResult } from '../../http/types';
import { renderResource } from '../../rest/render';
import { imageScope } from './image-actions';
import { imageDeclaration, imagePath } from './images';
import { MAX_IMAGE_BYTES } from './limits';
import { uploadImage } from './upload-image';

/**
 * `POST /images`: `multipart/form-data` with the file in `file`. 201; 422 account_limit_exceeded
 * over 10 MB; 400 invalid_input (property `file`) for anything that is not a decodable JPEG,
 * PNG, GIF or WebP of at most 40 megapixels whose name and type agree with its bytes.
 */
export async function uploadImageAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await imageScope(context);
  // Shoppers were refused before the body is read.
  const upload = await readUpload(context.headers, context.rawBody, { field: 'file', maxFileBytes: MAX_IMAGE_BYTES, noun: 'image' });
  const key = context.headers['idempotency-key'];
  const record = await uploadImage(context.platform, {
    scope,
    upload,
    ...(key ? { idSeed: `${context.principal!.tokenHash}:${key}` } : {}),
  });
  const body = await renderResource(imageDeclaration, record, render);
  return { status: 201, body, location: render.url(imagePath(record.image_id)) };
}

