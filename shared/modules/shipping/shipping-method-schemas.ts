/** Request bodies of `/shipping_methods` (commerce.md §2.1), declared once: validation, types and OpenAPI. */
import { body, priced, countryCode, currencyCode, flag, list, meta, money, optionalClientId, requiredText, text, z } from '../../rest/fields';

const MAX_COUNTRIES = 300;
const MAX_PRICES = 200;

/** A flat price per sale in one currency; whether the currency is enabled is checked by the operation. */
const priceEntry = priced(body({
  currency: currencyCode(),
  price: money(),
}), ['price']);

const writable = {
  description: text(1000).optional(),
  details: text(2000).optional(),
  active: flag().optional(),
  /** Where the method ships; empty or null means everywhere. A repeated code counts once. */
  countries: list(countryCode(), MAX_COUNTRIES)
    .transform((codes) => [...new Set(codes)])
    .nullable()
    .optional(),
  prices: list(priceEntry, MAX_PRICES).nullable().optional(),
  meta: meta().optional(),
};

/** `POST /shipping_methods`. */
export const shippingMethodCreate = body({
  shipping_method_id: optionalClientId().optional(),
  name: requiredText(200),
  ...writable,
});

/** `POST /shipping_methods/{shipping_method_id}`: a partial update. */
export const shippingMethodUpdate = body({
  name: requiredText(200).optional(),
  ...writable,
});

/** A shipping method body as parsed, create or update. */
export type ShippingMethodInput = z.output<typeof shippingMethodUpdate> & { shipping_method_id?: string | null };
