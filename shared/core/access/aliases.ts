/**
 * Path words that stand for the caller's own resource: `me` in `/customers/me/...` is the
 * customer of a customer-scope token (commerce.md §6.1). Declared here once, by path parameter,
 * so every route with that parameter answers to the word, whatever module adds the route
 * (`/customers/{customer_id}/orders`, `/payment_methods/{payment_method_id}`, later refunds,
 * invoices and subscriptions); the HTTP step that applies them is shared/http/middleware/aliases.ts.
 */
import { scopeCustomerOf, type Principal } from './principal';

/** One alias: the word a path parameter may carry and the id it stands for. */
export interface PathAlias {
  /** The word, e.g. `me`. */
  word: string;
  /** What the parameter names, for the 404 message (`customer`). */
  what: string;
  /** The id the word stands for with this caller; undefined when it stands for nothing (404). */
  resolve(principal: Principal): string | undefined;
}

/** The aliases by path parameter name. */
export const PATH_ALIASES: Readonly<Record<string, PathAlias>> = Object.freeze({
  customer_id: { word: 'me', what: 'customer', resolve: scopeCustomerOf },
});

/** What resolving a request's path parameters found. */
export interface ResolvedParams {
  /** The parameters, each alias replaced by the id it stands for (the same object when none is used). */
  params: Readonly<Record<string, string>>;
  /** An alias that stands for nothing with this caller: the request answers 404, as `/customers/me` does for other tokens. */
  unresolved?: PathAlias;
}

/**
 * Replaces every alias among a request's path parameters by the id it stands for (without a
 * caller, an alias stands for nothing).
 *
 * @example resolvePathAliases({ customer_id: 'me' }, principal) // { params: { customer_id: 'C8RT2K...' } }
 */
export function resolvePathAliases(params: Readonly<Record<string, string>>, principal: Principal | undefined): ResolvedParams {
  let resolved: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(params)) {
    const alias = Object.hasOwn(PATH_ALIASES, name) ? PATH_ALIASES[name] : undefined;
    if (!alias || value !== alias.word) continue;
    const id = principal && alias.resolve(principal);
    if (id === undefined) return { params, unresolved: alias };
    resolved ??= { ...params };
    resolved[name] = id;
  }
  return { params: resolved ?? params };
}
