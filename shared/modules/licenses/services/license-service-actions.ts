/**
 * The `/license_services` endpoints (licenses.md §2.2), as actions of the API pipeline. They
 * need `license_services:*` (limited tokens hold none: 403). Secrets and the `licenses` array
 * are shown only to holders of `license_services:update`; an answer that shows a secret or a
 * code is marked sensitive, so an idempotent replay copy of it is stored sealed.
 */
import type { Principal } from '../../../core/access/principal';
import { InvalidInputError } from '../../../http/errors';
import { booleanParameter } from '../../../http/request';
import { declareQuery, withBody, type ApiContext, type ApiResult } from '../../../http/types';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter } from '../../../rest/offset-list';
import { renderElements, renderResource } from '../../../rest/render';
import { actionScope } from '../../../rest/action-scope';
import { readOffsetCollection } from '../../../store/offset-index';
import type { LicenseServiceRecord } from './license-service-record';
import { LICENSE_SERVICE_TYPES, licenseServiceCreate, licenseServiceUpdate } from './license-service-schemas';
import { licenseServicePartition } from './license-service-store';
import {
  createLicenseService,
  deleteLicenseService,
  getLicenseService,
  licenseServiceDeclaration,
  licenseServicePath,
  licenseServiceView,
  maySeeSecrets,
  SECRET_PROPERTIES,
  updateLicenseService,
  type LicenseServiceView,
  type WrittenLicenseService,
} from './license-services';

const SORT_FIELDS = ['date_created', 'name'] as const;

/** What `principal` may see of a service that was just written with its privileged parts at hand. */
function visible(record: WrittenLicenseService, principal: Principal): LicenseServiceView {
  if (maySeeSecrets(principal)) return record;
  const { privileged: _hidden, ...rest } = record;
  return rest;
}

/** Whether an answer shows a secret value or a code. */
function showsSecret(view: LicenseServiceView): boolean {
  const privileged = view.privileged;
  return privileged !== undefined && (SECRET_PROPERTIES.some((name) => privileged.secrets[name] !== null) || (privileged.licenses?.length ?? 0) > 0);
}

/** `POST /license_services`: 201 with `Location`. */
export const createLicenseServiceAction = withBody(licenseServiceCreate, async (context) => {
  const { principal, scope, render } = await actionScope(context);
  const view = visible(await createLicenseService(scope, context.body, context.platform), principal);
  const body = await renderResource(licenseServiceDeclaration, view, render);
  return { status: 201, body, location: render.url(licenseServicePath(view.license_service_id)), sensitive: showsSecret(view) };
});

/** `GET /license_services/{license_service_id}`. */
export async function getLicenseServiceAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const record = await getLicenseService(scope, context.params.license_service_id!);
  const view = await licenseServiceView(record, principal, context.platform.secrets);
  return { status: 200, body: await renderResource(licenseServiceDeclaration, view, render), sensitive: showsSecret(view) };
}

/** `POST /license_services/{license_service_id}`: partial update, validated as the service will be. */
export const updateLicenseServiceAction = withBody(licenseServiceUpdate, async (context) => {
  const { principal, scope, render } = await actionScope(context);
  const saved = await updateLicenseService(scope, context.params.license_service_id!, context.body, context.platform);
  const view = visible(saved, principal);
  return { status: 200, body: await renderResource(licenseServiceDeclaration, view, render), sensitive: showsSecret(view) };
});

/** `DELETE /license_services/{license_service_id}`: a hard delete (204); 409 in_use while linked or busy. */
export async function deleteLicenseServiceAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  await deleteLicenseService(await getLicenseService(scope, context.params.license_service_id!));
  return { status: 204 };
}

/** `GET /license_services`: offset list, oldest first unless `desc`; filter `type`; `sort_by` `date_created` or `name`. */
export async function listLicenseServicesAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const query = context.query;
  const page = offsetPage(query);
  const sortBy = sortByParameter(query, SORT_FIELDS);
  const descending = booleanParameter(query, 'desc') ?? false;
  const type = query.type?.trim() || undefined;
  if (type !== undefined && !(LICENSE_SERVICE_TYPES as readonly string[]).includes(type)) {
    throw new InvalidInputError('The parameter type must be list or remote_url.', { parameter: 'type', reason: 'invalid' });
  }
  const { items, total } = await readOffsetCollection<LicenseServiceRecord>({
    partition: licenseServicePartition(scope),
    offset: page.offset,
    limit: page.limit,
    descending,
    counted: true,
    ...(type ? { filter: (service) => service.type === type } : {}),
    ...(sortBy === 'name' ? { sortKey: (service) => service.name.toLowerCase() } : {}),
    idOf: (service) => service.license_service_id,
  });
  const views = await Promise.all(items.map((record) => licenseServiceView(record, principal, context.platform.secrets)));
  const data = await renderElements(licenseServiceDeclaration, views, render);
  return {
    status: 200,
    body: offsetList(data, page, total, pageUrlBuilder(render.url('license_services'), query, 'offset')),
    sensitive: views.some(showsSecret),
  };
}

// The query parameters of the list action, for the API description (conventions.md §12).
declareQuery(listLicenseServicesAction, { list: 'offset', filters: { type: 'list or remote_url', sort_by: 'date_created (default) or name' } });
