/**
 * The `/shipping_methods` endpoints (commerce.md §2.1), as actions of the API pipeline. They
 * need `settings:read` / `settings:update` (limited tokens hold neither); shoppers see methods
 * only as quotes on carts (§3.4).
 */
import { InvalidInputError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { requirePrincipal, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { renderContext, type RenderContext } from '../../rest/render-context';
import { readOffsetPage, readWholeListing } from '../../store/offset-index';
import { collectionPartition, getRecord, retryOnConflict, type RecordScope } from '../../store/records';
import {
  createShippingMethod,
  deleteShippingMethod,
  saveShippingMethod,
  shippingMethodDeclaration,
  shippingMethodFields,
  shippingMethodPath,
  type ShippingMethodRecord,
} from './shipping-methods';

const SORT_FIELDS = ['name', 'date_created'] as const;

async function prepare(context: ApiContext): Promise<{ scope: RecordScope; render: RenderContext }> {
  const principal = requirePrincipal(context);
  const scope = { accountId: principal.accountId, mode: principal.mode };
  return { scope, render: await renderContext(context, scope.accountId, scope.mode) };
}

function readMethod(scope: RecordScope, id: string): Promise<ShippingMethodRecord> {
  return getRecord(shippingMethodDeclaration, scope, id);
}

/** `POST /shipping_methods`: 201; 409 in_use for a taken id. */
export async function createShippingMethodAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const record = await createShippingMethod(scope, context.body ?? {}, render.payment);
  const body = await renderResource(shippingMethodDeclaration, record, render);
  return { status: 201, body, location: render.url(shippingMethodPath(record.shipping_method_id)) };
}

/** `GET /shipping_methods/{shipping_method_id}`. */
export async function getShippingMethodAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const record = await readMethod(scope, context.params.shipping_method_id!);
  return { status: 200, body: await renderResource(shippingMethodDeclaration, record, render) };
}

/** `POST /shipping_methods/{shipping_method_id}`: partial update. */
export async function updateShippingMethodAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const body = context.body ?? {};
  const saved = await retryOnConflict(async () => {
    const current = await readMethod(scope, context.params.shipping_method_id!);
    return saveShippingMethod(current, shippingMethodFields(body, current, render.payment));
  });
  return { status: 200, body: await renderResource(shippingMethodDeclaration, saved, render) };
}

/** `DELETE /shipping_methods/{shipping_method_id}`: a hard delete (204); carts stop quoting it at their next write. */
export async function deleteShippingMethodAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await prepare(context);
  await retryOnConflict(async () => deleteShippingMethod(await readMethod(scope, context.params.shipping_method_id!)));
  return { status: 204 };
}

/** `GET /shipping_methods`: offset list; filters `active`, `q` (name); `sort_by` name or date_created. */
export async function listShippingMethodsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const query = context.query;
  const page = offsetPage(query);
  const sortBy = query.sort_by || 'date_created';
  if (!(SORT_FIELDS as readonly string[]).includes(sortBy)) {
    throw new InvalidInputError(`The parameter sort_by must be one of ${SORT_FIELDS.join(', ')}.`, { parameter: 'sort_by', reason: 'invalid' });
  }
  const descending = booleanParameter(query, 'desc') ?? false;
  const active = booleanParameter(query, 'active');
  const search = query.q?.trim().toLowerCase() || undefined;
  const partition = collectionPartition(shippingMethodDeclaration, scope);

  let items: ShippingMethodRecord[];
  let total: number;
  if (search === undefined && active === undefined && sortBy === 'date_created') {
    const result = await readOffsetPage(partition, page.offset, page.limit, descending);
    items = result.items as unknown as ShippingMethodRecord[];
    total = result.total;
  } else {
    let all = (await readWholeListing(partition)) as unknown as ShippingMethodRecord[];
    all = all.filter((method) => (active === undefined || method.active === active) && (search === undefined || method.name.toLowerCase().includes(search)));
    const key = (method: ShippingMethodRecord): string | number => (sortBy === 'name' ? method.name.toLowerCase() : method.seq);
    const direction = descending ? -1 : 1;
    all.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      const primary = x < y ? -1 : x > y ? 1 : 0;
      return direction * (primary || (a.shipping_method_id < b.shipping_method_id ? -1 : a.shipping_method_id > b.shipping_method_id ? 1 : 0));
    });
    total = all.length;
    items = all.slice(page.offset, page.offset + page.limit);
  }
  const data = await renderElements(shippingMethodDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url('shipping_methods'), query, 'offset')) };
}
