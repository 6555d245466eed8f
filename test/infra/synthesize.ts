/**
 * Synthesizes Cartwheel stacks for the infra tests and reads their templates: which
 * function serves a family, and what its role may do.
 */
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { queues } from '../../shared/app/queues';
import { fallbackFamily, families, routes } from '../../shared/app/routes';
import { type CartwheelStackProps, CartwheelStack } from '../../infra/cloud/stack';
import { roleTagKey } from '../../infra/cloud/platform-function';
import { propsFromContext } from '../../infra/cloud/context';
import { routeLayout, type LayoutInput } from '../../infra/cloud/route-layout';
import { compileRoutes } from '../../shared/http/route-matcher';
import type { RouteDefinition } from '../../shared/http/routes';

/**
 * Bundling runs esbuild once per function: a synthesis takes tens of seconds on a quiet 2-core
 * machine and several minutes on a loaded one (as many as vitest's hook limit allows).
 */
export const synthTimeout = 300_000;

/** A synthesized stack and its template. */
export interface Synthesized {
  stack: CartwheelStack;
  template: Template;
  /** The template as plain JSON, for walks the assertions API does not offer. */
  json: TemplateJson;
}

/** The parts of a CloudFormation template the tests read. */
export interface TemplateJson {
  Resources: Record<string, { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;
  Outputs?: Record<string, { Value: unknown }>;
  Parameters?: Record<string, { Default?: unknown }>;
}

/**
 * Synthesizes a `Cartwheel-test` stack from the real tables, with any of them replaced.
 * Without bundling (`bundle: false`, or `bundling: false`: CDK's `aws:cdk:bundling-stacks` =
 * none) functions get placeholder code: for tests that read routes, roles and behaviours but
 * not the bundles, in seconds instead of minutes on a loaded machine.
 */
export function synthesize(overrides: Partial<CartwheelStackProps> = {}, options: { bundle?: boolean; bundling?: boolean } = {}): Synthesized {
  const app = new App(options.bundle === false || options.bundling === false ? { context: { 'aws:cdk:bundling-stacks': [] } } : {});
  const stack = new CartwheelStack(app, 'Cartwheel-test', {
    stage: 'test',
    queues,
    families,
    routes,
    fallbackFamily,
    ...overrides,
  });
  const template = Template.fromStack(stack);
  return { stack, template, json: template.toJSON() as TemplateJson };
}

/** Logical ids of every resource of one type. */
export function resourcesOfType(json: TemplateJson, type: string): string[] {
  return Object.entries(json.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([id]) => id);
}

/** Logical id of the Lambda function tagged `cartwheel:role` = `role` (e.g. `family:auths`). */
export function functionWithRole(json: TemplateJson, role: string): string {
  const matches = resourcesOfType(json, 'AWS::Lambda::Function').filter((id) => {
    const tags = (json.Resources[id]!.Properties?.Tags ?? []) as { Key: string; Value: string }[];
    return tags.some((tag) => tag.Key === roleTagKey && tag.Value === role);
  });
  if (matches.length !== 1) throw new Error(`Expected one function with role ${role}, found ${matches.length}`);
  return matches[0]!;
}

/** The folder of the bundled asset of family `name`'s function in a synthesized (bundling) stack. */
export function bundleFolderOf(synth: Synthesized, name: string): string {
  const code = synth.json.Resources[functionWithRole(synth.json, `family:${name}`)]!.Properties!.Code as { S3Key: string };
  return path.join((synth.stack.node.root as App).outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
}

/** Every IAM statement that applies to a function's execution role (inline and attached). */
export function roleStatements(json: TemplateJson, functionId: string): { Action: string | string[]; Resource: unknown; Effect: string }[] {
  const roleArn = json.Resources[functionId]!.Properties!.Role as { 'Fn::GetAtt': [string, string] };
  const roleId = roleArn['Fn::GetAtt'][0];
  const statements = [];
  for (const resource of Object.values(json.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const roles = (resource.Properties!.Roles ?? []) as { Ref: string }[];
    if (roles.some((role) => role.Ref === roleId)) statements.push(...resource.Properties!.PolicyDocument.Statement);
  }
  const inline = (json.Resources[roleId]!.Properties!.Policies ?? []) as { PolicyDocument: { Statement: [] } }[];
  for (const policy of inline) statements.push(...policy.PolicyDocument.Statement);
  return statements;
}

/** All actions a function's role is allowed, flattened. */
export function allowedActions(json: TemplateJson, functionId: string): string[] {
  return roleStatements(json, functionId)
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]));
}

/** Logical id referenced by `{ Ref }` or `{ Fn::GetAtt: [id, ...] }`, else undefined. */
export function referencedId(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.Ref === 'string') return record.Ref;
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  return undefined;
}

/**
 * Synthesizes the stack the CDK app builds for a context (infra/cloud/context.ts), the way
 * `cdk synth -c name=value` does (without bundling unless asked: the templates are the same).
 */
export function synthesizeContext(context: Record<string, string>, options: { bundling?: boolean } = { bundling: false }): Synthesized {
  return synthesize(propsFromContext((name) => context[name]), options);
}

/**
 * The API Gateway route key that serves the table route `key` (`POST /api/v1/invoices/{invoice_id}/links`):
 * under the greedy layout (infra/cloud/route-layout.ts) usually its group's `ANY .../{proxy+}`,
 * matched with API Gateway's precedence on a concrete path.
 */
export function servingRouteKey(key: string): string {
  const [method, path] = key.split(' ') as [string, string];
  const layout = routeLayout(routes);
  const matcher = compileRoutes(layout.map((entry) => ({ ...entry, access: { kind: 'public' } }) as unknown as RouteDefinition));
  const served = matcher.match(method, path.replace(/\{[^}]+\}/g, 'id_1'))?.route as unknown as LayoutInput | undefined;
  if (!served) throw new Error(`No API route serves ${key}`);
  return `${served.method} ${served.path}`;
}
