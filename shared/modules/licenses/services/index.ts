/**
 * License services (licenses.md §2, §3, §6, §8): the public surface for other modules. The
 * license-request side reads services (`findLicenseService`, `findLicenseServices`), opens a
 * remote service's secrets for the outbound request, takes a list's codes (`takeCodes`) and
 * keeps the count of outstanding requests that blocks a delete (`requestsOutstandingEntry`);
 * products link to services through `productLinkEntries`.
 */
import type { RecordScope } from '../../../store/entity';
import type { LicenseServiceRecord } from './license-service-record';
import { findLicenseServiceRecords } from './license-service-store';

export {
  findLicenseService,
  getLicenseService,
  licenseServiceDeclaration,
  licenseServicePath,
  openServiceSecrets,
  productLinkEntries,
} from './license-services';
export type { LicenseServiceView } from './license-services';
export { REQUESTS_OUTSTANDING_ENTRY, requestsOutstandingEntry } from './license-service-store';
export { TAKE_CHUNK, takeCodes } from './take-codes';
export type { TakeCodesOptions, TakeCodesResult } from './take-codes';
export type { LicenseServiceRecord, LicenseServiceType, ServiceSecrets } from './license-service-record';

/** Many services by id in one batch read (missing ones are absent), e.g. the services of an order's products. */
export function findLicenseServices(scope: RecordScope, serviceIds: readonly string[]): Promise<Map<string, LicenseServiceRecord>> {
  return findLicenseServiceRecords(scope, serviceIds);
}
