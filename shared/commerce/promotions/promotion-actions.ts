/**
 * The `/promotions` endpoints (commerce.md §11), as actions of the API pipeline. Limited
 * tokens hold no `promotions` permission, so the route check refuses them (403); shoppers use
 * codes only through carts.
 */
import { nowMs } from '../../clock';
import { InvalidInputError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { requirePrincipal, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { renderContext, type RenderContext } from '../../rest/render-context';
import { readOffsetPage, readWholeListing } from '../../store/offset-index';
import { collectionPartition, getRecord, retryOnConflict, type RecordScope } from '../../store/records';
import {
  createPromotion,
  promotionDeclaration,
  promotionFields,
  promotionPath,
  savePromotion,
  type PromotionInputContext,
  type PromotionRecord,
} from './promotions';

const SORT_FIELDS = ['name', 'date_created'] as const;

/**
 * The caller's scope and render context. The render context holds the zone in effect (the
 * `timezone` parameter, validated, else the account default), which `expires` is read in.
 */
async function prepare(context: ApiContext): Promise<{ scope: RecordScope; render: RenderContext }> {
  const principal = requirePrincipal(context);
  const scope = { accountId: principal.accountId, mode: principal.mode };
  return { scope, render: await renderContext(context, scope.accountId, scope.mode) };
}

function inputContext(render: RenderContext): PromotionInputContext {
  return { payment: render.payment, zone: render.zone, now: nowMs() };
}

function readPromotion(scope: RecordScope, id: string): Promise<PromotionRecord> {
  return getRecord(promotionDeclaration, scope, id);
}

/** `POST /promotions`: 201; 409 in_use for a taken id or code. */
export async function createPromotionAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const record = await createPromotion(scope, context.body ?? {}, inputContext(render));
  const body = await renderResource(promotionDeclaration, record, render);
  return { status: 201, body, location: render.url(promotionPath(record.promotion_id)) };
}

/** `GET /promotions/{promotion_id}`: deleted promotions stay readable by id. */
export async function getPromotionAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const record = await readPromotion(scope, context.params.promotion_id!);
  return { status: 200, body: await renderResource(promotionDeclaration, record, render) };
}

/** `POST /promotions/{promotion_id}`: partial update; `{"deleted": false}` restores. */
export async function updatePromotionAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const body = context.body ?? {};
  const saved = await retryOnConflict(async () => {
    const current = await readPromotion(scope, context.params.promotion_id!);
    const fields = promotionFields(body, current, inputContext(render));
    return savePromotion(current, fields, body.deleted === false ? false : current.deleted);
  });
  return { status: 200, body: await renderResource(promotionDeclaration, saved, render) };
}

/** `DELETE /promotions/{promotion_id}`: a soft delete (`deleted: true`, `active: false`); orders keep their link. */
export async function deletePromotionAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await prepare(context);
  await retryOnConflict(async () => {
    const current = await readPromotion(scope, context.params.promotion_id!);
    if (!current.deleted) await savePromotion(current, current, true);
  });
  return { status: 204 };
}

/** `GET /promotions`: offset list; filters `active`, `q` (name or code), `deleted`; `sort_by` name or date_created. */
export async function listPromotionsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await prepare(context);
  const query = context.query;
  const page = offsetPage(query);
  const sortBy = query.sort_by || 'date_created';
  if (!(SORT_FIELDS as readonly string[]).includes(sortBy)) {
    throw new InvalidInputError(`The parameter sort_by must be one of ${SORT_FIELDS.join(', ')}.`, { parameter: 'sort_by', reason: 'invalid' });
  }
  const descending = booleanParameter(query, 'desc') ?? false;
  const deleted = booleanParameter(query, 'deleted') ?? false;
  const active = booleanParameter(query, 'active');
  const search = query.q?.trim().toLowerCase() || undefined;
  const partition = collectionPartition(promotionDeclaration, scope);

  let items: PromotionRecord[];
  let total: number;
  if (!deleted && search === undefined && active === undefined && sortBy === 'date_created') {
    const result = await readOffsetPage(partition, page.offset, page.limit, descending);
    items = result.items as unknown as PromotionRecord[];
    total = result.total;
  } else {
    // Filters and other orders read the whole listing; the default list never does.
    let all = (await readWholeListing(deleted ? `${partition}#deleted` : partition)) as unknown as PromotionRecord[];
    all = all.filter(
      (promotion) =>
        (active === undefined || promotion.active === active) &&
        (search === undefined || promotion.name.toLowerCase().includes(search) || promotion.code.toLowerCase().includes(search)),
    );
    all.sort(comparePromotions(sortBy, descending));
    total = all.length;
    items = all.slice(page.offset, page.offset + page.limit);
  }
  const data = await renderElements(promotionDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url('promotions'), query, 'offset')) };
}

function comparePromotions(sortBy: string, descending: boolean) {
  const key = (promotion: PromotionRecord): string | number => (sortBy === 'name' ? promotion.name.toLowerCase() : promotion.seq);
  const direction = descending ? -1 : 1;
  return (a: PromotionRecord, b: PromotionRecord) => {
    const [x, y] = [key(a), key(b)];
    const primary = x < y ? -1 : x > y ? 1 : 0;
    return direction * (primary || (a.promotion_id < b.promotion_id ? -1 : a.promotion_id > b.promotion_id ? 1 : 0));
  };
}
