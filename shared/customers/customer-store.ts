/** The customers entity: the writes a completed sale makes to a customer. */
import { defineEntity, type RecordScope } from '../store/entity';
import type { TransactEntry } from '../store/transact';
import type { CustomerRecord } from './customers';

/** Customers (mode-scoped), by date_created (gsi1) and date_modified (gsi2). */
export const customers = defineEntity<CustomerRecord>({
  name: 'customer',
  collection: 'customers',
  scope: 'mode',
  idField: 'customer_id',
  indexes: { gsi1: 'customers by date_created', gsi2: 'customers by date_modified' },
});

/** Marks a saved customer as having paid (it can no longer be deleted). */
export function hasPaymentsEntry(scope: RecordScope, customerId: string): TransactEntry {
  return customers.updateEntry(scope, customerId, { name: 'customer.has-payments', set: { has_payments: true }, condition: { expression: 'attribute_exists(pk)' } });
}

/** Creates the customer of a guest sale (its id must be new). */
export function createFromSaleEntry(record: CustomerRecord): TransactEntry {
  return customers.putEntry(record, { ifNew: true, name: 'customer.create-from-sale' });
}
