/**
 * The route table is the single source of both runtimes: every route exists as an API
 * Gateway route on its family's Lambda function, the local gateway resolves it to the same
 * family, and the family's handler module (the file both bundle and import) dispatches it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { families, routeKey, routes } from '../../shared/app/routes';
import { loadFamilyHandlers, type HttpHandler } from '../../infra/local/gateway';
import { compileRoutes } from '../../shared/http/route-matcher';
import type { RouteDefinition } from '../../shared/http/routes';
import { routeLayout } from '../../infra/cloud/route-layout';
import { readConfig } from '../../shared/core/config';
import { testPlatform } from '../support/platform';
import { functionWithRole, referencedId, resourcesOfType, synthesize, synthTimeout, type Synthesized } from '../infra/synthesize';
import { config } from '../../shared/core/config';

process.env.CARTWHEEL_TABLE ??= 'unused';

let synth: Synthesized;
let handlers: Record<string, HttpHandler>;

beforeAll(async () => {
  synth = synthesize({}, { bundling: false });
  handlers = await loadFamilyHandlers(testPlatform(), config());
}, synthTimeout);

const samplePath = (path: string) => path.replace(/\{[^}]+\}/g, 'SAMPLE1');

const event = (method: string, path: string, key: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: key,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'localhost', 'x-forwarded-proto': 'http', authorization: 'Bearer not-a-token' },
    requestContext: { domainName: 'localhost', http: { method, path, sourceIp: '127.0.0.1' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

describe.each(routes.map((route) => [routeKey(route), route] as const))('%s', (key, route) => {
  // The API route API Gateway picks for this entry (routes are greedy per resource group: infra/cloud/route-layout.ts).
  const apiRoute = compileRoutes(routeLayout(routes).map((entry) => ({ ...entry, access: { kind: 'public' } }) as unknown as RouteDefinition)).match(route.method, samplePath(route.path))!;

  it('is an API Gateway route on its family function in the CDK stack', () => {
    const routeId = resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Route').find((id) => synth.json.Resources[id]!.Properties!.RouteKey === apiRoute.routeKey);
    expect(routeId).toBeDefined();
    const target = synth.json.Resources[routeId!]!.Properties!.Target as { 'Fn::Join': [string, unknown[]] };
    const integration = synth.json.Resources[referencedId(target['Fn::Join'][1][1])!]!;
    expect(referencedId(integration.Properties!.IntegrationUri)).toBe(functionWithRole(synth.json, `family:${route.family}`));
  });

  it('is matched by the local gateway to the same family', () => {
    const match = compileRoutes(routes).match(route.method, samplePath(route.path));
    expect(match?.routeKey).toBe(key);
    expect(match?.route.family).toBe(route.family);
  });

  it(`is dispatched by ${families[route.family].entry}`, async () => {
    const result = await handlers[route.family]!(event(route.method, samplePath(route.path), key), {} as Context);
    // The family knew the route: it ran the pipeline (a malformed token is refused before any I/O).
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body!).error.code).toBe('invalid_token');
  });

  it('is dispatched by its family from the API route the cloud sends it on', async () => {
    const result = await handlers[route.family]!(event(route.method, samplePath(route.path), apiRoute.routeKey), {} as Context);
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body!).error.code).toBe('invalid_token');
  });
});

describe('function environments', () => {
  it('give every deployed function a configuration it can read', () => {
    for (const id of resourcesOfType(synth.json, 'AWS::Lambda::Function')) {
      const variables = synth.json.Resources[id]!.Properties!.Environment?.Variables as Record<string, unknown> | undefined;
      if (!variables?.POWERTOOLS_SERVICE_NAME) continue; // not a platform function (CDK's own helpers)
      // Parameters take their defaults; other tokens (ARNs, names) resolve at deploy time.
      const resolve = (value: unknown): string => {
        if (typeof value === 'string') return value;
        const parameter = synth.json.Parameters?.[(value as { Ref?: string }).Ref ?? ''];
        return parameter ? String(parameter.Default ?? '') : 'resolved-at-deploy';
      };
      const env = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, resolve(value)]));
      expect(() => readConfig(env)).not.toThrow();
    }
  });
});
