/** The catalog module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { createProductAction, deleteProductAction, getProductAction, listProductsAction, updateProductAction } from './product-actions';
