/** What license services can refuse beyond the platform's common errors, in the contract's codes (licenses.md §12). */
import { ApiError } from '../../../core/errors';

/** 409 in_use: the service cannot be deleted while products link to it (`meta.product_ids`, at most 20). */
export class LicenseServiceLinkedError extends ApiError {
  override name = 'LicenseServiceLinkedError';
  constructor(serviceId: string, productIds: readonly string[]) {
    super(409, 'in_use', `The license service ${serviceId} is used by products; unlink them before deleting it.`, { reason: 'linked_products', product_ids: [...productIds] });
  }
}

/** 409 in_use: the service cannot be deleted while one of its license requests is `queued` or `retry`. */
export class LicenseServiceBusyError extends ApiError {
  override name = 'LicenseServiceBusyError';
  constructor(serviceId: string) {
    super(409, 'in_use', `The license service ${serviceId} has license requests in progress; delete it once they have ended.`, { reason: 'requests_outstanding' });
  }
}

/** 409 in_use: another change of the service's codes is being written and did not finish in time; retry. */
export class LicenseCodesBusyError extends ApiError {
  override name = 'LicenseCodesBusyError';
  constructor(serviceId: string) {
    super(409, 'in_use', `The codes of the license service ${serviceId} are being changed by another request; retry.`, { property: 'configuration', reason: 'in_progress' });
  }
}

/** 422 account_limit_exceeded: the service would hold more codes than a service may. */
export class LicenseCodeLimitError extends ApiError {
  override name = 'LicenseCodeLimitError';
  constructor(property: string, limit: number, count: number) {
    super(422, 'account_limit_exceeded', `A license service holds at most ${limit} codes; this change would leave ${count}.`, { property, limit });
  }
}

/** 400 token_type_mismatch on a body property naming a license service of the other mode. */
export class LicenseServiceOtherModeError extends ApiError {
  override name = 'LicenseServiceOtherModeError';
  constructor(property: string, serviceId: string) {
    super(400, 'token_type_mismatch', `The license service ${serviceId} belongs to the other mode than the access token.`, { property });
  }
}
