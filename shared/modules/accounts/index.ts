/** The accounts module's one door: what other modules, flows and the app may use of it. */
export { createAccount, type AccountBootstrap } from './create-account';
export { readGeneralSettingsCached, readPaymentSettingsCached, readTaxSettingsCached, readTechnicalSettingsCached } from './settings-cache';
export { readGeneralSettings, readPaymentSettings, readTaxSettings, readTechnicalSettings, signatureKeyPurpose, type CustomerFieldToken, type CustomerOptionalFieldToken, type PaymentSettings, type TaxRule, type TaxSettings } from './settings';
export { openStripeConnection } from './stripe-settings';
export type { StoredStripeConnection } from './settings';
