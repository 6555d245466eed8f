/**
 * Where saved payment methods live: the payment-method entity (mode-scoped) and a customer's
 * methods through gsi3, in creation order. Making a method the default clears the others'
 * `is_default` in the same transaction; a lost race on a change is a `VersionConflictError`
 * the caller's `retryOnConflict` reads again after.
 */
import { defineEntity, EXISTS, IS_NEW, TransactionRejectedError, writeAll, writeOne, type RecordScope, type TransactEntry } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import type { PaymentMethodRecord } from './payment-methods';

const paymentMethods = defineEntity<PaymentMethodRecord>({ name: 'payment method', collection: 'payment_methods', scope: 'mode', idField: 'payment_method_id',
  indexes: { gsi3: "a customer's saved methods" } });

/** The gsi3 partition listing one customer's saved methods. */
export function customerPaymentMethodsPartition(scope: RecordScope, customerId: string): string {
  return `${scope.accountId}#${scope.mode}#customer-payment-methods#${customerId}`;
}

/** A customer's saved methods, oldest first. */
export async function customerPaymentMethods(scope: RecordScope, customerId: string): Promise<PaymentMethodRecord[]> {
  return paymentMethods.query('gsi3', { KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': customerPaymentMethodsPartition(scope, customerId) } });
}

/** A saved method by id, or undefined (strongly consistent). */
export async function findPaymentMethodRecord(scope: RecordScope, paymentMethodId: string): Promise<PaymentMethodRecord | undefined> {
  return paymentMethods.find(scope, paymentMethodId);
}

const lostRace = () => new VersionConflictError('payment method changed');

/** Entries clearing `is_default` on `others` (each must still exist). */
function clearDefaultEntries(scope: RecordScope, others: readonly PaymentMethodRecord[]): TransactEntry[] {
  return others.map((method) =>
    paymentMethods.updateEntry(scope, method.payment_method_id, { name: 'payment method.clear-default', set: { is_default: false }, condition: EXISTS }),
  );
}

/** Writes a new saved method and clears `is_default` on `otherDefaults` in the same transaction. */
export async function insertPaymentMethod(scope: RecordScope, record: PaymentMethodRecord, otherDefaults: readonly PaymentMethodRecord[]): Promise<void> {
  await writeAll([paymentMethods.putEntry(record, { name: 'payment method.create', condition: IS_NEW }), ...clearDefaultEntries(scope, otherDefaults)]);
}

/**
 * Replaces `current` by `next` if nobody changed it meanwhile, clearing `is_default` on
 * `otherDefaults` in the same transaction; any refusal is a `VersionConflictError` (read again).
 */
export async function savePaymentMethodRecord(scope: RecordScope, current: PaymentMethodRecord, next: PaymentMethodRecord, otherDefaults: readonly PaymentMethodRecord[]): Promise<void> {
  try {
    await writeAll([
      paymentMethods.putEntry(next, { name: 'payment method.save', ifVersion: current.modified_ms, onConditionFailed: lostRace }),
      ...clearDefaultEntries(scope, otherDefaults),
    ]);
  } catch (error) {
    // A cleared method deleted meanwhile, or only concurrent transactions: read again and retry too.
    if (error instanceof TransactionRejectedError) throw lostRace();
    throw error;
  }
}

/** Deletes a saved method; one already deleted meanwhile is the outcome asked for, so that is no error. */
export async function removePaymentMethod(scope: RecordScope, paymentMethodId: string): Promise<void> {
  try {
    await writeOne(paymentMethods.deleteEntry(scope, paymentMethodId, { name: 'payment method.delete', condition: EXISTS }));
  } catch (error) {
    if (!(error instanceof TransactionRejectedError && error.refused('payment method.delete'))) throw error;
  }
}
