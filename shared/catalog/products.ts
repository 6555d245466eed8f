/**
 * Products (commerce.md §2): declaration, validation and storage. Products are an offset
 * collection listed in creation order through the bucketed offset index; soft-deleted
 * products move to a separate listing so the default list (and its total) excludes them.
 */
import type { PaymentSettings } from '../accounts/settings';
import { nowMs } from '../clock';
import { newId } from '../ids';
import { eventWrites } from '../commerce/events/emit';
import { declareResource } from '../rest/declarations';
import { booleanValue, clientId, invalid, metaValue, numberValue, objectValue, optionalString, requiredString, sends } from '../rest/input';
import type { RenderContext } from '../rest/render-context';
import type { RecordScope } from '../store/records';
import { insertProduct, productKey, productListing, reserveProductPosition, saveProductRecord } from './product-store';
import { imageFormattedShape, imageJson, type ImageFacts } from './images/images';
import { productImagesChange, type ProductImagesChange } from './images/product-images';
import { unitPrice, type PriceEntry } from './pricing';

/** Product types. */
export const PRODUCT_TYPES = ['digital', 'physical', 'service'] as const;

/** The inline subscription plan of a subscription product. */
export interface SubscriptionPlan {
  billing_interval: number;
  billing_interval_unit: 'hour' | 'day' | 'week' | 'month' | 'year';
  end_at_billing_count: number | null;
}

/** A stored product. */
export interface ProductRecord {
  pk: string;
  sk: string;
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
  seq: number;
  gsi1pk: string;
  gsi1sk: string;
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

function parsePrices(value: unknown, payment: PaymentSettings): PriceEntry[] {
  if (!Array.isArray(value) || value.length === 0) invalid('prices', 'The property prices must list at least one price.', 'required');
  const seen = new Set<string>();
  return value.map((entry, index) => {
    const at = `prices[${index}]`;
    const object = objectValue(entry, at);
    if (!object) invalid(at, `The property ${at} must be an object.`);
    if (typeof object.currency !== 'string') invalid(`${at}.currency`, `The property ${at}.currency is required.`, 'required');
    const currency = object.currency.toUpperCase();
    if (!payment.currencies.includes(currency)) invalid(`${at}.currency`, `The currency ${object.currency} is not enabled for this account.`);
    if (seen.has(currency)) invalid(`${at}.currency`, `The currency ${currency} is listed twice.`, 'conflict');
    seen.add(currency);
    return { currency, price: numberValue(object.price, `${at}.price`, { min: 0 }) };
  });
}

function parsePlan(value: unknown, mode: 'live' | 'test'): SubscriptionPlan | null {
  const plan = objectValue(value, 'subscription_plan');
  if (!plan) return null;
  const units = mode === 'test' ? ['hour', 'day', 'week', 'month', 'year'] : ['day', 'week', 'month', 'year'];
  if (typeof plan.billing_interval_unit !== 'string' || !units.includes(plan.billing_interval_unit)) {
    invalid('subscription_plan.billing_interval_unit', `The property subscription_plan.billing_interval_unit must be one of ${units.join(', ')}.`);
  }
  const count = plan.end_at_billing_count;
  return {
    billing_interval: numberValue(plan.billing_interval, 'subscription_plan.billing_interval', { integer: true, min: 1, max: 365 }),
    billing_interval_unit: plan.billing_interval_unit as SubscriptionPlan['billing_interval_unit'],
    end_at_billing_count:
      count === null || count === undefined ? null : numberValue(count, 'subscription_plan.end_at_billing_count', { integer: true, min: 1 }),
  };
}

/**
 * Validates a create body or a partial update against the current fields: sent properties
 * change, null clears where allowed, read-only and unknown ones are ignored.
 */
export function productFields(body: Record<string, unknown>, current: ProductFields | undefined, payment: PaymentSettings, mode: 'live' | 'test'): ProductFields {
  const has = (property: string) => sends(body, property) || !current;
  const type = has('type') ? body.type : current!.type;
  if (typeof type !== 'string' || !(PRODUCT_TYPES as readonly string[]).includes(type)) {
    invalid('type', 'The property type must be digital, physical or service.', type === undefined ? 'required' : 'invalid');
  }
  if (sends(body, 'license_service_id') && body.license_service_id !== null && body.license_service_id !== '') {
    // License services arrive with their own capability; until then no id can exist.
    invalid('license_service_id', `The license service ${String(body.license_service_id)} does not exist.`, 'not_found');
  }
  return {
    name: has('name') ? requiredString(body.name, 'name', 200) : current!.name,
    headline: sends(body, 'headline') ? optionalString(body.headline, 'headline', 500) : (current?.headline ?? null),
    description: sends(body, 'description') ? optionalString(body.description, 'description', 100_000) : (current?.description ?? null),
    type: type as ProductFields['type'],
    active: sends(body, 'active') ? booleanValue(body.active, 'active') : (current?.active ?? true),
    hidden: sends(body, 'hidden') ? booleanValue(body.hidden, 'hidden') : (current?.hidden ?? false),
    prices: has('prices') ? parsePrices(body.prices, payment) : current!.prices,
    tax_code: sends(body, 'tax_code') ? optionalString(body.tax_code, 'tax_code', 100) : (current?.tax_code ?? null),
    subscription_plan: sends(body, 'subscription_plan') ? parsePlan(body.subscription_plan, mode) : (current?.subscription_plan ?? null),
    license_service_id: current?.license_service_id ?? null,
    meta: sends(body, 'meta') ? metaValue(body.meta) : (current?.meta ?? null),
  };
}

/** Creates a product: reserve its listing position, then write record and counter together. */
export async function createProduct(scope: RecordScope, body: Record<string, unknown>, payment: PaymentSettings): Promise<ProductRecord> {
  const productId = sends(body, 'product_id') && body.product_id !== null && body.product_id !== '' ? clientId(body.product_id, 'product_id', []) : newId();
  const fields = productFields(body, undefined, payment, scope.mode);
  const images = await productImagesChange(scope, productId, body, undefined);
  const position = await reserveProductPosition(scope);
  const now = nowMs();
  const record: ProductRecord = {
    ...productKey(scope, productId),
    product_id: productId,
    account_id: scope.accountId,
    mode: scope.mode,
    ...fields,
    image_ids: images?.fields.image_ids ?? [],
    images: images?.fields.images ?? [],
    deleted: false,
    created_ms: now,
    modified_ms: now,
    ...position,
  };
  await insertProduct(scope, record, eventWrites(scope, [{ type: 'product:created', resource: 'product', id: productId }], now), images?.entries);
  return record;
}

/**
 * Writes changed fields of a product (and its images, with their writes, when `images` is
 * given), and moves it in or out of the listing when `deleted` changes; the write is
 * conditional on the version read, so concurrent changes never mix.
 */
export async function saveProduct(current: ProductRecord, fields: ProductFields, deleted: boolean, images?: ProductImagesChange): Promise<ProductRecord> {
  const scope: RecordScope = { accountId: current.account_id, mode: current.mode };
  const partition = productListing(scope);
  const listing = deleted ? `${partition}#deleted` : partition;
  const next: ProductRecord = { ...current, ...fields, ...images?.fields, deleted, modified_ms: Math.max(nowMs(), current.modified_ms + 1), gsi1pk: listing };
  // commerce.md §14: every change of a product is an event, recorded with the change.
  const type = deleted && !current.deleted ? 'product:deleted' : 'product:modified';
  await saveProductRecord(current, next, eventWrites(scope, [{ type, resource: 'product', id: current.product_id }], next.modified_ms), images?.entries);
  return next;
}
