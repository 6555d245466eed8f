/**
 * Hosted functions in the stack (functions.md §10): the customer functions' one execution role
 * (logs only), what `functions: 'manage'` and `functions: 'invoke'` grant, the invoke URLs'
 * route to the function router, and the runtime wrappers inside the bundle of a deploying family.
 * Built from test families, so it holds before the functions module's manifest exists.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { queues } from '../../shared/app/queues';
import type { FamilyDefinition, FamilyGrants } from '../../shared/app/routes';
import { wrapperDirectory } from '../../shared/platform/adapters/lambda-functions';
import { functionsPrefixOf, MANAGE_FUNCTIONS_ACTIONS } from '../../infra/cloud/hosted-functions';
import { repoRoot } from '../../infra/cloud/platform-function';
import { type Synthesized, allowedActions, functionWithRole, referencedId, resourcesOfType, roleStatements, synthesize, synthTimeout } from './synthesize';

const fixture = 'test/infra/fixtures/handler.ts';
const family = (description: string, grants: Partial<FamilyGrants>): FamilyDefinition => ({
  entry: fixture,
  memoryMb: 128,
  description,
  grants: { table: 'none', secrets: 'none', email: false, sendsTo: [], ...grants },
});
const testFamilies: Record<string, FamilyDefinition> = {
  manager: { ...family('deploys hosted functions', { functions: 'manage' }), entry: 'test/infra/fixtures/wrapper-handler.ts' },
  invoker: family('calls hosted functions', { functions: 'invoke' }),
  'function-router': family('answers invoke URLs', { functions: 'invoke' }),
  fallback: family('answers everything else', {}),
};

/** `{"Fn::Join": ["", parts]}` as one string, references shown as `${id}`. */
function joined(value: unknown): string {
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return typeof value === 'string' ? value : JSON.stringify(value);
  return join[1].map((part) => (typeof part === 'string' ? part : `\${${referencedId(part) ?? JSON.stringify(part)}}`)).join(join[0]);
}

describe('hosted functions in the stack', () => {
  let synth: Synthesized;
  let roleId: string;
  const envOf = (name: string): Record<string, unknown> => synth.json.Resources[functionWithRole(synth.json, `family:${name}`)]!.Properties!.Environment.Variables;
  const assetDirOf = (name: string): string => {
    const code = synth.json.Resources[functionWithRole(synth.json, `family:${name}`)]!.Properties!.Code as { S3Key: string };
    return path.join((synth.stack.node.root as App).outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
  };

  beforeAll(() => {
    synth = synthesize({
      families: testFamilies,
      fallbackFamily: 'fallback',
      routes: [
        { method: 'GET', path: '/api/v1/manager', family: 'manager' },
        { method: 'GET', path: '/api/v1/invoker', family: 'invoker' },
      ],
      // Only the test families are bundled.
      queues: queues.map(({ consumer: _consumer, ...queue }) => queue),
      schedules: [],
    });
    roleId = referencedId(envOf('manager').CARTWHEEL_FUNCTIONS_ROLE_ARN)!;
  }, synthTimeout);

  it('has one execution role for customer functions: trusted by Lambda only, allowed only the logs of its prefix', () => {
    const role = synth.json.Resources[roleId]!;
    expect(role.Type).toBe('AWS::IAM::Role');
    expect(role.Properties!.AssumeRolePolicyDocument.Statement).toEqual([{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }]);
    expect(role.Properties!.ManagedPolicyArns).toBeUndefined();
    const statements = role.Properties!.Policies.flatMap((policy: { PolicyDocument: { Statement: unknown[] } }) => policy.PolicyDocument.Statement);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Effect: 'Allow', Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'] });
    expect(joined(statements[0].Resource)).toMatch(/^arn:\$\{AWS::Partition\}:logs:\$\{AWS::Region\}:\$\{AWS::AccountId\}:log-group:\/aws\/lambda\/cwfn-test-\*$/);
    // No other policy is attached to it (nothing on the table, queues, buckets, keys or functions).
    for (const id of resourcesOfType(synth.json, 'AWS::IAM::Policy')) {
      const roles = (synth.json.Resources[id]!.Properties!.Roles ?? []) as { Ref: string }[];
      expect(roles.map((ref) => ref.Ref)).not.toContain(roleId);
    }
  });

  it('manage: the Lambda actions on <prefix>-* functions, PassRole on the execution role to Lambda only, staged packages, and the role and prefix in the environment', () => {
    const statements = roleStatements(synth.json, functionWithRole(synth.json, 'family:manager'));
    const lambda = statements.filter((statement) => [statement.Action].flat().some((action) => action.startsWith('lambda:')));
    expect(lambda).toHaveLength(1);
    expect([lambda[0]!.Action].flat().sort()).toEqual([...MANAGE_FUNCTIONS_ACTIONS].sort());
    expect(joined(lambda[0]!.Resource)).toMatch(/:lambda:\$\{AWS::Region\}:\$\{AWS::AccountId\}:function:cwfn-test-\*$/);

    const passRole = statements.filter((statement) => [statement.Action].flat().includes('iam:PassRole'));
    expect(passRole).toEqual([{ Action: 'iam:PassRole', Effect: 'Allow', Resource: { 'Fn::GetAtt': [roleId, 'Arn'] }, Condition: { StringEquals: { 'iam:PassedToService': 'lambda.amazonaws.com' } } }]);

    const s3 = statements.filter((statement) => [statement.Action].flat().some((action) => action.startsWith('s3:')));
    expect(s3).toHaveLength(1);
    expect(joined(s3[0]!.Resource)).toMatch(/\/deployed\/\*$/);

    expect(envOf('manager')).toMatchObject({ CARTWHEEL_FUNCTIONS_ROLE_ARN: { 'Fn::GetAtt': [roleId, 'Arn'] }, CARTWHEEL_FUNCTIONS_PREFIX: 'cwfn-test' });
  });

  it('invoke: lambda:InvokeFunction alone, on <prefix>-* functions tagged with the platform prefix', () => {
    for (const name of ['invoker', 'function-router']) {
      expect(allowedActions(synth.json, functionWithRole(synth.json, `family:${name}`))).toEqual(['lambda:InvokeFunction']);
      const [statement] = roleStatements(synth.json, functionWithRole(synth.json, `family:${name}`)) as { Resource: unknown; Condition?: unknown }[];
      expect(joined(statement!.Resource)).toMatch(/:function:cwfn-test-\*$/);
      expect(statement!.Condition).toEqual({ StringEquals: { 'aws:ResourceTag/cartwheel:platform': 'cwfn-test' } });
      expect(envOf(name)).toMatchObject({ CARTWHEEL_FUNCTIONS_PREFIX: 'cwfn-test' });
    }
  });

  it('gives families without the grant neither Lambda rights nor the functions variables', () => {
    expect(allowedActions(synth.json, functionWithRole(synth.json, 'family:fallback')).filter((action) => /^(lambda|iam):/.test(action))).toEqual([]);
    expect(envOf('fallback').CARTWHEEL_FUNCTIONS_PREFIX).toBeUndefined();
    expect(envOf('fallback').CARTWHEEL_FUNCTIONS_ROLE_ARN).toBeUndefined();
  });

  it('routes ANY /func/v1/{proxy+} to the function router', () => {
    const routeIds = resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Route').filter((id) => synth.json.Resources[id]!.Properties!.RouteKey === 'ANY /func/v1/{proxy+}');
    expect(routeIds).toHaveLength(1);
    const target = synth.json.Resources[routeIds[0]!]!.Properties!.Target as { 'Fn::Join': [string, unknown[]] };
    const integration = synth.json.Resources[referencedId(target['Fn::Join'][1][1])!]!;
    expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    expect(referencedId(integration.Properties!.IntegrationUri)).toBe(functionWithRole(synth.json, 'family:function-router'));
  });

  it('ships the runtime wrappers beside the bundle of a deploying family, where the runner finds them', () => {
    const manager = assetDirOf('manager');
    expect(existsSync(path.join(manager, 'index.mjs'))).toBe(true);
    expect(existsSync(path.join(manager, 'function-wrapper/node/index.cjs'))).toBe(true);
    expect(existsSync(path.join(manager, 'function-wrapper/python/cartwheel_wrapper.py'))).toBe(true);
    // The adapter, bundled into index.mjs, resolves ./function-wrapper/ from its own URL.
    expect(wrapperDirectory(pathToFileURL(path.join(manager, 'index.mjs')).href)).toBe(path.join(manager, 'function-wrapper/'));
    // Families that only invoke carry no wrapper.
    expect(existsSync(path.join(assetDirOf('invoker'), 'function-wrapper'))).toBe(false);
  });

  it('runs the bundled runner, which finds the wrappers copied beside it (not the source tree)', async () => {
    // Inside the repository, so the SDK packages the bundle leaves to the Lambda runtime resolve.
    mkdirSync(path.join(repoRoot, '.tmp'), { recursive: true });
    const scratch = mkdtempSync(path.join(repoRoot, '.tmp', 'bundle-'));
    try {
      cpSync(assetDirOf('manager'), scratch, { recursive: true });
      const bundle = (await import(pathToFileURL(path.join(scratch, 'index.mjs')).href)) as { handler: () => Promise<string> };
      expect(await bundle.handler()).toBe(path.join(scratch, 'function-wrapper/'));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('expires staged packages a crashed deployment left in the functions bucket', () => {
    const rules = resourcesOfType(synth.json, 'AWS::S3::Bucket').flatMap((id) => synth.json.Resources[id]!.Properties!.LifecycleConfiguration?.Rules ?? []);
    expect(rules).toContainEqual(expect.objectContaining({ Id: 'staged-function-packages', Prefix: 'deployed/', Status: 'Enabled', ExpirationInDays: 2 }));
  });
});

describe('functionsPrefixOf', () => {
  it('derives a short prefix from the stage and refuses one too long for 64-character names', () => {
    expect(functionsPrefixOf('prod')).toBe('cwfn-prod');
    expect(() => functionsPrefixOf('a'.repeat(40))).toThrow(/at most/);
    expect(() => functionsPrefixOf('dev stage')).toThrow(/letters, digits/);
  });
});
