/** The address object (commerce.md §1.5) as stored: a data shape the ports and the REST engine share. */

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
