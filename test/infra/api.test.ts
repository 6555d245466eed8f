import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { fallbackFamily, families, routes } from '../../shared/app/routes';
import { queues, queueUrlVariable } from '../../shared/app/queues';
import { schedules } from '../../shared/app/schedules';
import { routeLayout } from '../../infra/cloud/route-layout';
import { DOCS_FAMILY, DOCS_ROUTES, FUNCTION_ROUTE, FUNCTION_ROUTER_FAMILY, SIGNIN_FAMILY, SIGNIN_ROUTES } from '../../infra/cloud/api';
import { type Synthesized, functionWithRole, referencedId, resourcesOfType, synthesize, synthTimeout } from './synthesize';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('HTTP API from shared/app/routes.ts', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize();
  }, synthTimeout);

  /** Logical id of the function an API route's integration invokes. */
  const functionBehindRoute = (key: string): string => {
    const routeId = resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Route').find(
      (id) => synth.json.Resources[id]!.Properties!.RouteKey === key,
    );
    if (!routeId) throw new Error(`No route ${key}`);
    const target = synth.json.Resources[routeId]!.Properties!.Target as { 'Fn::Join': [string, unknown[]] };
    const integrationId = referencedId(target['Fn::Join'][1][1])!;
    const integration = synth.json.Resources[integrationId]!;
    expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
    expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    return referencedId(integration.Properties!.IntegrationUri)!;
  };

  it('is one HTTP API without API Gateway CORS (handlers answer CORS)', () => {
    synth.template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    const api = synth.json.Resources[resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Api')[0]!]!;
    expect(api.Properties).toMatchObject({ ProtocolType: 'HTTP' });
    expect(api.Properties!.CorsConfiguration).toBeUndefined();
  });

  it('has one route per entry of the route layout (greedy routes per resource group) plus $default (and the invoke URLs\' route once the function router exists)', () => {
    const functionsRoute = FUNCTION_ROUTER_FAMILY in families && !routes.some((route) => (route.path as string) === FUNCTION_ROUTE.path) ? 1 : 0;
    const signinRoutes = SIGNIN_FAMILY in families ? SIGNIN_ROUTES.length : 0;
    const docsRoutes = DOCS_FAMILY in families ? DOCS_ROUTES.length : 0;
    synth.template.resourceCountIs('AWS::ApiGatewayV2::Route', routeLayout(routes).length + 1 + functionsRoute + signinRoutes + docsRoutes);
  });

  it.each(DOCS_ROUTES.map((route) => `${route.method} ${route.path}`))('sends the API reference\'s %s to the docs family function', (key) => {
    expect(functionBehindRoute(key)).toBe(functionWithRole(synth.json, `family:${DOCS_FAMILY}`));
  });

  it.each(SIGNIN_ROUTES.map((route) => `${route.method} ${route.path}`))('sends the sign-in page\'s %s to the signin family function', (key) => {
    expect(functionBehindRoute(key)).toBe(functionWithRole(synth.json, `family:${SIGNIN_FAMILY}`));
  });

  it.each(routeLayout(routes).map((route) => [`${route.method} ${route.path}`, route.family] as const))(
    '%s is served by the %s family function (test/infra/route-layout.test.ts: every table entry reaches its family)',
    (key, family) => {
      expect(functionBehindRoute(key)).toBe(functionWithRole(synth.json, `family:${family}`));
    },
  );

  it('sends $default to the fallback family', () => {
    expect(functionBehindRoute('$default')).toBe(functionWithRole(synth.json, `family:${fallbackFamily}`));
  });

  it('creates one function per family, described by the family', () => {
    // One per family, plus one per scheduled job (test/infra/schedules.test.ts) and queue consumer (queues.test.ts).
    synth.template.resourceCountIs('AWS::Lambda::Function', Object.keys(families).length + schedules.length + queues.filter((queue) => queue.consumer).length);
    for (const [name, family] of Object.entries(families)) {
      const fn = synth.json.Resources[functionWithRole(synth.json, `family:${name}`)]!.Properties!;
      expect(fn).toMatchObject({
        Description: family.description,
        MemorySize: family.memoryMb,
        Handler: 'index.handler',
        Timeout: 29,
        Architectures: ['arm64'],
      });
    }
  });

  it('runs every function on nodejs22.x', () => {
    for (const id of resourcesOfType(synth.json, 'AWS::Lambda::Function')) {
      expect(synth.json.Resources[id]!.Properties!.Runtime).toBe('nodejs22.x');
    }
  });

  it('allows API Gateway to invoke each family function from this API only', () => {
    for (const name of Object.keys(families)) {
      const fnId = functionWithRole(synth.json, `family:${name}`);
      const permissions = resourcesOfType(synth.json, 'AWS::Lambda::Permission')
        .map((id) => synth.json.Resources[id]!.Properties!)
        .filter((permission) => referencedId(permission.FunctionName) === fnId);
      expect(permissions).toHaveLength(1);
      expect(permissions[0]).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      expect(JSON.stringify(permissions[0]!.SourceArn)).toContain(resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Api')[0]);
    }
  });

  it('throttles the $default stage', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 },
    });
  });

  it('gives every function the shared environment', () => {
    for (const name of Object.keys(families)) {
      const env = synth.json.Resources[functionWithRole(synth.json, `family:${name}`)]!.Properties!.Environment.Variables;
      expect(env).toMatchObject({
        CARTWHEEL_FUNCTIONS_BUCKET: { Ref: expect.stringMatching(/^DataFunctionsBucket/) },
        CARTWHEEL_APPS_BUCKET: { Ref: expect.stringMatching(/^DataAppsBucket/) },
        CARTWHEEL_EMAIL_FROM: { Ref: 'EmailFrom' },
        CARTWHEEL_RATE_PER_TOKEN: { Ref: 'RatePerToken' },
        CARTWHEEL_RATE_PER_IP: { Ref: 'RatePerIp' },
        CARTWHEEL_APPS_DOMAIN: { Ref: 'AppsDomain' },
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'cartwheel',
      });
      expect(JSON.stringify(env.CARTWHEEL_EDGE_SECRET)).toContain('{{resolve:secretsmanager:');
      // Which adapter serves email is the platform builder's choice, not a variable (SES in the cloud).
      expect(env).not.toHaveProperty('CARTWHEEL_EMAIL');
    }
  });

  it('gives no platform function a variable nothing reads', () => {
    // What the platform reads: shared/core/config.ts's variables, Node's options, and what
    // Powertools' Logger, Metrics and Tracer read themselves (service, level, namespace, tracing).
    const configSource = readFileSync(join(root, 'shared/core/config.ts'), 'utf8');
    const read = new Set([...configSource.matchAll(/\benv\.([A-Z0-9_]+)/g)].map((match) => match[1]!));
    read.add('NODE_OPTIONS');
    for (const name of ['POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_TRACE_ENABLED']) read.add(name);
    let checked = 0;
    for (const id of resourcesOfType(synth.json, 'AWS::Lambda::Function')) {
      const variables = synth.json.Resources[id]!.Properties!.Environment?.Variables as Record<string, unknown> | undefined;
      if (!variables?.POWERTOOLS_SERVICE_NAME) continue; // not a platform function (CDK's own helpers)
      checked++;
      for (const name of Object.keys(variables)) expect(read.has(name) || name.startsWith('CARTWHEEL_QUEUE_URL_'), `${id}: ${name}`).toBe(true);
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('derives the table, key and queue variables from the grants', () => {
    for (const [name, family] of Object.entries(families)) {
      const env = synth.json.Resources[functionWithRole(synth.json, `family:${name}`)]!.Properties!.Environment.Variables;
      expect('CARTWHEEL_TABLE' in env).toBe(family.grants.table !== 'none');
      expect('CARTWHEEL_KMS_KEY_ID' in env).toBe(family.grants.secrets !== 'none');
      // The key id is the whole secrets configuration: KMS is the cloud platform's, never a switch.
      expect('CARTWHEEL_SECRETS' in env).toBe(false);
      const queueVariables = Object.keys(env).filter((key) => key.startsWith('CARTWHEEL_QUEUE_URL_'));
      expect(queueVariables.sort()).toEqual(family.grants.sendsTo.map(queueUrlVariable).sort());
    }
  });

  it('declares the parameters with their defaults', () => {
    expect(synth.json.Parameters).toMatchObject({
      EmailFrom: { Default: 'no-reply@example.com' },
      RatePerToken: { Default: '100/200' },
      RatePerIp: { Default: '10/20' },
      AppsDomain: { Default: '' },
    });
  });

  it('outputs the API, functions, sign-in and API reference URLs from the API endpoint', () => {
    const apiId = resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Api')[0]!;
    const endpoint = { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] };
    expect(synth.json.Outputs?.ApiUrl?.Value).toEqual({ 'Fn::Join': ['', [endpoint, '/api/v1/']] });
    expect(synth.json.Outputs?.SigninUrl?.Value).toEqual({ 'Fn::Join': ['', [endpoint, '/signin/']] });
    expect(synth.json.Outputs?.FunctionsUrl?.Value).toEqual(endpoint);
    expect(synth.json.Outputs?.DocsUrl?.Value).toEqual({ 'Fn::Join': ['', [endpoint, '/docs']] });
  });
});

describe('route table validation', () => {
  it('rejects a route whose family does not exist', () => {
    expect(() =>
      synthesize({ routes: [{ method: 'GET', path: '/api/v1/nowhere', family: 'nobody' }] }),
    ).toThrow(/unknown family "nobody"/);
  });

  it('rejects duplicate route keys', () => {
    const route = { method: 'GET', path: '/api/v1/auths', family: 'auths' } as const;
    expect(() => synthesize({ routes: [route, route] })).toThrow(/Duplicate route "GET \/api\/v1\/auths"/);
  });

  it('rejects a fallback family that is not a family', () => {
    expect(() => synthesize({ fallbackFamily: 'missing' })).toThrow(/Fallback family "missing"/);
  });
});
