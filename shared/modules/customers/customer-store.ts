/**
 * Where customers live: the customer entity (cursor-listed by date_created and date_modified)
 * and the username claims that keep a username unique per account and mode. A taken id or
 * username is a 409 in_use naming the property; a lost version race reads and changes again
 * (the entity's versioned update). Checkout takes its customer writes from here as named
 * transaction entries.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { InUseError } from '../../http/errors';
import { db, table } from '../../store/client';
import { byDate, defineEntity, EXISTS, IS_NEW, TransactionRejectedError, writeAll, type Change, type RecordScope, type TransactEntry } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import type { CustomerRecord } from './customers';

const customers = defineEntity<CustomerRecord>({ name: 'customer', collection: 'customers', scope: 'mode', idField: 'customer_id',
  indexes: { gsi1: 'customers by date_created (cursor list)', gsi2: 'customers by date_modified (cursor list, date_type=date_modified)' },
  indexKeys: (customer, partition) => ({
    gsi1: byDate(partition, customer.created_ms, customer.customer_id),
    gsi2: byDate(partition, customer.modified_ms, customer.customer_id),
  }) });

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

/**
 * Applies `change` to a customer over the version read (again after a lost race), moving the
 * username claim when the username changes; answers the customer as written.
 */
export async function updateCustomer(scope: RecordScope, customerId: string, change: Change<CustomerRecord>): Promise<CustomerRecord> {
  return customers.update(scope, customerId, change, { extra: (current, next) => usernameClaimEntries(scope, customerId, current.username, next.username) });
}

/** Keeps the Stripe customer a saved card was made for (commerce.md §4.7), so the next card reuses it. */
export async function rememberStripeCustomer(scope: RecordScope, customerId: string, stripeCustomerId: string): Promise<void> {
  await updateCustomer(scope, customerId, (current) => (current.stripe_customer_id === stripeCustomerId ? { next: current, write: false } : { next: { ...current, stripe_customer_id: stripeCustomerId } }));
}

/**
 * Deletes a customer once `check` allows it (it throws otherwise), unless it has payments
 * meanwhile (then it is read and checked again), and frees its username.
 */
export async function removeCustomer(scope: RecordScope, customerId: string, check: (current: CustomerRecord) => void): Promise<void> {
  await customers.remove(scope, customerId, (current) => {
    check(current);
    return {
      condition: { expression: 'has_payments = :false', values: { ':false': false } },
      onConditionFailed: lostRace,
      extra: usernameClaimEntries(scope, customerId, current.username, null),
    };
  });
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

/**
 * Rewrites a customer's password hash with the current parameters after a successful login
 * (auth.md 9.3), only while the stored hash is still `before` (a concurrent password change
 * wins). It is not a change of the customer: `date_modified` stays.
 */
export async function rehashCustomerPassword(scope: RecordScope, customerId: string, before: string, after: string): Promise<void> {
  try {
    await writeAll([
      customers.updateEntry(scope, customerId, {
        name: 'customer.rehash-password',
        set: { password_hash: after },
        condition: { expression: 'password_hash = :before', values: { ':before': before } },
      }),
    ]);
  } catch (error) {
    if (!(error instanceof TransactionRejectedError)) throw error;
  }
}
