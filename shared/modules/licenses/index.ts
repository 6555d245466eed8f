/** The licenses module's one door: what other modules, flows and the app may use of it. */
export { KEPT_LICENSE_ATTEMPTS, OPERATIONAL_PROPERTIES, REQUEST_EXPAND, isOutstanding, licenseDeclaration, licenseIdFor, licensePath, licenseRequestDeclaration, licenseRequestIdFor, type LicenseAttempt, type LicenseAttemptErrorCode, type LicenseRecord, type LicenseRequestRecord, type LicenseRequestStatus } from './requests/license-request-records';
export { findLicense, findLicenseRequest, findLicenseRequests, findLicenses, getLicenseRequest, licensePutEntry, licenseRequestSaveEntry, newLicenseRequestEntry, reserveCodesEntry } from './requests/license-request-store';
export { hasVisibleText, licenseHtmlToText, sanitizeInstructions, sanitizeLicenseReply } from './sanitize';
export { findLicenseService, findLicenseServices, licenseServiceDeclaration, openServiceSecrets, productLinkEntries, requestsOutstandingEntry, takeCodes, type LicenseServiceRecord } from './services';
export { NoLicensesAvailableError } from './errors';
export { getLicense, licenseRequestListSource, type LicenseRequestFilters } from './requests/license-request-store';
