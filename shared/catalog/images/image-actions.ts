/**
 * The `/images` endpoints (commerce.md §2.2), as actions of the API pipeline: parse, call one
 * operation, render. Limited tokens (shoppers) see images only inside the products they may
 * read: every `/images` endpoint answers them 403.
 */
import { InsufficientPermissionsError } from '../../auth/errors';
import { booleanParameter } from '../../http/request';
import { readUpload } from '../../http/multipart';
import { requirePrincipal, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { renderContext, type RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/entity';
import { deleteImage } from './delete-image';
import { imageDeclaration, imagePath } from './images';
import { MAX_IMAGE_BYTES } from './limits';
import { getImage, IMAGE_SORT_FIELDS, listImages } from './read-images';
import { uploadImage } from './upload-image';

async function prepare(context: ApiContext): Promise<{ scope: RecordScope; render: RenderContext }> {
  const principal = requirePrincipal(context);
  if (principal.kind === 'limited') throw new InsufficientPermissionsError('Limited tokens read images only inside products.');
  const scope = { accountId: principal.accountId, mode: principal.mode };
  return { scope, render: await renderContext(context, scope.accountId, scope.mode) };
}

/**
 * `POST /images`: `multipart/form-data` with the file in `file`. 201; 422 account_limit_exceeded
 * over 10 MB; 400 invalid_input (property `file`) for anything that is not a decodable JPEG,
 * PNG, GIF or WebP of at most 40 megapixels whose name and type agree with its bytes.
 */
export async function uploadImageAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  // Shoppers were refused before the body is read.
  const upload = await readUpload(context.headers, context.rawBody, { field: 'file', maxFileBytes: MAX_IMAGE_BYTES });
  const key = context.headers['idempotency-key'];
  const record = await uploadImage(context.platform, {
    scope,
    upload,
    ...(key ? { idSeed: `${context.principal!.tokenHash}:${key}` } : {}),
  });
  const body = await renderResource(imageDeclaration, record, render);
  return { status: 201, body, location: render.url(imagePath(record.image_id)) };
}

/** `GET /images/{image_id}`. */
export async function getImageAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const record = await getImage(scope, context.params.image_id!);
  return { status: 200, body: await renderResource(imageDeclaration, record, render) };
}

/** `DELETE /images/{image_id}`: 204; products drop it (before the answer, up to a budget; the sweep does the rest). */
export async function deleteImageAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await prepare(context);
  await deleteImage(context.platform, scope, context.params.image_id!);
  return { status: 204 };
}

/** `GET /images`: offset list, newest first unless `desc=false`; `sort_by` date_created or filename; `q` searches file names. */
export async function listImagesAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const query = context.query;
  const page = offsetPage(query);
  const { items, total } = await listImages(scope, {
    ...page,
    sortBy: sortByParameter(query, IMAGE_SORT_FIELDS),
    descending: booleanParameter(query, 'desc') ?? true,
    ...(query.q?.trim() ? { search: query.q.trim().toLowerCase() } : {}),
  });
  const data = await renderElements(imageDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url('images'), query, 'offset')) };
}
