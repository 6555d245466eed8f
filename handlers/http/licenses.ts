/** Lambda entry point of the `licenses` route family: license services, license requests and licenses (licenses.md §2, §7, §10, §11). */
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import { createLicenseServiceAction, deleteLicenseServiceAction, getLicenseServiceAction, listLicenseServicesAction, updateLicenseServiceAction } from '../../shared/modules/licenses/actions';
import { getLicenseAction, getLicenseRequestAction, listLicenseRequestsAction, retryLicenseRequestAction } from '../../shared/flows/license-fulfilment/license-request-actions';

export const family = defineFamily('licenses', {
  'GET /api/v1/license_services': listLicenseServicesAction,
  'POST /api/v1/license_services': createLicenseServiceAction,
  'GET /api/v1/license_services/{license_service_id}': getLicenseServiceAction,
  'POST /api/v1/license_services/{license_service_id}': updateLicenseServiceAction,
  'DELETE /api/v1/license_services/{license_service_id}': deleteLicenseServiceAction,
  'GET /api/v1/license_requests': listLicenseRequestsAction,
  'GET /api/v1/license_requests/{license_request_id}': getLicenseRequestAction,
  'POST /api/v1/license_requests/{license_request_id}/retry': retryLicenseRequestAction,
  'GET /api/v1/licenses/{license_id}': getLicenseAction,
});

export const handler = lambdaHandler(family);
