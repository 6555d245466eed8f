/**
 * Customer sign-in (commerce.md §6.2, §3.5; auth.md 3.3, 5.3): checking a username and
 * password under the login lockout, minting the customer-scope limited token, giving a
 * limited caller customer scope (one binding), and signing a customer in and out of a cart.
 *
 * A customer-scope token is a limited token whose record carries `customer_id`. The token a
 * sign-in mints also gets uncounted reach over its customer (`customers/<id>`), so the
 * customer's own URL answers it like `/customers/me` does; a limited token that signs in
 * gains the customer as a counted binding, in the same transaction as the sign-in's write.
 */
import type { PaymentSettings, TaxSettings } from '../../modules/accounts';
import { tokenWrites, assertBindingCapacity, bindingWritten, lockoutKey, withLockout, type LoginCheck, customerScopeEntry, newTokenEntries, checkPassword } from '../../modules/identity';
import { type Principal } from '../../core/access/principal';
import { type TokenRecord } from '../../core/access/token-records';
import { assertWritable, updateCart, withTotals, type CartRecord } from '../../modules/carts';
import type { Clock } from '../../platform/ports';
import { transact, type TransactEntry } from '../../store/entity';
import { VersionConflictError } from '../../store/errors';
import { scope as modeScope, type ItemKey } from '../../store/keys';
import type { RecordScope } from '../../store/records';
import { customerIdOfUsername, findCustomerRecord, rehashCustomerPassword, saleCustomerOf, type Credentials, type CustomerRecord } from '../../modules/customers';

export type { Credentials } from '../../modules/customers';

/** The lockout item of a customer username (per account, mode and lowercase username). */
export function customerLockoutKey(scope: RecordScope, username: string): ItemKey {
  return lockoutKey(modeScope(scope.accountId, scope.mode), 'customers', username);
}

/** The customer a username names, or undefined. */
async function customerByUsername(scope: RecordScope, username: string): Promise<CustomerRecord | undefined> {
  const customerId = await customerIdOfUsername(scope, username);
  if (!customerId) return undefined;
  const customer = await findCustomerRecord(scope, customerId);
  return customer && customer.username?.toLowerCase() === username.toLowerCase() ? customer : undefined;
}

/**
 * Checks a customer's username and password under the login lockout (auth.md 5.3) and answers
 * the customer. 401 invalid_login for an unknown username or a customer without a password
 * (neither counted, and as slow as a wrong password) and for a wrong password (counted); 401
 * account_locked while locked. A hash of older parameters is rewritten with the current ones
 * (auth.md 9.3).
 */
export async function signInCustomer(scope: RecordScope, credentials: Credentials, clock: Clock): Promise<CustomerRecord> {
  return withLockout(customerLockoutKey(scope, credentials.username), clock, async (): Promise<LoginCheck<CustomerRecord>> => {
    const customer = await customerByUsername(scope, credentials.username);
    return checkPassword(credentials.password, customer?.password_hash ? { value: customer, hash: customer.password_hash } : undefined, (rehashed) =>
      rehashCustomerPassword(scope, customer!.customer_id, customer!.password_hash!, rehashed),
    );
  });
}

/** The API path a customer is bound and reached by. */
export function customerPath(customerId: string): string {
  return `customers/${customerId}`;
}

/** A limited caller gaining customer scope over a customer with a write. */
interface ScopeGrant {
  principal: Principal | undefined;
  customerId: string;
}

/**
 * Writes `entries` and, with `grant`, the caller's customer-scope entry (the token store's) in
 * one transaction. A refused scope entry is the binding limit (422); a refused first entry, a
 * concurrent change (`VersionConflictError`, for the caller's `retryOnConflict`).
 */
async function writeWithScope(entries: TransactEntry[], grant?: ScopeGrant): Promise<void> {
  const scoped = grant ? customerScopeEntry(grant.principal, customerPath(grant.customerId), grant.customerId) : undefined;
  const [first, ...rest] = entries;
  await transact([{ ...first!, onConditionFailed: () => new VersionConflictError('Changed concurrently during sign-in') }, ...rest, ...(scoped ? [scoped] : [])]);
  if (scoped && grant?.principal) bindingWritten(grant.principal);
}

/**
 * Mints the customer-scope limited token of a sign-in (`POST /customers/login`) and, when a
 * limited token made the call, gives that token customer scope too, all in one transaction:
 * at the caller's 21st binding nothing is issued (422 binding_limit_exceeded).
 */
export async function issueCustomerToken(customer: CustomerRecord, principal: Principal | undefined, clock: Clock): Promise<{ record: TokenRecord; token: string }> {
  const path = customerPath(customer.customer_id);
  if (principal) assertBindingCapacity(principal, path);
  const issued = tokenWrites({ accountId: customer.account_id, mode: customer.mode, kind: 'limited', customerId: customer.customer_id }, clock.nowMs());
  // Uncounted reach over its own customer: `GET /customers/{id}` answers it like `/customers/me`.
  const record: TokenRecord = { ...issued.record, reach: [path] };
  await writeWithScope(newTokenEntries(record), { principal, customerId: customer.customer_id });
  return { record, token: issued.token };
}

/** Settings a cart is re-totalled with (read fresh, as every cart write does). */
export interface CartTotalsSettings {
  payment: PaymentSettings;
  tax: TaxSettings;
}

/**
 * Signs a checked customer in on a cart (`POST /carts/{id}/login`): links it, its details and
 * `tax_exempt` replace the entered ones, `username` is set, the totals follow; a limited
 * caller gains customer scope in the same transaction. The cart is read by id and written under
 * the carts capability's conditions (`updateCart`: read again after a lost race). 422 once
 * paid, 409 while a payment runs.
 */
export async function signInOnCart(scope: RecordScope, cartId: string, customer: CustomerRecord, principal: Principal, settings: CartTotalsSettings, clock: Clock): Promise<CartRecord> {
  let scoped: TransactEntry | undefined;
  const saved = await updateCart(scope, cartId, (current) => {
    assertWritable(current, clock.nowMs());
    assertBindingCapacity(principal, customerPath(customer.customer_id));
    const next = withTotals({ ...current, customer: saleCustomerOf(customer, true), customer_tax_exempt: customer.tax_exempt }, settings.payment, settings.tax);
    scoped = customerScopeEntry(principal, customerPath(customer.customer_id), customer.customer_id);
    return { next, extra: scoped ? [scoped] : [] };
  }, clock, { transaction: true });
  if (scoped) bindingWritten(principal);
  return saved;
}

/**
 * Signs the customer out of a cart (`POST /carts/{id}/logout`): `customer_id` and `username`
 * (and with them the `payment_methods` link) are cleared, the entered details stay, the totals
 * follow. Nothing is written when no customer is signed in. 422 once paid, 409 while a payment runs.
 */
export async function signOutOfCart(scope: RecordScope, cartId: string, settings: CartTotalsSettings, clock: Clock): Promise<CartRecord> {
  return updateCart(scope, cartId, (current) => {
    assertWritable(current, clock.nowMs());
    if (current.customer.customer_id === null && current.customer.username === null && !current.customer_tax_exempt) return { next: current, write: false };
    return { next: withTotals({ ...current, customer: { ...current.customer, customer_id: null, username: null }, customer_tax_exempt: false }, settings.payment, settings.tax) };
  }, clock, { transaction: true });
}
