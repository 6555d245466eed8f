/**
 * The `/shipping_methods` endpoints (commerce.md §2.1), as actions of the API pipeline. They
 * need `settings:read` / `settings:update` (limited tokens hold neither); shoppers see methods
 * only as quotes on carts (§3.4).
 */
import { booleanParameter } from '../../http/request';
import { declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import { readOffsetCollection } from '../../store/offset-index';
import { collectionPartition, getRecord, type RecordScope } from '../../store/records';
import {
  createShippingMethod,
  shippingMethodDeclaration,
  shippingMethodFields,
  shippingMethodPath,
  shippingMethodRevision,
  type ShippingMethodRecord,
} from './shipping-methods';
import { removeShippingMethod, updateShippingMethodRecord } from './shipping-method-store';
import { shippingMethodCreate, shippingMethodUpdate } from './shipping-method-schemas';

const SORT_FIELDS = ['name', 'date_created'] as const;

function readMethod(scope: RecordScope, id: string): Promise<ShippingMethodRecord> {
  return getRecord(shippingMethodDeclaration, scope, id);
}

/** `POST /shipping_methods`: 201; 409 in_use for a taken id. */
export const createShippingMethodAction = withBody(shippingMethodCreate, async (context) => {
  const { scope, render } = await actionScope(context);
  const record = await createShippingMethod(scope, context.body, render.payment, context.platform.clock);
  const body = await renderResource(shippingMethodDeclaration, record, render);
  return { status: 201, body, location: render.url(shippingMethodPath(record.shipping_method_id)) };
});

/** `GET /shipping_methods/{shipping_method_id}`. */
export async function getShippingMethodAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const record = await readMethod(scope, context.params.shipping_method_id!);
  return { status: 200, body: await renderResource(shippingMethodDeclaration, record, render) };
}

/** `POST /shipping_methods/{shipping_method_id}`: partial update. */
export const updateShippingMethodAction = withBody(shippingMethodUpdate, async (context) => {
  const { scope, render } = await actionScope(context);
  const body = context.body;
  const methodId = context.params.shipping_method_id!;
  const saved = await updateShippingMethodRecord(
    scope,
    methodId,
    (current) => shippingMethodRevision(current, shippingMethodFields(body, current, render.payment), context.platform.clock),
    () => readMethod(scope, methodId),
  );
  return { status: 200, body: await renderResource(shippingMethodDeclaration, saved, render) };
});

/** `DELETE /shipping_methods/{shipping_method_id}`: a hard delete (204); carts stop quoting it at their next write. */
export async function deleteShippingMethodAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  const methodId = context.params.shipping_method_id!;
  await removeShippingMethod(scope, methodId, () => readMethod(scope, methodId));
  return { status: 204 };
}

/** `GET /shipping_methods`: offset list; filters `active`, `q` (name); `sort_by` name or date_created. */
export async function listShippingMethodsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const query = context.query;
  const page = offsetPage(query);
  const sortBy = sortByParameter(query, SORT_FIELDS);
  const descending = booleanParameter(query, 'desc') ?? false;
  const active = booleanParameter(query, 'active');
  const search = query.q?.trim().toLowerCase() || undefined;
  const partition = collectionPartition(shippingMethodDeclaration, scope);

  const { items, total } = await readOffsetCollection<ShippingMethodRecord>({
    partition,
    offset: page.offset,
    limit: page.limit,
    descending,
    counted: true,
    ...(search !== undefined || active !== undefined
      ? { filter: (method) => (active === undefined || method.active === active) && (search === undefined || method.name.toLowerCase().includes(search)) }
      : {}),
    ...(sortBy === 'name' ? { sortKey: (method) => method.name.toLowerCase() } : {}),
    idOf: (method) => method.shipping_method_id,
  });
  const data = await renderElements(shippingMethodDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url('shipping_methods'), query, 'offset')) };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listShippingMethodsAction, { list: 'offset', filters: { active: 'true or false', q: 'Search in the name', sort_by: 'name or date_created (default)' } });
