/** The address object (commerce.md §1.5): validated, merged property by property, rendered. */
import { code, email, meta, nested, reason, text, z } from './fields';
import { isCountryCode } from './formatted';
import { sends } from './input';
import type { Address } from '../core/address';

export type { Address } from '../core/address';

const TEXT_FIELDS = ['name', 'address_1', 'address_2', 'city', 'state_prov', 'postal_code'] as const;

/** An address with every property null. */
export function emptyAddress(): Address {
  return { name: null, address_1: null, address_2: null, city: null, state_prov: null, postal_code: null, country: null, email: null, meta: null };
}

/** The address in a request body (commerce.md §1.5): every property optional; null clears it all. */
export const addressInput = nested({
  name: text(200).optional(),
  address_1: text(200).optional(),
  address_2: text(200).optional(),
  city: text(200).optional(),
  state_prov: text(200).optional(),
  postal_code: code(200).optional(),
  country: text(2)
    .refine((value) => value === null || isCountryCode(value), reason('invalid', 'must be an ISO 3166 country code'))
    .transform((value) => (value === null ? null : value.toUpperCase()))
    .optional(),
  email: email().optional(),
  meta: meta().optional(),
});

/** An address as parsed from a body: absent, null (clear), or the sent properties. */
export type AddressInput = z.output<typeof addressInput> | undefined;

/** Merges a parsed address into the current one: sent properties change, null clears, others stay. */
export function mergeAddress(current: Address | undefined, patch: AddressInput): Address {
  const base = { ...emptyAddress(), ...current };
  if (patch === undefined) return base;
  if (patch === null) return emptyAddress();
  for (const field of [...TEXT_FIELDS, 'country', 'email', 'meta'] as const) {
    if (sends(patch, field)) (base as Record<string, unknown>)[field] = patch[field] ?? null;
  }
  return base;
}

/** The address as the API shows it. */
export function addressJson(address: Address | undefined): Record<string, unknown> {
  return { object: 'address', ...emptyAddress(), ...address };
}
