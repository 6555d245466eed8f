/** Lambda entry point of the `catalog` route family: products (commerce.md §2). */
import { createProductAction, deleteProductAction, getProductAction, listProductsAction, updateProductAction } from '../../shared/modules/catalog/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('catalog', {
  'GET /api/v1/products': listProductsAction,
  'POST /api/v1/products': createProductAction,
  'GET /api/v1/products/{product_id}': getProductAction,
  'POST /api/v1/products/{product_id}': updateProductAction,
  'DELETE /api/v1/products/{product_id}': deleteProductAction,
});

export const handler = lambdaHandler(family);
