/**
 * Where saved payment methods live: the payment-method entity (mode-scoped) and a customer's
 * methods through gsi3, in creation order. Making a method the default clears the others'
 * `is_default` in the same transaction; a lost race on a change reads and changes again (the
 * entity's versioned update).
 */
import { byDate, defineEntity, EXISTS, IS_NEW, TransactionRejectedError, writeAll, writeOne, type RecordScope, type TransactEntry } from '../../store/entity';
import type { PaymentMethodRecord } from './payment-methods';

/** The gsi3 partition listing one customer's saved methods. */
function customerPaymentMethodsPartition(scope: RecordScope, customerId: string): string {
  return `${scope.accountId}#${scope.mode}#customer-payment-methods#${customerId}`;
}

const paymentMethods = defineEntity<PaymentMethodRecord>({ name: 'payment method', collection: 'payment_methods', scope: 'mode', idField: 'payment_method_id',
  indexes: { gsi3: "a customer's saved methods" },
  indexKeys: (method) => ({
    gsi3: byDate(customerPaymentMethodsPartition({ accountId: method.account_id, mode: method.mode }, method.customer_id), method.created_ms, method.payment_method_id),
  }) });

/** A customer's saved methods, oldest first. */
export async function customerPaymentMethods(scope: RecordScope, customerId: string): Promise<PaymentMethodRecord[]> {
  return paymentMethods.query('gsi3', { KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': customerPaymentMethodsPartition(scope, customerId) } });
}

/** A saved method by id, or undefined (strongly consistent). */
export async function findPaymentMethodRecord(scope: RecordScope, paymentMethodId: string): Promise<PaymentMethodRecord | undefined> {
  return paymentMethods.find(scope, paymentMethodId);
}

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

/** What a change of a saved method decides: the method after it, and the other methods that lose `is_default` with it. */
export interface PaymentMethodChange {
  next: PaymentMethodRecord;
  otherDefaults: readonly PaymentMethodRecord[];
}

/**
 * Applies `change` to the saved method `read` answers, over the version read, clearing
 * `is_default` on the change's `otherDefaults` in the same transaction. Any refusal (a cleared
 * method deleted meanwhile, or only concurrent transactions) reads and changes again.
 */
export function updatePaymentMethodRecord(
  scope: RecordScope,
  paymentMethodId: string,
  change: (current: PaymentMethodRecord) => Promise<PaymentMethodChange>,
  read: () => Promise<PaymentMethodRecord>,
): Promise<PaymentMethodRecord> {
  return paymentMethods.update(
    scope,
    paymentMethodId,
    async (current) => {
      const { next, otherDefaults } = await change(current);
      return { next, extra: clearDefaultEntries(scope, otherDefaults) };
    },
    { read, refusalIsConflict: true },
  );
}

/** Deletes a saved method; one already deleted meanwhile is the outcome asked for, so that is no error. */
export async function removePaymentMethod(scope: RecordScope, paymentMethodId: string): Promise<void> {
  try {
    await writeOne(paymentMethods.deleteEntry(scope, paymentMethodId, { name: 'payment method.delete', condition: EXISTS }));
  } catch (error) {
    if (!(error instanceof TransactionRejectedError && error.refused('payment method.delete'))) throw error;
  }
}

/** The entry that creates a saved method in another write's transaction (a subscription sale's card, saved with its order). */
export function createPaymentMethodEntry(record: PaymentMethodRecord): TransactEntry {
  return paymentMethods.putEntry(record, { name: 'payment method.create', condition: IS_NEW });
}
