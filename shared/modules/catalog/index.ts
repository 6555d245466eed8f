/** The catalog module's one door: what other modules, flows and the app may use of it. */
export { convert, unitPrice, type PriceEntry } from './pricing';
export { licenseServicesOfProducts, productIdsLinkedTo } from './product-store';
export { productDeclaration, saveProduct, type ProductRecord, type SubscriptionPlan } from './products';
