/** Lambda entry point of the `licenses` route family: license services (licenses.md §2). */
import { defineFamily, lambdaHandler } from '../../shared/http/pipeline';
import {
  createLicenseServiceAction,
  deleteLicenseServiceAction,
  getLicenseServiceAction,
  listLicenseServicesAction,
  updateLicenseServiceAction,
} from '../../shared/licenses/services/license-service-actions';

export const family = defineFamily('licenses', {
  'GET /api/v1/license_services': listLicenseServicesAction,
  'POST /api/v1/license_services': createLicenseServiceAction,
  'GET /api/v1/license_services/{license_service_id}': getLicenseServiceAction,
  'POST /api/v1/license_services/{license_service_id}': updateLicenseServiceAction,
  'DELETE /api/v1/license_services/{license_service_id}': deleteLicenseServiceAction,
});

export const handler = lambdaHandler(family);
