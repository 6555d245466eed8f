/** Lambda entry point of the `carts` route family: carts and cart items (commerce.md §3). */
import { createCartAction, deleteItemAction, getCartAction, getItemAction, listCartsAction, listItemsAction, updateCartAction, updateItemAction, upsertItemAction } from '../../shared/modules/carts/actions';
import { cartLoginAction, cartLogoutAction } from '../../shared/flows/customer-login/login-actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('carts', {
  'GET /api/v1/carts': listCartsAction,
  'POST /api/v1/carts': createCartAction,
  'GET /api/v1/carts/{cart_id}': getCartAction,
  'POST /api/v1/carts/{cart_id}': updateCartAction,
  'GET /api/v1/carts/{cart_id}/items': listItemsAction,
  'POST /api/v1/carts/{cart_id}/items': upsertItemAction,
  'GET /api/v1/carts/{cart_id}/items/{item_id}': getItemAction,
  'POST /api/v1/carts/{cart_id}/items/{item_id}': updateItemAction,
  'DELETE /api/v1/carts/{cart_id}/items/{item_id}': deleteItemAction,
  'POST /api/v1/carts/{cart_id}/login': cartLoginAction,
  'POST /api/v1/carts/{cart_id}/logout': cartLogoutAction,
});

export const handler = lambdaHandler(family);
