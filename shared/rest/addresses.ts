/** The address object (commerce.md §1.5): validated, merged property by property, rendered. */
import { isCountryCode } from './formatted';
import { invalid, metaValue, objectValue, optionalEmail, optionalString, sends } from './input';

/** A stored address. */
export interface Address {
  name: string | null;
  address_1: string | null;
  address_2: string | null;
  city: string | null;
  state_prov: string | null;
  postal_code: string | null;
  country: string | null;
  email: string | null;
  meta: unknown;
}

const TEXT_FIELDS = ['name', 'address_1', 'address_2', 'city', 'state_prov', 'postal_code'] as const;

/** An address with every property null. */
export function emptyAddress(): Address {
  return { name: null, address_1: null, address_2: null, city: null, state_prov: null, postal_code: null, country: null, email: null, meta: null };
}

/** Merges a sent address into the current one: sent properties change, null clears, others stay. */
export function mergeAddress(current: Address | undefined, value: unknown, property: string): Address {
  const base = { ...emptyAddress(), ...current };
  const patch = objectValue(value, property);
  if (patch === null) return value === null ? emptyAddress() : base;
  for (const field of TEXT_FIELDS) {
    if (sends(patch, field)) base[field] = optionalString(patch[field], `${property}.${field}`, 200);
  }
  if (sends(patch, 'email')) base.email = optionalEmail(patch.email, `${property}.email`);
  if (sends(patch, 'country')) {
    const country = optionalString(patch.country, `${property}.country`, 2);
    if (country !== null && !isCountryCode(country)) invalid(`${property}.country`, `The property ${property}.country must be an ISO 3166 country code.`);
    base.country = country === null ? null : country.toUpperCase();
  }
  if (sends(patch, 'meta')) base.meta = metaValue(patch.meta, `${property}.meta`);
  return base;
}

/** The address as the API shows it. */
export function addressJson(address: Address | undefined): Record<string, unknown> {
  return { object: 'address', ...emptyAddress(), ...address };
}
