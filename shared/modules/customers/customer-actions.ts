/** The `/customers` endpoints (commerce.md §6.1), as actions of the API pipeline. */
import { assertReach } from '../identity';
import { type Principal } from '../../core/access/principal';
import { booleanParameter } from '../../http/request';
import { declareQuery, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../http/types';
import type { Clock } from '../../platform/ports';
import { cursorQuery, type CursorSource, renderCursorList } from '../../rest/cursor-list';
import { renderResource } from '../../rest/render';
import { actionScope } from '../../rest/action-scope';
import { readReachable } from '../../rest/reach';
import type { Revision } from '../../store/entity';
import { collectionPartition, findRecord } from '../../store/records';
import { customerCreate, customerUpdate, type CustomerInput } from './customer-schemas';
import {
  addLoginAfterSale,
  changeCustomer,
  changeOwnCustomer,
  createCustomer,
  customerDeclaration,
  deleteCustomer,
  type CustomerRecord,
} from './customers';
import { updateCustomer } from './customer-store';

/** `POST /customers`. */
export const createCustomerAction = withBody(customerCreate, async (context) => {
  const { scope, render } = await actionScope(context);
  const record = await createCustomer(scope, context.body, context.platform.clock);
  const body = await renderResource(customerDeclaration, record, render);
  return { status: 201, body, location: body.url as string };
});

/** `GET /customers/{customer_id}`. */
export async function getCustomerAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const record = await readReachable(customerDeclaration, scope, context.params.customer_id!, requirePrincipal(context));
  return { status: 200, body: await renderResource(customerDeclaration, record, render) };
}

/**
 * `POST /customers/{customer_id}`: partial update. A limited token comes through for a customer
 * it reaches (404 otherwise; commerce.md §0.1): its signed-in customer gets the customer-scope
 * update of `/customers/me`, the customer of a sale it paid only the one update that adds a login.
 */
export const updateCustomerAction = withBody(customerUpdate, async (context) => {
  const { scope, render } = await actionScope(context);
  const customerId = context.params.customer_id!;
  const change = changeAllowedTo(requirePrincipal(context), customerId);
  const saved = await updateCustomer(scope, customerId, (current) => change(current, context.body, context.platform.clock));
  return { status: 200, body: await renderResource(customerDeclaration, saved, render) };
});

/** Which update of customer `customerId` the caller may make (404 when a limited token does not reach it). */
function changeAllowedTo(principal: Principal, customerId: string): (current: CustomerRecord, body: CustomerInput, clock: Clock) => Promise<Revision<CustomerRecord>> {
  if (principal.kind !== 'limited') return changeCustomer;
  assertReach(principal, `customers/${customerId}`, 'customer');
  return principal.customerId === customerId ? changeOwnCustomer : addLoginAfterSale;
}

/** `DELETE /customers/{customer_id}`. */
export async function deleteCustomerAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  await deleteCustomer(scope, context.params.customer_id!);
  return { status: 204 };
}

/** `GET /customers`: cursor list; filters `q` (name, email, username) and `has_payments`. */
export async function listCustomersAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const request = cursorQuery(context.query, render);
  const search = context.query.q?.trim().toLowerCase() || undefined;
  const hasPayments = booleanParameter(context.query, 'has_payments');
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  if (search) {
    conditions.push('contains(search_text, :q)');
    values[':q'] = search;
  }
  if (hasPayments !== undefined) {
    conditions.push('has_payments = :hp');
    values[':hp'] = hasPayments;
  }
  const source: CursorSource = {
    partition: collectionPartition(customerDeclaration, scope),
    idOf: (item) => item.customer_id as string,
    find: async (id) => (await findRecord(customerDeclaration, scope, id)) as unknown as Record<string, unknown> | undefined,
    ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values } } : {}),
  };
  return { status: 200, body: await renderCursorList(source, request, customerDeclaration, render, 'customers') };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listCustomersAction, { list: 'cursor', filters: { q: 'Search in name, email and username', has_payments: 'true or false' } });
