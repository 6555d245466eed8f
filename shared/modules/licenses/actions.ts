/** The licenses module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { createLicenseServiceAction, deleteLicenseServiceAction, getLicenseServiceAction, listLicenseServicesAction, updateLicenseServiceAction } from './services/license-service-actions';
