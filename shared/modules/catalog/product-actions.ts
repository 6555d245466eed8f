/** The `/products` endpoints (commerce.md §2), as actions of the API pipeline. */
import { declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { InvalidInputError, NotFoundError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import type { RenderContext } from '../../rest/render-context';
import { readOffsetCollection } from '../../store/offset-index';
import { findRecord, getRecord, type RecordScope } from '../../store/records';
import { requestCurrency } from './pricing';
import { productCreate, productUpdate } from './product-schemas';
import { productListing, updateProduct } from './product-store';
import { createProduct, productDeclaration, productFields, productRevision, type ProductRecord } from './products';
import { productImagesChange } from '../images';

const SORT_FIELDS = ['name', 'product_id', 'date_created', 'date_modified'] as const;

async function catalogScope(context: ApiContext): Promise<{ scope: RecordScope; render: RenderContext }> {
  const { scope, render } = await actionScope(context);
  requestCurrency(context.query, render.payment);
  return { scope, render };
}

/**
 * Reads a product by id. In test mode an id ending in `.test` that does not exist is tried
 * once more without the suffix (conventions.md §7: existing storefront clients add it).
 */
async function readProduct(scope: RecordScope, id: string): Promise<ProductRecord> {
  if (scope.mode === 'test' && id.endsWith('.test') && id.length > 5) {
    const exact = await findRecord(productDeclaration, scope, id);
    if (exact) return exact;
    return getRecord(productDeclaration, scope, id.slice(0, -5));
  }
  return getRecord(productDeclaration, scope, id);
}

/** `POST /products`. */
export const createProductAction = withBody(productCreate, async (context) => {
  const { scope, render } = await catalogScope(context);
  const record = await createProduct(scope, context.body, render.payment, context.platform.clock);
  const body = await renderResource(productDeclaration, record, render);
  return { status: 201, body, location: render.url(`products/${encodeURIComponent(record.product_id)}`) };
});

/** `GET /products/{product_id}`; limited tokens see active products only (hidden ones by id). */
export async function getProductAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await catalogScope(context);
  const record = await readProduct(scope, context.params.product_id!);
  if (render.principal?.kind === 'limited' && (!record.active || record.deleted)) {
    throw new NotFoundError(`The product ${context.params.product_id} does not exist.`, { parameter: 'product_id' });
  }
  return { status: 200, body: await renderResource(productDeclaration, record, render) };
}

/** `POST /products/{product_id}`: partial update; `{"deleted": false}` restores. */
export const updateProductAction = withBody(productUpdate, async (context) => {
  const { scope, render } = await catalogScope(context);
  const body = context.body;
  const productId = context.params.product_id!;
  const saved = await updateProduct(scope, productId, async (current) => {
    const fields = productFields(body, current, render.payment, scope.mode);
    const images = await productImagesChange(scope, current.product_id, body, current);
    return productRevision(current, fields, body.deleted === false ? false : current.deleted, context.platform.clock, images);
  }, () => readProduct(scope, productId));
  return { status: 200, body: await renderResource(productDeclaration, saved, render) };
});

/** `DELETE /products/{product_id}`: a soft delete (orders keep their lines). */
export async function deleteProductAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await catalogScope(context);
  const productId = context.params.product_id!;
  await updateProduct(scope, productId, async (current) => (current.deleted ? undefined : productRevision(current, current, true, context.platform.clock)), () => readProduct(scope, productId));
  return { status: 204 };
}

/** `GET /products`: offset list with filters and sort orders. */
export async function listProductsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await catalogScope(context);
  const query = context.query;
  const page = offsetPage(query);
  const sortBy = sortByParameter(query, SORT_FIELDS);
  const descending = booleanParameter(query, 'desc') ?? false;
  // Shoppers (limited tokens) list active, visible products only, whatever they ask for.
  const shopper = render.principal?.kind === 'limited';
  const deleted = shopper ? false : (booleanParameter(query, 'deleted') ?? false);
  const active = shopper ? true : booleanParameter(query, 'active');
  const hidden = shopper ? false : booleanParameter(query, 'hidden');
  const type = query.type || undefined;
  if (type && !['digital', 'physical', 'service'].includes(type)) {
    throw new InvalidInputError('The parameter type must be digital, physical or service.', { parameter: 'type', reason: 'invalid' });
  }
  const search = query.q?.trim().toLowerCase() || undefined;
  const filtered = search !== undefined || active !== undefined || hidden !== undefined || type !== undefined;
  const { items, total } = await readOffsetCollection<ProductRecord>({
    partition: productListing(scope, deleted),
    offset: page.offset,
    limit: page.limit,
    descending,
    counted: !deleted,
    ...(filtered
      ? {
          filter: (product) =>
            (active === undefined || product.active === active) &&
            (hidden === undefined || product.hidden === hidden) &&
            (type === undefined || product.type === type) &&
            (search === undefined || product.name.toLowerCase().includes(search) || product.product_id.toLowerCase().includes(search)),
        }
      : {}),
    ...(sortBy === 'date_created' ? {} : { sortKey: productSortKey(sortBy) }),
    idOf: (product) => product.product_id,
  });
  const data = await renderElements(productDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url('products'), query, 'offset')) };
}

function productSortKey(sortBy: (typeof SORT_FIELDS)[number]) {
  return (product: ProductRecord): string | number =>
    sortBy === 'name' ? product.name.toLowerCase() : sortBy === 'product_id' ? product.product_id : sortBy === 'date_modified' ? product.modified_ms : product.seq;
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listProductsAction, { list: 'offset', filters: { currency: 'Currency of `price`', q: 'Search in name and product_id', active: 'true or false', type: 'digital, physical or service', hidden: 'true or false', deleted: 'true lists soft-deleted products (default false)', sort_by: 'name, product_id, date_created (default) or date_modified' } });
