/**
 * Customers (commerce.md §6.1): declaration, validation and storage. Customers are a cursor
 * collection (by date_created and by date_modified). A username is unique per account
 * and mode, case-insensitively, through a claim item written in the same transaction.
 */
import type { Dated } from '../../store/keys';
import { hashPassword } from '../identity';
import { InsufficientPermissionsError } from '../../http/auth-errors';
import type { Clock } from '../../platform/ports';
import { InvalidStateError } from '../../http/errors';
import { newId } from '../../core/ids';
import { addressJson, emptyAddress, mergeAddress, type Address } from '../../rest/addresses';
import { declareResource } from '../../rest/declarations';
import { invalid, sends } from '../../rest/input';
import type { Revision } from '../../store/entity';
import type { RecordScope } from '../../store/records';
import { insertCustomer, removeCustomer } from './customer-store';
import type { CustomerInput, SaleCustomerInput } from './customer-schemas';

/** The contact details and addresses a saved customer holds and a sale's inline customer copies. */
export interface CustomerDetails {
  name: string | null;
  email: string | null;
  company_name: string | null;
  phone: string | null;
  tax_number: string | null;
  billing_address: Address;
  shipping_address: Address;
}

/** The inline sale customer of a cart or invoice (commerce.md §1.5). */
export interface SaleCustomer extends CustomerDetails {
  customer_id: string | null;
  /** Set while a saved customer is signed in on the sale. */
  username: string | null;
}

/** A stored customer. */
export interface CustomerRecord extends Dated, CustomerDetails {
  customer_id: string;
  account_id: string;
  mode: 'live' | 'test';
  username: string | null;
  password_hash: string | null;
  tax_exempt: boolean;
  has_payments: boolean;
  locale: string | null;
  meta: unknown;
  /** Lowercase name, email and username, for `q`. */
  search_text: string;
  /** The Stripe customer its cards are saved for (commerce.md §4.7), once one was made; never shown. */
  stripe_customer_id?: string;
}

const SUB_COLLECTIONS = ['payment_methods', 'payments', 'refunds', 'orders', 'subscriptions', 'invoices'] as const;
const ADDRESS_SHAPE = { countries: ['country'] } as const;

/** The customer declaration (REST conventions engine). */
export const customerDeclaration = declareResource<CustomerRecord>({
  name: 'customer',
  collection: 'customers',
  idField: 'customer_id',
  permission: 'customers',
  scope: 'mode',
  // The listed resources arrive with their own capabilities; until then these stay URLs.
  subCollections: {
    payment_methods: { resource: 'payment_method' },
    payments: { resource: 'payment' },
    refunds: { resource: 'refund' },
    orders: { resource: 'order' },
    subscriptions: { resource: 'subscription' },
    invoices: { resource: 'invoice' },
  },
  formatted: {
    dates: ['date_created', 'date_modified'],
    nested: { billing_address: ADDRESS_SHAPE, shipping_address: ADDRESS_SHAPE },
  },
  // Customer scope reads and updates its own customer (commerce.md §0.1).
  customerOf: (stored) => stored.customer_id,
  idOf: (stored) => stored.customer_id,
  toJson(stored, context) {
    const url = context.url(`customers/${encodeURIComponent(stored.customer_id)}`);
    const json: Record<string, unknown> = {
      object: 'customer',
      url,
      customer_id: stored.customer_id,
      account_id: stored.account_id,
      test: stored.mode === 'test',
      date_created: context.date(stored.created_ms),
      date_modified: context.date(stored.modified_ms),
      company_name: stored.company_name,
      name: stored.name,
      email: stored.email,
      phone: stored.phone,
      username: stored.username,
      tax_number: stored.tax_number,
      billing_address: addressJson(stored.billing_address),
      shipping_address: addressJson(stored.shipping_address),
      tax_exempt: stored.tax_exempt,
      has_payments: stored.has_payments,
      locale: stored.locale,
      meta: stored.meta ?? null,
    };
    for (const name of SUB_COLLECTIONS) json[name] = `${url}/${name}`;
    return json;
  },
});

/** The writable fields of a customer, after a change. */
type CustomerFields = Pick<
  CustomerRecord,
  'name' | 'email' | 'company_name' | 'phone' | 'tax_number' | 'username' | 'billing_address' | 'shipping_address' | 'tax_exempt' | 'locale' | 'meta'
> & { password?: string };

type TextField = 'name' | 'email' | 'company_name' | 'phone' | 'tax_number' | 'username' | 'locale';

/**
 * Applies a parsed create body or partial update (`customerCreate` / `customerUpdate`) to the
 * current customer: sent properties change, null clears, addresses merge property by property.
 */
export function customerFields(body: CustomerInput, current: CustomerRecord | undefined): CustomerFields {
  const text = (property: TextField) => (sends(body, property) ? (body[property] ?? null) : (current?.[property] ?? null));
  return {
    name: text('name'),
    email: text('email'),
    company_name: text('company_name'),
    phone: text('phone'),
    tax_number: text('tax_number'),
    username: text('username'),
    billing_address: mergeAddress(current?.billing_address, body.billing_address),
    shipping_address: mergeAddress(current?.shipping_address, body.shipping_address),
    tax_exempt: body.tax_exempt ?? current?.tax_exempt ?? false,
    locale: text('locale'),
    meta: sends(body, 'meta') ? body.meta : (current?.meta ?? null),
    ...(typeof body.password === 'string' ? { password: body.password } : {}),
  };
}

function searchText(fields: CustomerFields): string {
  return [fields.name, fields.email, fields.username].filter(Boolean).join(' ').toLowerCase();
}

/** Creates a customer (client-chosen or generated id). */
export async function createCustomer(scope: RecordScope, body: CustomerInput, clock: Clock): Promise<CustomerRecord> {
  const customerId = body.customer_id ?? newId();
  const { password, ...fields } = customerFields(body, undefined);
  const now = clock.nowMs();
  const record: CustomerRecord = {
    customer_id: customerId,
    account_id: scope.accountId,
    mode: scope.mode,
    ...fields,
    password_hash: password === undefined ? null : await hashPassword(password),
    has_payments: false,
    search_text: searchText(fields),
    created_ms: now,
    modified_ms: now,
  };
  await insertCustomer(scope, record);
  return record;
}

/** The revision a partial update makes of the customer read (`updateCustomer` writes it over that version). */
export async function changeCustomer(current: CustomerRecord, body: CustomerInput, clock: Clock): Promise<Revision<CustomerRecord>> {
  const { password, ...fields } = customerFields(body, current);
  const now = Math.max(clock.nowMs(), current.modified_ms + 1);
  const next: CustomerRecord = {
    ...current,
    ...fields,
    password_hash: password === undefined ? current.password_hash : await hashPassword(password),
    search_text: searchText(fields),
    modified_ms: now,
  };
  return { next };
}

/** A customer-scope token's update of its own customer: any update but `tax_exempt`, which is read-only for it (commerce.md §0.1). */
export function changeOwnCustomer(current: CustomerRecord, body: CustomerInput, clock: Clock): Promise<Revision<CustomerRecord>> {
  const { tax_exempt: _readOnly, ...rest } = body;
  return changeCustomer(current, rest, clock);
}

/**
 * The one update a limited token may make to the customer of a sale it paid (commerce.md §0.1,
 * auth.md 3.3; the receipt page's "create an account"): it sets `username` and `password`, both
 * required and validated as in any update, while the customer has neither. Every other property
 * of the body is ignored. Once a login exists the token has no right left on the customer: 403.
 */
export async function addLoginAfterSale(current: CustomerRecord, body: CustomerInput, clock: Clock): Promise<Revision<CustomerRecord>> {
  if (current.username !== null || current.password_hash !== null) {
    throw new InsufficientPermissionsError('This customer already has a login. Sign in to change it.');
  }
  for (const property of ['username', 'password'] as const) {
    const value = body[property];
    if (value === undefined || value === null || value === '') invalid(property, `The property ${property} is required.`, 'required');
  }
  return changeCustomer(current, { username: body.username, password: body.password }, clock);
}

/** Deletes a customer without payments, and frees its username. */
export async function deleteCustomer(scope: RecordScope, customerId: string): Promise<void> {
  await removeCustomer(scope, customerId, (current) => {
    if (current.has_payments) throw new InvalidStateError('A customer with payments cannot be deleted.', { reason: 'has_payments' });
  });
}

/** A new customer made from a paid sale's customer (guests are never matched by email, §5.1). */
export function customerFromSale(
  scope: RecordScope,
  customerId: string,
  sale: CustomerDetails,
  now: number,
): CustomerRecord {
  const fields = { name: sale.name, email: sale.email, username: null } as CustomerFields;
  return {
    customer_id: customerId,
    account_id: scope.accountId,
    mode: scope.mode,
    name: sale.name,
    email: sale.email,
    company_name: sale.company_name,
    phone: sale.phone,
    tax_number: sale.tax_number,
    username: null,
    password_hash: null,
    billing_address: sale.billing_address,
    shipping_address: sale.shipping_address,
    tax_exempt: false,
    has_payments: true,
    locale: null,
    meta: null,
    search_text: searchText(fields),
    created_ms: now,
    modified_ms: now,
  };
}

/** Contact details and addresses with every property null. */
function emptyCustomerDetails(): CustomerDetails {
  return { name: null, email: null, company_name: null, phone: null, tax_number: null, billing_address: emptyAddress(), shipping_address: emptyAddress() };
}

/**
 * A body's `customer` merged over sale customer details, property by property (commerce.md
 * §1.5): sent properties change, omitted ones stay, null clears; addresses merge the same way.
 */
export function mergeSaleDetails<D extends CustomerDetails>(current: D, patch: NonNullable<SaleCustomerInput>): D {
  const next = { ...current };
  for (const name of ['name', 'email', 'company_name', 'phone', 'tax_number'] as const) {
    const value = patch[name];
    if (value !== undefined) next[name] = value;
  }
  if (patch.billing_address !== undefined) next.billing_address = mergeAddress(current.billing_address, patch.billing_address);
  if (patch.shipping_address !== undefined) next.shipping_address = mergeAddress(current.shipping_address, patch.shipping_address);
  return next;
}

/**
 * The details a body's `customer` holds on its own, over empty ones: a direct payment's payer
 * (commerce.md §4.3), who becomes a new customer when the payment completes. Undefined when no
 * detail was sent (absent, null, or only nulls and empty addresses).
 */
export function saleDetailsOf(patch: SaleCustomerInput): CustomerDetails | undefined {
  if (!patch) return undefined;
  const details = mergeSaleDetails(emptyCustomerDetails(), patch);
  const filled = (value: unknown): boolean =>
    value !== null && value !== undefined && (typeof value !== 'object' || Object.values(value).some(filled));
  return Object.values(details).some(filled) ? details : undefined;
}

/**
 * The sale customer a saved customer makes (commerce.md §1.5): its link, details and full
 * addresses; `username` only when it signs in on the sale (a linked customer is not signed in).
 */
export function saleCustomerOf(saved: CustomerRecord, signedIn: boolean): SaleCustomer {
  return {
    customer_id: saved.customer_id,
    name: saved.name,
    email: saved.email,
    company_name: saved.company_name,
    phone: saved.phone,
    tax_number: saved.tax_number,
    username: signedIn ? saved.username : null,
    billing_address: { ...emptyAddress(), ...saved.billing_address },
    shipping_address: { ...emptyAddress(), ...saved.shipping_address },
  };
}
