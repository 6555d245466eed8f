/**
 * The `/hosted_functions` endpoints (functions.md §6), as actions of the API pipeline. They need
 * `hosted_functions:*`; variable values are shown only to holders of `hosted_functions:update`,
 * and an answer that shows one is marked sensitive (an idempotent replay copy is stored sealed).
 * Create and update (uploads) are ./uploads.ts's, so busboy stays out of bundles that
 * only read (the API description's).
 */
import type { Principal } from '../../core/access/principal';
import { booleanParameter } from '../../http/request';
import { declareQuery, type ApiContext, type ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { offsetList, offsetPage, pageUrlBuilder, sortByParameter } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { readOffsetCollection } from '../../store/offset-index';
import { hostedFunctionDeclaration, hostedFunctionPath, type HostedFunctionView } from './declaration';
import { deleteHostedFunction } from './manage';
import type { HostedFunctionRecord } from './records';
import { runtimeNamed } from './schemas';
import { getHostedFunction, hostedFunctionPartition } from './hosted-function-store';
import { maySeeVariables, openVariables } from './variables';

const SORT_FIELDS = ['date_created', 'name', 'filename'] as const;

/** What `principal` may see of a function whose variables are at hand. */
export function visible(view: HostedFunctionView, principal: Principal): HostedFunctionView {
  if (maySeeVariables(principal)) return view;
  const { variables: _hidden, ...rest } = view;
  return rest;
}

/** Whether an answer shows a variable's value. */
export const showsValues = (view: HostedFunctionView) => view.variables !== undefined && Object.keys(view.variables).length > 0;

/** What a reader sees of a stored function: values opened only for holders of `hosted_functions:update`. */
async function readerView(record: HostedFunctionRecord, principal: Principal, context: ApiContext): Promise<HostedFunctionView> {
  if (!maySeeVariables(principal) || record.variable_names.length === 0) return record;
  const variables = await openVariables(record.secrets_sealed, { accountId: record.account_id, mode: record.mode }, record.hosted_function_id, context.platform.secrets);
  return { ...record, variables };
}

/** `GET /hosted_functions/{hosted_function_id}`. */
export async function getHostedFunctionAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const record = await getHostedFunction(scope, context.params.hosted_function_id!);
  const view = await readerView(record, principal, context);
  return { status: 200, body: await renderResource(hostedFunctionDeclaration, view, render), sensitive: showsValues(view) };
}

/** `DELETE /hosted_functions/{hosted_function_id}`: 204; the deployed code is removed and the invoke URL answers 404. */
export async function deleteHostedFunctionAction(context: ApiContext): Promise<ApiResult> {
  const { scope } = await actionScope(context);
  await deleteHostedFunction(context.platform, scope, context.params.hosted_function_id!);
  return { status: 204 };
}

/** `GET /hosted_functions`: offset list, oldest first unless `desc`; filters `runtime`, `status`; `sort_by` `date_created`, `name`, `filename`. */
export async function listHostedFunctionsAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const query = context.query;
  const page = offsetPage(query);
  const sortBy = sortByParameter(query, SORT_FIELDS);
  const descending = booleanParameter(query, 'desc') ?? false;
  const runtime = query.runtime?.trim() ? (runtimeNamed(query.runtime) ?? query.runtime.trim()) : undefined;
  const status = query.status?.trim() || undefined;
  const filtered = runtime !== undefined || status !== undefined;
  const { items, total } = await readOffsetCollection<HostedFunctionRecord>({
    partition: hostedFunctionPartition(scope),
    offset: page.offset,
    limit: page.limit,
    descending,
    counted: true,
    ...(filtered ? { filter: (record) => (runtime === undefined || record.runtime === runtime) && (status === undefined || record.status === status) } : {}),
    ...(sortBy === 'name' ? { sortKey: (record) => record.name.toLowerCase() } : sortBy === 'filename' ? { sortKey: (record) => record.filename.toLowerCase() } : {}),
    idOf: (record) => record.hosted_function_id,
  });
  const views = await Promise.all(items.map((record) => readerView(record, principal, context)));
  const data = await renderElements(hostedFunctionDeclaration, views, render);
  return {
    status: 200,
    body: offsetList(data, page, total, pageUrlBuilder(render.url('hosted_functions'), query, 'offset')),
    sensitive: views.some(showsValues),
  };
}

declareQuery(listHostedFunctionsAction, {
  list: 'offset',
  filters: { runtime: 'nodejs22.x, python3.13, java21 or dotnet8 (short names too)', status: 'pending, active or failed', sort_by: 'date_created (default), name or filename' },
});
