/**
 * Reach over records (auth.md 3.3, commerce.md §0.1): whether a limited token may see one stored
 * record of a declared resource. Its bindings and the reach of a paid sale name records by path;
 * customer scope reaches every record whose declaration says it belongs to the token's customer
 * (`customerOf`). Other tokens reach what their permissions allow, checked on the route.
 */
import { reaches, reachesRecord, scopeCustomerOf, type Principal } from '../core/access/principal';
import { NotFoundError } from '../http/errors';
import { findRecord, getRecord, type RecordScope } from '../store/records';
import type { ResourceDeclaration } from './declarations';

/** The reach path of a record id (`orders/3HE8…`), as bindings and reach store it. */
export function reachPath(declaration: Pick<ResourceDeclaration, 'collection'>, id: string): string {
  return `${declaration.collection}/${id}`;
}

/** Whether the caller reaches a stored record of `declaration`. */
export function reachesStored<Stored>(principal: Principal, declaration: ResourceDeclaration<Stored>, stored: Stored): boolean {
  return reachesRecord(principal, reachPath(declaration, declaration.idOf(stored)), declaration.customerOf?.(stored));
}

/**
 * Whether the record `id` may be read for the caller before it is known: reached by path, or
 * possibly through customer scope (the record, once read, decides: `reachesStored`).
 */
export function mayReachId(principal: Principal, declaration: ResourceDeclaration, id: string): boolean {
  return reaches(principal, reachPath(declaration, id)) || (declaration.customerOf !== undefined && scopeCustomerOf(principal) !== undefined);
}

/** 404 resource_not_found for a record out of reach: its existence is not revealed. */
export function outOfReach(declaration: Pick<ResourceDeclaration, 'name'>): NotFoundError {
  return new NotFoundError(`The ${declaration.name.replace(/_/g, ' ')} does not exist.`);
}

/**
 * Reads record `id` for the caller: as `getRecord` does for tokens that reach it by permission
 * or path (404, or 400 when it is in the other mode), and for customer scope only when the
 * record is its customer's. Anything else out of reach is 404, never 403 and never a hint that
 * the record exists elsewhere.
 *
 * @example const order = await readReachable(orderDeclaration, scope, orderId, principal);
 */
export async function readReachable<Stored>(declaration: ResourceDeclaration<Stored>, scope: RecordScope, id: string, principal: Principal): Promise<Stored> {
  if (reaches(principal, reachPath(declaration, id))) return getRecord(declaration, scope, id);
  if (!mayReachId(principal, declaration, id)) throw outOfReach(declaration);
  const stored = await findRecord(declaration, scope, id);
  if (stored === undefined || !reachesStored(principal, declaration, stored)) throw outOfReach(declaration);
  return stored;
}

/** 404 unless the caller reaches a record already read (a read that had to happen first). */
export function assertReachesStored<Stored>(principal: Principal, declaration: ResourceDeclaration<Stored>, stored: Stored): void {
  if (!reachesStored(principal, declaration, stored)) throw outOfReach(declaration);
}
