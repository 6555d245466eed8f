/**
 * The `/promotions` endpoints (commerce.md §11), as actions of the API pipeline. Limited
 * tokens hold no `promotions` permission, so the route check refuses them (403); shoppers use
 * codes only through carts.
 */
import type { Clock } from '../../platform/ports';
import { booleanParameter } from '../../http/request';
import { declareQuery, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import type { RenderContext } from '../../rest/render-context';
import { readOffsetCollection } from '../../store/offset-index';
import { getRecord, type RecordScope } from '../../store/records';
import {
  createPromotion,
  promotionDeclaration,
  promotionFields,
  promotionPath,
  promotionRevision,
  type PromotionInputContext,
  type PromotionRecord,
} from './promotions';
import { promotionListing, updatePromotion } from './promotion-store';
import { promotionCreate, promotionUpdate } from './promotion-schemas';

const SORT_FIELDS = ['name', 'date_created'] as const;

function inputContext(render: RenderContext, clock: Clock): PromotionInputContext {
  return { payment: render.payment, zone: render.zone, now: clock.nowMs() };
}

function readPromotion(scope: RecordScope, id: string): Promise<PromotionRecord> {
  return getRecord(promotionDeclaration, scope, id);
}

/** `POST /promotions`: 201; 409 in_use for a taken id or code. */
export const createPromotionAction = withBody(promotionCreate, async (context) => {
  const { scope, render } = await actionScope(context);
  const record = await createPromotion(scope, context.body, inputContext(render, context.platform.clock), context.platform.clock);
  const body = await renderResource(promotionDeclaration, record, render);
  return { status: 201, body, location: render.url(promotionPath(record.promotion_id)) };
});

/** `GET /promotions/{promotion_id}`: deleted promotions stay readable by id. */
export async function getPromotionAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const record = await readPromotion(scope, context.params.promotion_id!);
  return { status: 200, body: await renderResource(promotionDeclaration, record, render) };
}

/** `POST /promotions/{promotion_id}`: partial update; `{"deleted": false}` restores. */
export const updatePromotionAction = withBody(promotionUpdate, async (context) => {
  const { scope, render } = await actionScope(context);
  const body = context.body;
  const saved = await updatePromotion(scope, context.params.promotion_id!, (current) =>
    promotionRevision(current, promotionFields(body, current, inputContext(render, context.platform.clock)), body.deleted === false ? false : current.deleted, context.platform.clock),
  );
  return { status: 200, body: await renderResource(promotionDeclaration, saved, render) };
});

/** `DELETE /promotions/{promotion_id}`: a soft delete (`deleted: true`, `active: false`); orders keep their link. */
export async function deletePromotionAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  await updatePromotion(scope, context.params.promotion_id!, (current) =>
    current.deleted ? { next: current, write: false } : promotionRevision(current, current, true, context.platform.clock),
  );
  return { status: 204 };
}

/** `GET /promotions`: offset list; filters `active`, `q` (name or code), `deleted`; `sort_by` name or date_created. */
export async function listPromotionsAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const query = context.query;
  const page = offsetPage(query);
  const sortBy = sortByParameter(query, SORT_FIELDS);
  const descending = booleanParameter(query, 'desc') ?? false;
  const deleted = booleanParameter(query, 'deleted') ?? false;
  const active = booleanParameter(query, 'active');
  const search = query.q?.trim().toLowerCase() || undefined;
  const { items, total } = await readOffsetCollection<PromotionRecord>({
    partition: promotionListing(scope, deleted),
    offset: page.offset,
    limit: page.limit,
    descending,
    counted: !deleted,
    ...(search !== undefined || active !== undefined
      ? {
          filter: (promotion) =>
            (active === undefined || promotion.active === active) &&
            (search === undefined || promotion.name.toLowerCase().includes(search) || promotion.code.toLowerCase().includes(search)),
        }
      : {}),
    ...(sortBy === 'name' ? { sortKey: (promotion) => promotion.name.toLowerCase() } : {}),
    idOf: (promotion) => promotion.promotion_id,
  });
  const data = await renderElements(promotionDeclaration, items, render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url('promotions'), query, 'offset')) };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listPromotionsAction, { list: 'offset', filters: { active: 'true or false', deleted: 'true lists deleted promotions (default false)', q: 'Search in name and code', sort_by: 'name or date_created (default)' } });
