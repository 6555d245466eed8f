/**
 * Promotions (commerce.md §11): declaration, validation and storage. Promotions are an offset
 * collection listed in creation order through the bucketed offset index; soft-deleted ones move
 * to a separate listing so the default list (and its total) excludes them. A code is unique
 * per account and mode, case-insensitively, through a claim item written in the same
 * transaction as the promotion; shoppers' codes are looked up through that claim.
 *
 * `uses` counts paid sales (§5.1 step 4). `claimed_uses` also counts the payments running
 * with the code: a payment reserves a use before it charges (a conditional increment that
 * holds only below `max_uses`) and gives it back when the charge fails, so a code can never
 * be charged for more often than `max_uses` allows (see checkout/pay-cart.ts).
 */
import type { PaymentSettings } from '../../accounts/settings';
import { nowMs } from '../../clock';
import { newId } from '../../ids';
import { parseDateInput } from '../../rest/dates';
import { declareResource } from '../../rest/declarations';
import { booleanValue, clientId, invalid, metaValue, numberValue, objectValue, requiredString, sends } from '../../rest/input';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/records';
import {
  findPromotionRecord,
  insertPromotion,
  promotionIdOfCode,
  promotionKey,
  promotionListing,
  reservePromotionPosition,
  updatePromotion,
} from './promotion-store';
import { DISCOUNT_TYPES, type DiscountAmount, type PromotionTerms } from './discounts';

/** A stored promotion. */
export interface PromotionRecord extends PromotionTerms {
  pk: string;
  sk: string;
  promotion_id: string;
  account_id: string;
  mode: 'live' | 'test';
  type: 'coupon';
  name: string;
  /** As the merchant wrote it; matched case-insensitively. */
  code: string;
  active: boolean;
  deleted: boolean;
  /** Epoch ms of the last moment the code is valid, or null. */
  expires_ms: number | null;
  max_uses: number | null;
  /** Paid sales that used the code. */
  uses: number;
  /** `uses` plus the payments running with the code (their reserved uses). */
  claimed_uses: number;
  meta: unknown;
  created_ms: number;
  modified_ms: number;
  seq: number;
  gsi1pk: string;
  gsi1sk: string;
}

/** The writable properties of a promotion, validated. */
export type PromotionFields = Pick<
  PromotionRecord,
  'name' | 'code' | 'active' | 'discount_type' | 'discount_percent' | 'discount_amounts' | 'product_ids' | 'expires_ms' | 'max_uses' | 'meta'
>;

/** The names of the writable properties (a record passed as its own fields carries more). */
const FIELD_NAMES = [
  'name',
  'code',
  'active',
  'discount_type',
  'discount_percent',
  'discount_amounts',
  'product_ids',
  'expires_ms',
  'max_uses',
  'meta',
] as const satisfies readonly (keyof PromotionFields)[];

/** What validating `expires` needs: the zone in effect (conventions.md §13) and the platform clock. */
export interface PromotionInputContext {
  payment: PaymentSettings;
  zone: string;
  now: number;
}

const CODE = /^[A-Za-z0-9_-]{1,50}$/;
const MAX_PRODUCT_IDS = 1000;

/** The path of a promotion below the API root. */
export function promotionPath(promotionId: string): string {
  return `promotions/${encodeURIComponent(promotionId)}`;
}

/** The promotion declaration (REST conventions engine). */
export const promotionDeclaration = declareResource<PromotionRecord>({
  name: 'promotion',
  collection: 'promotions',
  idField: 'promotion_id',
  permission: 'promotions',
  scope: 'mode',
  formatted: {
    percents: ['discount_percent'],
    dates: ['expires', 'date_created', 'date_modified'],
    nested: { discount_amounts: { money: { amount: 'currency' } } },
  },
  idOf: (stored) => stored.promotion_id,
  toJson(stored, context: RenderContext) {
    return {
      object: 'promotion',
      url: context.url(promotionPath(stored.promotion_id)),
      promotion_id: stored.promotion_id,
      type: stored.type,
      name: stored.name,
      code: stored.code,
      active: stored.active,
      discount_type: stored.discount_type,
      discount_percent: stored.discount_percent,
      discount_amounts: stored.discount_amounts.map((entry) => ({ ...entry })),
      product_ids: [...stored.product_ids],
      expires: context.date(stored.expires_ms),
      max_uses: stored.max_uses,
      uses: stored.uses,
      deleted: stored.deleted,
      test: stored.mode === 'test',
      account_id: stored.account_id,
      meta: stored.meta ?? null,
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
    };
  },
});

/** The pricing terms of a promotion (what a cart keeps with its code). */
export function termsOf(promotion: PromotionTerms): PromotionTerms {
  return {
    discount_type: promotion.discount_type,
    discount_percent: promotion.discount_percent,
    discount_amounts: promotion.discount_amounts.map((entry) => ({ ...entry })),
    product_ids: [...promotion.product_ids],
  };
}

function parseCode(value: unknown): string {
  if (value === undefined || value === null || value === '') invalid('code', 'The property code is required.', 'required');
  if (typeof value !== 'string' || !CODE.test(value)) {
    invalid('code', 'The property code must be 1 to 50 characters of A-Z, a-z, 0-9, "_" and "-".', typeof value === 'string' && value.length > 50 ? 'too_long' : 'invalid');
  }
  return value;
}

function parseAmounts(value: unknown, payment: PaymentSettings): DiscountAmount[] {
  if (!Array.isArray(value) || value.length === 0) {
    invalid('discount_amounts', 'The property discount_amounts must list at least one amount.', value === undefined || value === null || Array.isArray(value) ? 'required' : 'invalid');
  }
  const seen = new Set<string>();
  return value.map((entry, index) => {
    const at = `discount_amounts[${index}]`;
    const object = objectValue(entry, at);
    if (!object) invalid(at, `The property ${at} must be an object.`);
    if (typeof object.currency !== 'string' || object.currency === '') invalid(`${at}.currency`, `The property ${at}.currency is required.`, 'required');
    const currency = object.currency.toUpperCase();
    if (!payment.currencies.includes(currency)) invalid(`${at}.currency`, `The currency ${object.currency} is not enabled for this account.`);
    if (seen.has(currency)) invalid(`${at}.currency`, `The currency ${currency} is listed twice.`, 'conflict');
    seen.add(currency);
    const amount = numberValue(object.amount, `${at}.amount`, { min: 0 });
    if (amount === 0) invalid(`${at}.amount`, `The property ${at}.amount must be greater than 0.`, 'out_of_range');
    return { currency, amount };
  });
}

function parseProductIds(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) invalid('product_ids', 'The property product_ids must be a list of product ids.');
  if (value.length > MAX_PRODUCT_IDS) invalid('product_ids', `The property product_ids may list at most ${MAX_PRODUCT_IDS} products.`, 'too_long');
  const ids = value.map((id, index) => clientId(id, `product_ids[${index}]`, []));
  return [...new Set(ids)];
}

function parseExpires(value: unknown, context: PromotionInputContext): number | null {
  if (value === null || value === '') return null;
  if (typeof value !== 'string') invalid('expires', 'The property expires must be an ISO 8601 date or time, or a date shorthand.');
  // A date-only value (or any shorthand) means the last moment of its period (conventions.md §13).
  return parseDateInput(value, { edge: 'last', zone: context.zone, now: context.now, name: 'expires', kind: 'property' });
}

/**
 * Validates a create body or a partial update against the current fields: sent properties
 * change, null clears where allowed, read-only and unknown ones are ignored. Only the
 * discount property of the promotion's `discount_type` is kept (the other reads null or `[]`),
 * so a whole object posted back validates as it was.
 */
export function promotionFields(body: Record<string, unknown>, current: PromotionFields | undefined, context: PromotionInputContext): PromotionFields {
  const has = (property: string) => sends(body, property) || !current;
  if (sends(body, 'type') && body.type !== 'coupon' && body.type !== null) invalid('type', 'The property type must be coupon.');
  const name = has('name') ? requiredString(body.name, 'name', 200) : current!.name;
  const code = has('code') ? parseCode(body.code) : current!.code;
  const discountType = has('discount_type') ? body.discount_type : current!.discount_type;
  if (typeof discountType !== 'string' || !(DISCOUNT_TYPES as readonly string[]).includes(discountType)) {
    invalid('discount_type', 'The property discount_type must be percent or amount.', discountType === undefined || discountType === null ? 'required' : 'invalid');
  }
  let discountPercent: number | null = null;
  let discountAmounts: DiscountAmount[] = [];
  if (discountType === 'percent') {
    const sent = sends(body, 'discount_percent') || current?.discount_type !== 'percent';
    const value = sent ? body.discount_percent : current!.discount_percent;
    if (value === undefined || value === null) invalid('discount_percent', 'The property discount_percent is required for percent promotions.', 'required');
    discountPercent = numberValue(value, 'discount_percent', { max: 1 });
    if (discountPercent <= 0) invalid('discount_percent', 'The property discount_percent must be a fraction greater than 0 and at most 1.', 'out_of_range');
  } else {
    const sent = sends(body, 'discount_amounts') || current?.discount_type !== 'amount';
    discountAmounts = sent ? parseAmounts(body.discount_amounts, context.payment) : current!.discount_amounts;
  }
  const maxUses = sends(body, 'max_uses') ? body.max_uses : (current?.max_uses ?? null);
  return {
    name,
    code,
    active: sends(body, 'active') ? booleanValue(body.active, 'active') : (current?.active ?? true),
    discount_type: discountType as PromotionFields['discount_type'],
    discount_percent: discountPercent,
    discount_amounts: discountAmounts,
    product_ids: sends(body, 'product_ids') ? parseProductIds(body.product_ids) : (current?.product_ids ?? []),
    expires_ms: sends(body, 'expires') ? parseExpires(body.expires, context) : (current?.expires_ms ?? null),
    max_uses: maxUses === null || maxUses === undefined ? null : numberValue(maxUses, 'max_uses', { integer: true, min: 1 }),
    meta: sends(body, 'meta') ? metaValue(body.meta) : (current?.meta ?? null),
  };
}

export { codeClaimKey } from './promotion-store';

/** Creates a promotion: reserve its listing position, then write record, counter and code claim together. */
export async function createPromotion(scope: RecordScope, body: Record<string, unknown>, context: PromotionInputContext): Promise<PromotionRecord> {
  const promotionId =
    sends(body, 'promotion_id') && body.promotion_id !== null && body.promotion_id !== '' ? clientId(body.promotion_id, 'promotion_id', []) : newId();
  const fields = promotionFields(body, undefined, context);
  const position = await reservePromotionPosition(scope);
  const now = nowMs();
  const record: PromotionRecord = {
    ...promotionKey(scope, promotionId),
    promotion_id: promotionId,
    account_id: scope.accountId,
    mode: scope.mode,
    type: 'coupon',
    ...fields,
    deleted: false,
    uses: 0,
    claimed_uses: 0,
    created_ms: now,
    modified_ms: now,
    ...position,
  };
  await insertPromotion(scope, record);
  return record;
}

/**
 * Writes changed fields of a promotion: moves it in or out of the listing when `deleted`
 * changes and moves its code claim when the code changes (other than in letter case). The
 * write is conditional on the version read, so concurrent changes (and the `uses` counters a
 * payment moves) never mix; the caller's `retryOnConflict` reads again.
 */
export async function savePromotion(current: PromotionRecord, fields: PromotionFields, deleted: boolean): Promise<PromotionRecord> {
  const scope = { accountId: current.account_id, mode: current.mode };
  const partition = promotionListing(scope);
  const next: PromotionRecord = {
    ...current,
    ...(Object.fromEntries(FIELD_NAMES.map((name) => [name, fields[name]])) as PromotionFields),
    // A deleted promotion is inactive (§11); a restored one stays inactive until activated.
    active: deleted ? false : fields.active,
    deleted,
    modified_ms: Math.max(nowMs(), current.modified_ms + 1),
    gsi1pk: deleted ? `${partition}#deleted` : partition,
  };
  // Only these attributes change: the use counters, which payments move without touching
  // `modified_ms`, are never overwritten with the values read here.
  const changed: Record<string, unknown> = {
    ...Object.fromEntries(FIELD_NAMES.map((name) => [name, next[name]])),
    deleted,
    modified_ms: next.modified_ms,
    gsi1pk: next.gsi1pk,
  };
  await updatePromotion(current, next, changed);
  return next;
}

/** Reads a promotion by id, or undefined (strongly consistent). */
export async function findPromotion(scope: RecordScope, promotionId: string): Promise<PromotionRecord | undefined> {
  return findPromotionRecord(scope, promotionId);
}

/** The promotion a code names (case-insensitively), or undefined: one read of the claim, one of the record. */
export async function findPromotionByCode(scope: RecordScope, code: string): Promise<PromotionRecord | undefined> {
  if (!CODE.test(code)) return undefined;
  const promotionId = await promotionIdOfCode(scope, code);
  if (promotionId === undefined) return undefined;
  return findPromotion(scope, promotionId);
}
