/** The customers module's one door: what other modules, flows and the app may use of it. */
export { customerLogin, customerSelfUpdate, type Credentials } from './customer-schemas';
export { createFromSaleEntry, customerIdOfUsername, findCustomerRecord, hasPaymentsEntry, updateCustomer } from './customer-store';
export { changeCustomer, customerDeclaration, customerFromSale, saleCustomerOf, type CustomerDetails, type CustomerRecord, type SaleCustomer } from './customers';
