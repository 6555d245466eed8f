/**
 * The licenses module's own error (licenses.md §12) beyond the platform's common ones and the
 * remote-attempt errors it shares with events (`../events/errors`).
 */
import { ApiError } from '../../core/errors';

/** 422 request_failure: a manual re-send found too few codes left in the list (`meta.license_request`). */
export class NoLicensesAvailableError extends ApiError {
  override name = 'NoLicensesAvailableError';
  constructor(message: string, meta: Record<string, unknown>) {
    super(422, 'request_failure', message, meta);
  }
}
