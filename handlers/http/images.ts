/** Lambda entry point of the `images` route family: product images (commerce.md §2.2). Its bundle ships sharp for linux-arm64. */
import { deleteImageAction, getImageAction, listImagesAction } from '../../shared/modules/images/actions';
import { uploadImageAction } from '../../shared/modules/images/uploads';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('images', {
  'GET /api/v1/images': listImagesAction,
  'POST /api/v1/images': uploadImageAction,
  'GET /api/v1/images/{image_id}': getImageAction,
  'DELETE /api/v1/images/{image_id}': deleteImageAction,
});

export const handler = lambdaHandler(family);
