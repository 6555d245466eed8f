/**
 * Shipping methods (commerce.md §2.1): declaration, validation and storage. A mode-scoped
 * offset collection with client-chosen ids, listed in creation order through the bucketed
 * offset index. Deletes are hard: carts keep the terms they were quoted with until their next
 * write, and orders copy the shipping line, so nothing links to a deleted method.
 */
import type { PaymentSettings } from '../accounts';
import type { Clock } from '../../platform/ports';
import { newId } from '../../core/ids';
import { declareResource } from '../../rest/declarations';
import { currencyEntries, sends } from '../../rest/input';
import type { RenderContext } from '../../rest/render-context';
import type { Revision } from '../../store/entity';
import type { RecordScope } from '../../store/records';
import { startListedRecord } from '../../store/offset-index';
import { allShippingMethods, findShippingMethodRecord, insertShippingMethod, reserveShippingMethodSequence } from './shipping-method-store';
import type { ShippingMethodTerms } from './quotes';
import type { ShippingMethodInput } from './shipping-method-schemas';

/** A stored shipping method. */
export interface ShippingMethodRecord extends ShippingMethodTerms {
  account_id: string;
  mode: 'live' | 'test';
  active: boolean;
  meta: unknown;
  created_ms: number;
  modified_ms: number;
  /** Its place in the creation-order listing. */
  seq: number;
}

/** The writable properties of a shipping method, validated. */
export type ShippingMethodFields = Pick<ShippingMethodRecord, 'name' | 'description' | 'details' | 'active' | 'countries' | 'prices' | 'meta'>;

/** The path of a shipping method below the API root. */
export function shippingMethodPath(methodId: string): string {
  return `shipping_methods/${encodeURIComponent(methodId)}`;
}

/** The shipping method declaration (REST conventions engine). */
export const shippingMethodDeclaration = declareResource<ShippingMethodRecord>({
  name: 'shipping_method',
  collection: 'shipping_methods',
  idField: 'shipping_method_id',
  permission: 'settings',
  scope: 'mode',
  formatted: {
    dates: ['date_created', 'date_modified'],
    nested: { prices: { money: { price: 'currency' } } },
  },
  idOf: (stored) => stored.shipping_method_id,
  toJson(stored, context: RenderContext) {
    return {
      object: 'shipping_method',
      url: context.url(shippingMethodPath(stored.shipping_method_id)),
      shipping_method_id: stored.shipping_method_id,
      name: stored.name,
      description: stored.description,
      details: stored.details,
      active: stored.active,
      countries: [...stored.countries],
      prices: stored.prices.map((entry) => ({ ...entry })),
      test: stored.mode === 'test',
      account_id: stored.account_id,
      meta: stored.meta ?? null,
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
    };
  },
});

/** The quoting terms of a method (what a cart keeps). */
export function termsOfMethod(method: ShippingMethodTerms): ShippingMethodTerms {
  return {
    shipping_method_id: method.shipping_method_id,
    name: method.name,
    description: method.description,
    details: method.details,
    countries: [...method.countries],
    prices: method.prices.map((entry) => ({ currency: entry.currency, price: entry.price })),
  };
}

/** The parsed prices, each in an enabled currency and each currency once (400 invalid_input otherwise). */
function checkPrices(prices: NonNullable<ShippingMethodInput['prices']>, payment: PaymentSettings): ShippingMethodRecord['prices'] {
  return currencyEntries(prices, 'prices', payment.currencies, ({ price }, currency) => ({ currency, price }));
}

/**
 * Applies a parsed create body or partial update (`shippingMethodCreate` / `shippingMethodUpdate`)
 * to the current fields: sent properties change, null clears where allowed; the currencies are
 * checked against the account's.
 */
export function shippingMethodFields(body: ShippingMethodInput, current: ShippingMethodFields | undefined, payment: PaymentSettings): ShippingMethodFields {
  return {
    name: body.name ?? current!.name,
    description: sends(body, 'description') ? (body.description ?? null) : (current?.description ?? null),
    details: sends(body, 'details') ? (body.details ?? null) : (current?.details ?? null),
    active: body.active ?? current?.active ?? true,
    countries: sends(body, 'countries') ? (body.countries ?? []) : (current?.countries ?? []),
    prices: sends(body, 'prices') ? checkPrices(body.prices ?? [], payment) : (current?.prices ?? []),
    meta: sends(body, 'meta') ? body.meta : (current?.meta ?? null),
  };
}

/** Creates a shipping method: reserve its listing position, then write record and counter together. */
export async function createShippingMethod(scope: RecordScope, body: ShippingMethodInput, payment: PaymentSettings, clock: Clock): Promise<ShippingMethodRecord> {
  const methodId = body.shipping_method_id ?? newId();
  const fields = shippingMethodFields(body, undefined, payment);
  const record: ShippingMethodRecord = { shipping_method_id: methodId, ...fields, ...(await startListedRecord(scope, reserveShippingMethodSequence, clock)) };
  await insertShippingMethod(scope, record);
  return record;
}

/** The revision that writes changed fields of a method (the store writes it over the version read). */
export function shippingMethodRevision(current: ShippingMethodRecord, fields: ShippingMethodFields, clock: Clock): Revision<ShippingMethodRecord> {
  return { next: { ...current, ...fields, modified_ms: Math.max(clock.nowMs(), current.modified_ms + 1) } };
}

/** Reads a shipping method by id, or undefined (strongly consistent). */
export async function findShippingMethod(scope: RecordScope, methodId: string): Promise<ShippingMethodRecord | undefined> {
  return findShippingMethodRecord(scope, methodId);
}

/** Every active method of a scope, as quoting terms (what a cart write keeps). */
export async function activeShippingMethods(scope: RecordScope): Promise<ShippingMethodTerms[]> {
  const all = await allShippingMethods(scope);
  return all.filter((method) => method.active).map(termsOfMethod);
}
