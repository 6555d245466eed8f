/**
 * The `/images` endpoints that read and delete (commerce.md §2.2), as actions of the API
 * pipeline: parse, call one operation, render. Limited tokens (shoppers) see images only inside
 * the products they may read: every `/images` endpoint answers them 403. The upload is in
 * ./upload-image-action, the one action that needs sharp.
 */
import { InsufficientPermissionsError } from '../../http/auth-errors';
import { booleanParameter } from '../../http/request';
import { declareQuery, requirePrincipal, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/entity';
import { deleteImage } from './delete-image';
import { imageDeclaration } from './images';
import { getImage, IMAGE_SORT_FIELDS, listImages } from './read-images';

/** The caller's scope and render context; limited tokens are refused (403) before anything is read. */
export async function imageScope(context: ApiContext): Promise<{ scope: RecordScope; render: RenderContext }> {
  if (requirePrincipal(context).kind === 'limited') throw new InsufficientPermissionsError('Limited tokens read images only inside products.');
  return actionScope(context);
}

/** `GET /images/{image_id}`. */
export async function getImageAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await imageScope(context);
  const record = await getImage(scope, context.params.image_id!);
  return { status: 200, body: await renderResource(imageDeclaration, record, render) };
}

/** `DELETE /images/{image_id}`: 204; products drop it (before the answer, up to a budget; the sweep does the rest). */
export async function deleteImageAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await imageScope(context);
  await deleteImage(context.platform, scope, context.params.image_id!);
  return { status: 204 };
}

/** `GET /images`: offset list, newest first unless `desc=false`; `sort_by` date_created or filename; `q` searches file names. */
export async function listImagesAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await imageScope(context);
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

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listImagesAction, { list: 'offset', filters: { sort_by: '`date_created` (default) or `filename`', q: 'Search in the file name' } });
