/**
 * The hosted function as the API shows it (functions.md §1): its declaration, path and invoke URL.
 * Variable values appear only on a view opened for a reader holding `hosted_functions:update`.
 */
import type { Site } from '../../core/config';
import { declareResource } from '../../rest/declarations';
import type { RenderContext } from '../../rest/render-context';
import type { HostedFunctionRecord } from './records';
import type { Variables } from './variables';

/** What the declaration renders: a record, with `variables` opened only for privileged readers. */
export type HostedFunctionView = HostedFunctionRecord & { variables?: Variables };

/** The path of a function below the API root. */
export function hostedFunctionPath(functionId: string): string {
  return `hosted_functions/${encodeURIComponent(functionId)}`;
}

/** The invoke URL of a function: `{functions_url}/func/v1/<id>` (§1). */
export function invokeUrl(site: Pick<Site, 'functionsUrl'>, functionId: string): string {
  return `${site.functionsUrl.replace(/\/+$/, '')}/func/v1/${encodeURIComponent(functionId)}`;
}

/** The hosted function declaration (REST conventions engine). */
export const hostedFunctionDeclaration = declareResource<HostedFunctionView>({
  name: 'hosted_function',
  collection: 'hosted_functions',
  idField: 'hosted_function_id',
  permission: 'hosted_functions',
  scope: 'mode',
  formatted: { dates: ['date_created', 'date_modified', 'date_deployed'] },
  idOf: (record) => record.hosted_function_id,
  toJson(record, context: RenderContext) {
    const values = record.variables;
    return {
      object: 'hosted_function',
      url: context.url(hostedFunctionPath(record.hosted_function_id)),
      hosted_function_id: record.hosted_function_id,
      test: record.mode === 'test',
      account_id: record.account_id,
      name: record.name,
      description: record.description,
      runtime: record.runtime,
      environment: record.runtime,
      handler: record.handler,
      environment_variables: record.variable_names.map((name) => (values && Object.hasOwn(values, name) ? { name, value: values[name] } : { name })),
      timeout: record.timeout,
      memory_mb: record.memory_mb,
      invoke_url: invokeUrl(context.site, record.hosted_function_id),
      filename: record.filename,
      bytes: record.bytes,
      status: record.status,
      status_message: record.status_message,
      date_created: context.date(record.created_ms),
      date_modified: context.date(record.modified_ms),
      date_deployed: context.date(record.deployed_ms),
    };
  },
});
