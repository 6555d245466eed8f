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
import type { PaymentSettings } from '../accounts';
import type { Clock } from '../../platform/ports';
import { newId } from '../../core/ids';
import { parseDateInput } from '../../rest/dates';
import { declareResource } from '../../rest/declarations';
import { currencyEntries, invalid, sends } from '../../rest/input';
import type { RenderContext } from '../../rest/render-context';
import type { Revision } from '../../store/entity';
import type { RecordScope } from '../../store/records';
import { startListedRecord } from '../../store/offset-index';
import { findPromotionRecord, insertPromotion, promotionIdOfCode, reservePromotionSequence, revisePromotion } from './promotion-store';
import type { DiscountAmount, PromotionTerms } from './discounts';
import { PROMOTION_CODE, type PromotionInput } from './promotion-schemas';

/** A stored promotion. */
export interface PromotionRecord extends PromotionTerms {
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
  /** Its place in the creation-order listing. */
  seq: number;
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

/** The parsed amounts, each in an enabled currency and each currency once; at least one. */
function checkAmounts(amounts: PromotionInput['discount_amounts'], payment: PaymentSettings): DiscountAmount[] {
  if (!amounts?.length) invalid('discount_amounts', 'The property discount_amounts must list at least one amount.', 'required');
  return currencyEntries(amounts, 'discount_amounts', payment.currencies, ({ amount }, currency) => ({ currency, amount }));
}

/** A parsed `expires` resolved in the zone in effect: a date-only value (or any shorthand) is the last moment of its period (conventions.md §13). */
function resolveExpires(value: string | null | undefined, context: PromotionInputContext): number | null {
  if (value === null || value === undefined) return null;
  return parseDateInput(value, { edge: 'last', zone: context.zone, now: context.now, name: 'expires', kind: 'property' });
}

/**
 * Applies a parsed create body or partial update (`promotionCreate` / `promotionUpdate`) to
 * the current fields: sent properties change, null clears where allowed. Only the discount
 * property of the promotion's `discount_type` is kept (the other reads null or `[]`), so a
 * whole object posted back applies as it was; the one the type needs is required.
 */
export function promotionFields(body: PromotionInput, current: PromotionFields | undefined, context: PromotionInputContext): PromotionFields {
  const discountType = body.discount_type ?? current!.discount_type;
  let discountPercent: number | null = null;
  let discountAmounts: DiscountAmount[] = [];
  if (discountType === 'percent') {
    const sent = sends(body, 'discount_percent') || current?.discount_type !== 'percent';
    discountPercent = sent ? (body.discount_percent ?? null) : current!.discount_percent;
    if (discountPercent === null) invalid('discount_percent', 'The property discount_percent is required for percent promotions.', 'required');
  } else {
    const sent = sends(body, 'discount_amounts') || current?.discount_type !== 'amount';
    discountAmounts = sent ? checkAmounts(body.discount_amounts, context.payment) : current!.discount_amounts;
  }
  return {
    name: body.name ?? current!.name,
    code: body.code ?? current!.code,
    active: body.active ?? current?.active ?? true,
    discount_type: discountType,
    discount_percent: discountPercent,
    discount_amounts: discountAmounts,
    product_ids: sends(body, 'product_ids') ? (body.product_ids ?? []) : (current?.product_ids ?? []),
    expires_ms: sends(body, 'expires') ? resolveExpires(body.expires, context) : (current?.expires_ms ?? null),
    max_uses: sends(body, 'max_uses') ? (body.max_uses ?? null) : (current?.max_uses ?? null),
    meta: sends(body, 'meta') ? body.meta : (current?.meta ?? null),
  };
}

export { codeClaimKey } from './promotion-store';

/** Creates a promotion: reserve its listing position, then write record, counter and code claim together. */
export async function createPromotion(scope: RecordScope, body: PromotionInput, context: PromotionInputContext, clock: Clock): Promise<PromotionRecord> {
  const promotionId = body.promotion_id ?? newId();
  const fields = promotionFields(body, undefined, context);
  const start = await startListedRecord(scope, reservePromotionSequence, clock);
  const record: PromotionRecord = { promotion_id: promotionId, type: 'coupon', ...fields, deleted: false, uses: 0, claimed_uses: 0, ...start };
  await insertPromotion(scope, record);
  return record;
}

/**
 * The revision that writes changed fields of a promotion: the store moves it in or out of the
 * listing when `deleted` changes and moves its code claim when the code changes (other than in
 * letter case). It is written conditionally on the version read, so concurrent changes (and the
 * `uses` counters a payment moves) never mix.
 */
export function promotionRevision(current: PromotionRecord, fields: PromotionFields, deleted: boolean, clock: Clock): Revision<PromotionRecord> {
  const next: PromotionRecord = {
    ...current,
    ...(Object.fromEntries(FIELD_NAMES.map((name) => [name, fields[name]])) as PromotionFields),
    // A deleted promotion is inactive (§11); a restored one stays inactive until activated.
    active: deleted ? false : fields.active,
    deleted,
    modified_ms: Math.max(clock.nowMs(), current.modified_ms + 1),
  };
  // Only these attributes change: the use counters, which payments move without touching
  // `modified_ms`, are never overwritten with the values read here.
  const changed: Partial<PromotionRecord> = {
    ...Object.fromEntries(FIELD_NAMES.map((name) => [name, next[name]])),
    deleted,
    modified_ms: next.modified_ms,
  };
  return { next, set: changed };
}

/** Writes `promotionRevision`'s change over the version of `current` (one round: a lost race is a `VersionConflictError`). */
export async function savePromotion(current: PromotionRecord, fields: PromotionFields, deleted: boolean, clock: Clock): Promise<PromotionRecord> {
  return revisePromotion(current, promotionRevision(current, fields, deleted, clock));
}

/** Reads a promotion by id, or undefined (strongly consistent). */
export async function findPromotion(scope: RecordScope, promotionId: string): Promise<PromotionRecord | undefined> {
  return findPromotionRecord(scope, promotionId);
}

/** The promotion a code names (case-insensitively), or undefined: one read of the claim, one of the record. */
export async function findPromotionByCode(scope: RecordScope, code: string): Promise<PromotionRecord | undefined> {
  if (!PROMOTION_CODE.test(code)) return undefined;
  const promotionId = await promotionIdOfCode(scope, code);
  if (promotionId === undefined) return undefined;
  return findPromotion(scope, promotionId);
}
