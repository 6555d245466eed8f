/**
 * The `/license_requests` endpoints (licenses.md §10, §11) and `GET /licenses/{id}` (§7), as
 * actions of the API pipeline. A request always shows its full order with customer and items;
 * a license is read with `orders:read`, or by a limited token whose payment reached it.
 */
import { assertReach } from '../../modules/identity';
import { RemoteServerError, RemoteServerTimeoutError } from '../../modules/events';
import { InvalidInputError } from '../../http/errors';
import { declareAnswer, declareQuery, requirePrincipal, type ApiContext, type ApiResult } from '../../http/types';
import { cursorQuery, renderCursorList } from '../../rest/cursor-list';
import { renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/entity';
import { NoLicensesAvailableError, licenseDeclaration, licenseRequestDeclaration, REQUEST_EXPAND, type LicenseRequestStatus, getLicense, getLicenseRequest, licenseRequestListSource, type LicenseRequestFilters } from '../../modules/licenses';
import { resendLicenseRequest } from './resend';

const STATUSES: readonly LicenseRequestStatus[] = ['queued', 'retry', 'completed', 'failed'];

async function requestScope(context: ApiContext, withOrder: boolean): Promise<{ scope: RecordScope; render: RenderContext }> {
  const { scope, render } = await actionScope(context);
  if (!withOrder) return { scope, render };
  // §11.1: `order` is always the full order with its customer; the caller's own expand comes after.
  const asked = context.query.expand?.trim();
  return { scope, render: { ...render, query: { ...render.query, expand: asked ? `${REQUEST_EXPAND},${asked}` : REQUEST_EXPAND } } };
}

/** `GET /license_requests`: cursor list; filters `status`, `order_id`, `product_id`, `license_service_id`. */
export async function listLicenseRequestsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await requestScope(context, true);
  const request = cursorQuery(context.query, render);
  const { status, order_id, product_id, license_service_id } = context.query;
  if (status && !(STATUSES as readonly string[]).includes(status)) {
    throw new InvalidInputError(`The parameter status must be one of ${STATUSES.join(', ')}.`, { parameter: 'status', reason: 'invalid' });
  }
  const filters: LicenseRequestFilters = {
    ...(status ? { status } : {}),
    ...(order_id ? { order_id } : {}),
    ...(product_id ? { product_id } : {}),
    ...(license_service_id ? { license_service_id } : {}),
  };
  return { status: 200, body: await renderCursorList(licenseRequestListSource(scope, filters), request, licenseRequestDeclaration, render, 'license_requests') };
}

declareQuery(listLicenseRequestsAction, {
  list: 'cursor',
  filters: {
    status: 'queued, retry, completed or failed',
    order_id: 'Requests of one order',
    product_id: 'Requests for one product',
    license_service_id: 'Requests of one license service',
  },
});

/** `GET /license_requests/{license_request_id}`: with the full order; `expand=license_service` through the engine. */
export async function getLicenseRequestAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await requestScope(context, true);
  const request = await getLicenseRequest(scope, context.params.license_request_id!);
  return { status: 200, body: await renderResource(licenseRequestDeclaration, request, render) };
}

/** `POST /license_requests/{license_request_id}/retry`: one manual attempt now (§10); 200, or 502/504/422 with the request in `meta`. */
export async function retryLicenseRequestAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await requestScope(context, true);
  const { request, outcome } = await resendLicenseRequest(context.platform, scope, context.params.license_request_id!);
  const body = await renderResource(licenseRequestDeclaration, request, render);
  const error = outcome.attempt.error;
  if (!error) return { status: 200, body };
  const meta = { license_request: body };
  if (error.code === 'timeout') throw new RemoteServerTimeoutError(`The license script did not answer in time: ${error.message}`, meta);
  if (error.code === 'no_licenses_available') throw new NoLicensesAvailableError(`No code could be taken from the list: ${error.message}`, meta);
  throw new RemoteServerError(`The license request failed: ${error.message}`, meta);
}

/** `GET /licenses/{license_id}`: `orders:read`, or a limited token whose payment reached the license (404 otherwise). */
export async function getLicenseAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await requestScope(context, false);
  const licenseId = context.params.license_id!;
  assertReach(requirePrincipal(context), `licenses/${licenseId}`, 'license');
  const license = await getLicense(scope, licenseId);
  return { status: 200, body: await renderResource(licenseDeclaration, license, render) };
}

declareAnswer(retryLicenseRequestAction, { resource: 'license_request' });
