/**
 * Products (commerce.md §2): declaration, validation and storage. Products are an offset
 * collection listed in creation order through the bucketed offset index; soft-deleted
 * products move to a separate listing so the default list (and its total) excludes them.
 */
import type { PaymentSettings } from '../accounts';
import type { Clock } from '../../platform/ports';
import { newId } from '../../core/ids';
import { eventWrites } from '../events';
import { declareResource } from '../../rest/declarations';
import { currencyEntries, invalid, sends } from '../../rest/input';
import { productLinkEntries } from '../licenses';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/records';
import { startListedRecord } from '../../store/offset-index';
import { insertProduct, reserveProductSequence, reviseProduct, type ProductRevision } from './product-store';
import { imageFormattedShape, imageJson, type ImageFacts, productImagesChange, type ProductImagesChange } from '../images';
import { unitPrice, type PriceEntry } from './pricing';
import { PRODUCT_TYPES, type ProductInput } from './product-schemas';

export { PRODUCT_TYPES };

/** The inline subscription plan of a subscription product. */
export interface SubscriptionPlan {
  billing_interval: number;
  billing_interval_unit: 'hour' | 'day' | 'week' | 'month' | 'year';
  end_at_billing_count: number | null;
}

/** A stored product. */
export interface ProductRecord {
  product_id: string;
  account_id: string;
  mode: 'live' | 'test';
  name: string;
  headline: string | null;
  description: string | null;
  type: (typeof PRODUCT_TYPES)[number];
  active: boolean;
  hidden: boolean;
  deleted: boolean;
  prices: PriceEntry[];
  tax_code: string | null;
  subscription_plan: SubscriptionPlan | null;
  license_service_id: string | null;
  /** Listed images in order, and their facts (images.ts); absent on records written before images. */
  image_ids?: string[];
  images?: ImageFacts[];
  meta: unknown;
  created_ms: number;
  modified_ms: number;
  /** Its place in the creation-order listing. */
  seq: number;
}

/** The writable properties of a product, validated. */
type ProductFields = Pick<
  ProductRecord,
  'name' | 'headline' | 'description' | 'type' | 'active' | 'hidden' | 'prices' | 'tax_code' | 'subscription_plan' | 'license_service_id' | 'meta'
>;

function planDescription(plan: SubscriptionPlan): string {
  const unit = plan.billing_interval === 1 ? plan.billing_interval_unit : `${plan.billing_interval_unit}s`;
  const every = `Every ${plan.billing_interval} ${unit}`;
  return plan.end_at_billing_count === null ? every : `${every}, ${plan.end_at_billing_count} times`;
}

/** The product declaration (REST conventions engine). */
export const productDeclaration = declareResource<ProductRecord>({
  name: 'product',
  collection: 'products',
  idField: 'product_id',
  permission: 'products',
  scope: 'mode',
  links: { license_service: 'license_service' },
  // Shoppers see active products only (commerce.md §0.1); expanding a link to another stays a URL.
  visibleTo: (stored, principal) => principal.kind !== 'limited' || (stored.active && !stored.deleted),
  formatted: {
    money: { price: 'currency' },
    dates: ['date_created', 'date_modified'],
    nested: { prices: { money: { price: 'currency' } }, images: imageFormattedShape },
  },
  idOf: (stored) => stored.product_id,
  toJson(stored, context: RenderContext) {
    const url = context.url(`products/${encodeURIComponent(stored.product_id)}`);
    const currency = context.currency;
    return {
      object: 'product',
      url,
      product_id: stored.product_id,
      name: stored.name,
      headline: stored.headline,
      description: stored.description,
      type: stored.type,
      active: stored.active,
      hidden: stored.hidden,
      deleted: stored.deleted,
      prices: stored.prices.map((entry) => ({ ...entry })),
      price: unitPrice(stored.prices, currency, context.payment),
      currency,
      tax_code: stored.tax_code,
      subscription_plan: stored.subscription_plan ? { ...stored.subscription_plan, description: planDescription(stored.subscription_plan) } : null,
      license_service: stored.license_service_id ? context.url(`license_services/${stored.license_service_id}`) : null,
      has_license_service: stored.license_service_id !== null,
      images: (stored.images ?? []).map((image) => imageJson(image, stored, context)),
      test: stored.mode === 'test',
      account_id: stored.account_id,
      meta: stored.meta ?? null,
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
    };
  },
});

/** The parsed prices, each in an enabled currency (upper-cased) and each currency once. */
function checkPrices(prices: readonly { currency: string; price: number }[], payment: PaymentSettings): PriceEntry[] {
  return currencyEntries(prices, 'prices', payment.currencies, (entry, currency) => ({ currency, price: entry.price }));
}

function checkPlan(plan: ProductInput['subscription_plan'], mode: 'live' | 'test'): SubscriptionPlan | null {
  if (!plan) return null;
  if (plan.billing_interval_unit === 'hour' && mode !== 'test') {
    invalid('subscription_plan.billing_interval_unit', 'The property subscription_plan.billing_interval_unit must be one of day, week, month, year.');
  }
  return { billing_interval: plan.billing_interval, billing_interval_unit: plan.billing_interval_unit, end_at_billing_count: plan.end_at_billing_count ?? null };
}

/**
 * Applies a parsed create body or partial update to the current fields: sent properties
 * change, null clears where allowed, read-only and unknown ones were dropped by the schema.
 */
export function productFields(body: ProductInput, current: ProductFields | undefined, payment: PaymentSettings, mode: 'live' | 'test'): ProductFields {
  return {
    name: body.name ?? current!.name,
    headline: sends(body, 'headline') ? body.headline! : (current?.headline ?? null),
    description: sends(body, 'description') ? body.description! : (current?.description ?? null),
    type: body.type ?? current!.type,
    active: body.active ?? current?.active ?? true,
    hidden: body.hidden ?? current?.hidden ?? false,
    prices: body.prices ? checkPrices(body.prices, payment) : current!.prices,
    tax_code: sends(body, 'tax_code') ? body.tax_code! : (current?.tax_code ?? null),
    subscription_plan: sends(body, 'subscription_plan') ? checkPlan(body.subscription_plan, mode) : (current?.subscription_plan ?? null),
    // Whether the service exists (and is of this mode) is `productLinkEntries`' check, with the write.
    license_service_id: sends(body, 'license_service_id') ? (body.license_service_id ?? null) : (current?.license_service_id ?? null),
    meta: sends(body, 'meta') ? body.meta : (current?.meta ?? null),
  };
}

/**
 * Creates a product: reserve its listing position, then write record and counter together, with
 * its images' and license service's link writes (licenses.md §3: the service must exist in this mode).
 */
export async function createProduct(scope: RecordScope, body: ProductInput, payment: PaymentSettings, clock: Clock): Promise<ProductRecord> {
  const productId = body.product_id ?? newId();
  const fields = productFields(body, undefined, payment, scope.mode);
  const images = await productImagesChange(scope, productId, body, undefined);
  const link = await productLinkEntries(scope, null, fields.license_service_id);
  const start = await startListedRecord(scope, reserveProductSequence, clock);
  const record: ProductRecord = { product_id: productId, ...fields, image_ids: images?.fields.image_ids ?? [], images: images?.fields.images ?? [], deleted: false, ...start };
  await insertProduct(scope, record, eventWrites(scope, [{ type: 'product:created', resource: 'product', id: productId, record }], start.created_ms), [...(images?.entries ?? []), ...link]);
  return record;
}

/**
 * The revision that writes changed fields of a product (and its images, with their writes,
 * when `images` is given), moving it in or out of the listing when `deleted` changes; the store
 * writes it conditionally on the version read, so concurrent changes never mix. A changed
 * `license_service_id` is checked and its services' link counters written in the same
 * transaction (licenses.md §3).
 */
export async function productRevision(current: ProductRecord, fields: ProductFields, deleted: boolean, clock: Clock, images?: ProductImagesChange): Promise<ProductRevision> {
  const link = await productLinkEntries({ accountId: current.account_id, mode: current.mode }, current.license_service_id, fields.license_service_id);
  const scope: RecordScope = { accountId: current.account_id, mode: current.mode };
  const next: ProductRecord = { ...current, ...fields, ...images?.fields, deleted, modified_ms: Math.max(clock.nowMs(), current.modified_ms + 1) };
  // commerce.md §14: every change of a product is an event, recorded with the change.
  const type = deleted && !current.deleted ? 'product:deleted' : 'product:modified';
  return { next, events: eventWrites(scope, [{ type, resource: 'product', id: current.product_id, record: next }], next.modified_ms), extra: [...(images?.entries ?? []), ...link] };
}

/** Writes `productRevision`'s change over the version of `current` (one round: a lost race is a `VersionConflictError`). */
export async function saveProduct(current: ProductRecord, fields: ProductFields, deleted: boolean, clock: Clock, images?: ProductImagesChange): Promise<ProductRecord> {
  return reviseProduct(current, await productRevision(current, fields, deleted, clock, images));
}
