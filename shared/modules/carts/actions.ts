/** The carts module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { createCartAction, deleteItemAction, getCartAction, getItemAction, listCartsAction, listItemsAction, updateCartAction, updateItemAction, upsertItemAction } from './cart-actions';
