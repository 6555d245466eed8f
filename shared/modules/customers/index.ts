/** The customers module's one door: what other modules, flows and the app may use of it. */
export { customerLogin, customerSelfUpdate, saleCustomerInput, type Credentials, type SaleCustomerInput } from './customer-schemas';
export { createFromSaleEntry, customerIdOfUsername, findCustomerRecord, hasPaymentsEntry, rehashCustomerPassword, rememberStripeCustomer, updateCustomer } from './customer-store';
export { changeCustomer, customerDeclaration, customerFromSale, mergeSaleDetails, saleCustomerOf, saleDetailsOf, type CustomerDetails, type CustomerRecord, type SaleCustomer } from './customers';
