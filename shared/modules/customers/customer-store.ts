/**
 * Where customers live: the customer entity (cursor-listed by date_created and date_modified)
 * and the username claims that keep a username unique per account and mode. A taken id or
 * username is a 409 in_use naming the property; a lost version race is a
 * `VersionConflictError` the caller's `retryOnConflict` reads again after. Checkout takes its
 * customer writes from here as named transaction entries.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { InUseError } from '../../http/errors';
import { db, table } from '../../store/client';
import { defineEntity, EXISTS, IS_NEW, writeAll, type RecordScope, type TransactEntry } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import type { CustomerRecord } from './customers';

const customers = defineEntity<CustomerRecord>({ name: 'customer', collection: 'customers', scope: 'mode', idField: 'customer_id',
  indexes: { gsi1: 'customers by date_created (cursor list)', gsi2: 'customers by date_modified (cursor list, date_type=date_modified)' } });

/** The key of a customer record. */
export function customerKey(scope: RecordScope, customerId: string): { pk: string; sk: string } {
  return customers.key(scope, customerId);
}

/** The listing partition of the customers of a scope (gsi1pk and gsi2pk). */
export function customerListing(scope: RecordScope): string {
  return customers.partition(scope);
}

/** The claim that makes a username unique per account and mode (it holds `customer_id`). */
export function usernameClaimKey(scope: RecordScope, username: string): { pk: string; sk: string } {
  return { pk: `${scope.accountId}#${scope.mode}#customer-username#${username.toLowerCase()}`, sk: 'claim' };
}

const lostRace = () => new VersionConflictError('Customer changed concurrently');

/** Claim entries for a username change; none when only the letter case changes. */
function usernameClaimEntries(scope: RecordScope, customerId: string, before: string | null, after: string | null): TransactEntry[] {
  if ((before ?? '').toLowerCase() === (after ?? '').toLowerCase()) return [];
  const entries: TransactEntry[] = [];
  if (after) {
    entries.push({
      name: 'customer.claim-username',
      item: { Put: { TableName: table(), Item: { ...usernameClaimKey(scope, after), customer_id: customerId }, ConditionExpression: IS_NEW.expression } },
      onConditionFailed: () => new InUseError('The username is already taken.', { property: 'username', reason: 'conflict' }),
    });
  }
  if (before) entries.push({ name: 'customer.release-username', item: { Delete: { TableName: table(), Key: usernameClaimKey(scope, before) } } });
  return entries;
}

/** Writes a new customer and claims its username; a taken customer_id or username answers 409 in_use. */
export async function insertCustomer(scope: RecordScope, record: CustomerRecord): Promise<void> {
  await writeAll([
    customers.putEntry(record, {
      name: 'customer.create',
      ifNew: true,
      onConditionFailed: () => new InUseError(`The customer id ${record.customer_id} is already in use.`, { property: 'customer_id', reason: 'conflict' }),
    }),
    ...usernameClaimEntries(scope, record.customer_id, null, record.username),
  ]);
}

/** Replaces `current` by `next` if nobody changed it meanwhile, moving the username claim when the username changes. */
export async function saveCustomerRecord(current: CustomerRecord, next: CustomerRecord): Promise<void> {
  const scope = { accountId: current.account_id, mode: current.mode };
  await writeAll([
    customers.putEntry(next, { name: 'customer.save', ifVersion: current.modified_ms, onConditionFailed: lostRace }),
    ...usernameClaimEntries(scope, current.customer_id, current.username, next.username),
  ]);
}

/** Deletes a customer unless it has payments meanwhile (then `VersionConflictError`: read again), and frees its username. */
export async function removeCustomer(current: CustomerRecord): Promise<void> {
  const scope = { accountId: current.account_id, mode: current.mode };
  await writeAll([
    customers.deleteEntry(scope, current.customer_id, {
      name: 'customer.delete',
      condition: { expression: 'has_payments = :false', values: { ':false': false } },
      onConditionFailed: lostRace,
    }),
    ...usernameClaimEntries(scope, current.customer_id, current.username, null),
  ]);
}

/** The id of the customer a username is claimed by (case-insensitively), or undefined. */
export async function customerIdOfUsername(scope: RecordScope, username: string): Promise<string | undefined> {
  const claim = await db().send(new GetCommand({ TableName: table(), Key: usernameClaimKey(scope, username), ConsistentRead: true }));
  return claim.Item?.customer_id as string | undefined;
}

/** A customer by id, or undefined (strongly consistent). */
export async function findCustomerRecord(scope: RecordScope, customerId: string): Promise<CustomerRecord | undefined> {
  return customers.find(scope, customerId);
}

/** Marks an existing customer as having payments (it can no longer be deleted), in the payment's transaction. */
export function hasPaymentsEntry(scope: RecordScope, customerId: string): TransactEntry {
  return customers.updateEntry(scope, customerId, { name: 'customer.has-payments', set: { has_payments: true }, condition: EXISTS });
}

/** Creates the customer a paid sale makes (`customerFromSale`), in the payment's transaction. */
export function createFromSaleEntry(record: CustomerRecord): TransactEntry {
  return customers.putEntry(record, { name: 'customer.create-from-sale', ifNew: true });
}
