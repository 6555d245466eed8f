/** The licenses module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { getLicenseAction, getLicenseRequestAction, listLicenseRequestsAction, retryLicenseRequestAction } from './requests/license-request-actions';
export { createLicenseServiceAction, deleteLicenseServiceAction, getLicenseServiceAction, listLicenseServicesAction, updateLicenseServiceAction } from './services/license-service-actions';
