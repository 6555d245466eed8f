/**
 * Saved payment methods (commerce.md §6.1, §4.2): a customer's saved cards. Each is its own
 * record (`<account>#<mode>#payment_methods#<id>`) holding the `SavedCardRef` and the masked
 * `data`, never the full number or the CVV; a customer's methods are listed per customer (the
 * store's index), in creation order.
 */
import { NotFoundError } from '../../http/errors';
import { newId } from '../../core/ids';
import { mergeAddress } from '../../rest/addresses';
import { declareResource } from '../../rest/declarations';
import { firstPageOf } from '../../rest/offset-list';
import { invalid } from '../../rest/input';
import type { RecordScope } from '../../store/records';
import { cardExpired, maskedCard, type MaskedCard, savedCardRef } from '../payments';
import type { Clock, NewCard, SavedCardRef } from '../../platform/ports';
import {
  customerPaymentMethods,
  findPaymentMethodRecord,
  insertPaymentMethod,
  removePaymentMethod,
  updatePaymentMethodRecord,
} from './payment-method-store';
import type { PaymentMethodUpdateInput } from './payment-method-schemas';

/** A stored saved payment method. */
export interface PaymentMethodRecord {
  payment_method_id: string;
  customer_id: string;
  account_id: string;
  mode: 'live' | 'test';
  type: 'credit_card';
  is_default: boolean;
  /** What the gateway needs to charge it again (brand, last four, expiry, test behaviour). */
  card: SavedCardRef;
  /** `data` as responses show it; `label` may have been changed by the client. */
  data: MaskedCard;
  created_ms: number;
  modified_ms: number;
}

/** The saved payment method declaration (REST conventions engine). */
export const paymentMethodDeclaration = declareResource<PaymentMethodRecord>({
  // `customer.payment_methods` expands to the first page of GET /customers/{id}/payment_methods.
  listedUnder: { customer: async (customerId, context) => firstPageOf(await customerPaymentMethods({ accountId: context.accountId, mode: context.mode }, customerId)) },
  name: 'payment_method',
  collection: 'payment_methods',
  idField: 'payment_method_id',
  permission: 'customers',
  scope: 'mode',
  links: { customer: 'customer' },
  // Customer scope manages its customer's saved methods (commerce.md §0.1).
  customerOf: (stored) => stored.customer_id,
  idOf: (stored) => stored.payment_method_id,
  toJson(stored, context) {
    const customerUrl = context.url(`customers/${encodeURIComponent(stored.customer_id)}`);
    return {
      object: 'payment_method',
      payment_method_id: stored.payment_method_id,
      url: `${customerUrl}/payment_methods/${encodeURIComponent(stored.payment_method_id)}`,
      customer: customerUrl,
      type: stored.type,
      is_default: stored.is_default,
      data: stored.data,
    };
  },
});

/** A new saved method from a verified new card (the number and CVV are dropped here). */
export function newPaymentMethodRecord(scope: RecordScope, customerId: string, card: NewCard | SavedCardRef, isDefault: boolean, now: number, id = newId()): PaymentMethodRecord {
  // A card kept at Stripe arrives as its reference (brand, last four, the Stripe ids): commerce.md §4.7.
  const ref = card.kind === 'new' ? savedCardRef(card) : card;
  return {
    payment_method_id: id,
    customer_id: customerId,
    account_id: scope.accountId,
    mode: scope.mode,
    type: 'credit_card',
    is_default: isDefault,
    card: ref,
    data: maskedCard(ref),
    created_ms: now,
    modified_ms: now,
  };
}

/** A customer's saved methods, oldest first. */
export async function listPaymentMethods(scope: RecordScope, customerId: string): Promise<PaymentMethodRecord[]> {
  return customerPaymentMethods(scope, customerId);
}

/** The customer's saved method, or undefined when it does not exist or belongs to someone else. */
export async function findCustomerPaymentMethod(scope: RecordScope, customerId: string, paymentMethodId: string): Promise<PaymentMethodRecord | undefined> {
  if (!paymentMethodId) return undefined;
  const found = await findPaymentMethodRecord(scope, paymentMethodId);
  return found && found.customer_id === customerId ? found : undefined;
}

/** Like `findCustomerPaymentMethod`, but 404 when missing. */
export async function getCustomerPaymentMethod(scope: RecordScope, customerId: string, paymentMethodId: string): Promise<PaymentMethodRecord> {
  const found = await findCustomerPaymentMethod(scope, customerId, paymentMethodId);
  if (!found) throw new NotFoundError(`The payment method ${paymentMethodId} does not exist.`, { parameter: 'payment_method_id' });
  return found;
}

/** The customer's other methods that are the default now (read now), which a new default clears. */
async function otherDefaults(scope: RecordScope, customerId: string, exceptId: string): Promise<PaymentMethodRecord[]> {
  return (await listPaymentMethods(scope, customerId)).filter((method) => method.is_default && method.payment_method_id !== exceptId);
}

/**
 * Stores a new saved method. When it is the default (asked for, or the customer's first
 * method), the other methods lose `is_default` in the same transaction. `now`: its epoch ms;
 * `id`: the id the gateway already knows it by (Stripe metadata), else a new one.
 */
export async function storePaymentMethod(scope: RecordScope, customerId: string, card: NewCard | SavedCardRef, isDefault: boolean | undefined, now: number, id = newId()): Promise<PaymentMethodRecord> {
  const existing = await listPaymentMethods(scope, customerId);
  const record = newPaymentMethodRecord(scope, customerId, card, isDefault ?? existing.length === 0, now, id);
  const clears = record.is_default ? await otherDefaults(scope, customerId, record.payment_method_id) : [];
  await insertPaymentMethod(scope, record, clears);
  return record;
}

type Changeable = 'exp_month' | 'exp_year' | 'cardholder_name' | 'billing_address' | 'label';

/** A changed property of a parsed update: from `data` when sent there, else from the top level; with its path. */
function changed<K extends Changeable>(body: PaymentMethodUpdateInput, name: K): { at: string; value: Exclude<PaymentMethodUpdateInput[K], undefined> } | undefined {
  const inData = body.data?.[name];
  if (inData !== undefined) return { at: `data.${name}`, value: inData as Exclude<PaymentMethodUpdateInput[K], undefined> };
  const top = body[name];
  return top !== undefined ? { at: name, value: top as Exclude<PaymentMethodUpdateInput[K], undefined> } : undefined;
}

/**
 * The changed method from a parsed `POST /customers/{id}/payment_methods/{id}` body
 * (`paymentMethodUpdate`, which refused a `number` or `cvv`): `is_default`, and in `data` (or
 * at the top level) `exp_month`, `exp_year`, `cardholder_name`, `label`, `billing_address`.
 * A changed expiry that has passed at `now` (epoch ms) is refused (reason `expired`).
 */
export function changedPaymentMethod(current: PaymentMethodRecord, body: PaymentMethodUpdateInput, now: number): PaymentMethodRecord {
  const card: SavedCardRef = { ...current.card };
  const month = changed(body, 'exp_month');
  if (month) card.expMonth = month.value;
  const year = changed(body, 'exp_year');
  if (year) card.expYear = year.value;
  if ((month || year) && cardExpired(card, now)) invalid((year ?? month)!.at, 'The card has expired.', 'expired');
  const name = changed(body, 'cardholder_name');
  if (name) card.cardholderName = name.value;
  const address = changed(body, 'billing_address');
  if (address) card.billingAddress = address.value === null ? null : mergeAddress(undefined, address.value);
  const label = changed(body, 'label');
  return {
    ...current,
    card,
    is_default: body.is_default ?? current.is_default,
    data: { ...maskedCard(card), label: label ? (label.value ?? maskedCard(card).label) : current.data.label },
    modified_ms: Math.max(now, current.modified_ms + 1),
  };
}

/**
 * Applies a parsed update to a customer's saved method (404 when it is not the customer's),
 * over the version read and again after a lost race; `is_default: true` clears the others.
 */
export async function updatePaymentMethod(scope: RecordScope, customerId: string, paymentMethodId: string, body: PaymentMethodUpdateInput, clock: Pick<Clock, 'nowMs'>): Promise<PaymentMethodRecord> {
  return updatePaymentMethodRecord(
    scope,
    paymentMethodId,
    async (current) => {
      const next = changedPaymentMethod(current, body, clock.nowMs());
      return { next, otherDefaults: next.is_default && !current.is_default ? await otherDefaults(scope, current.customer_id, current.payment_method_id) : [] };
    },
    () => getCustomerPaymentMethod(scope, customerId, paymentMethodId),
  );
}

/** Deletes a saved method (one deleted concurrently is no error: the outcome asked for). */
export async function deletePaymentMethod(scope: RecordScope, current: PaymentMethodRecord): Promise<void> {
  await removePaymentMethod(scope, current.payment_method_id);
}

/** A new saved method from a card the gateway already took (its saving-safe part), for a subscription sale's completion. */
export function savedMethodRecord(scope: RecordScope, customerId: string, card: SavedCardRef, isDefault: boolean, now: number, id: string): PaymentMethodRecord {
  return {
    payment_method_id: id,
    customer_id: customerId,
    account_id: scope.accountId,
    mode: scope.mode,
    type: 'credit_card',
    is_default: isDefault,
    card,
    data: maskedCard(card),
    created_ms: now,
    modified_ms: now,
  };
}
