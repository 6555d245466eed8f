/**
 * The API's route layout (infra/cloud/route-layout.ts): greedy routes per resource group, and
 * every entry of the table still reaching its family under API Gateway's precedence (literal
 * segments over parameters over `{proxy+}`, a method over ANY), which the route matcher
 * (shared/http/route-matcher.ts) applies the same way.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { routes } from '../../shared/app/routes';
import { routeLayout, type LayoutInput } from '../../infra/cloud/route-layout';
import { compileRoutes } from '../../shared/http/route-matcher';
import type { RouteDefinition } from '../../shared/http/routes';
import { fallback } from '../../shared/http/fallback';
import { respond } from '../../shared/http/middleware/respond';
import { route } from '../../shared/http/middleware/route';
import { stateOf, type ApiEvent } from '../../shared/http/middleware/state';
import { systemClock } from '../../shared/platform/adapters/system-clock';

/** Where API Gateway sends a request under a layout (the matcher's precedence is API Gateway's). */
function servedBy(layout: ReturnType<typeof routeLayout>, method: string, path: string): string | undefined {
  const matcher = compileRoutes(layout.map((entry) => ({ ...entry, access: { kind: 'public' } }) as unknown as RouteDefinition));
  return (matcher.match(method, path)?.route as unknown as LayoutInput | undefined)?.family;
}

const concrete = (template: string) => template.replace(/\{[^}]+\}/g, 'id_1');

describe('route layout of the real table', () => {
  const layout = routeLayout(routes);

  it('needs far fewer API routes than table entries (a group costs two, not one per entry)', () => {
    const groups = new Set(routes.map((entry) => entry.path.split('/').slice(0, 4).join('/')));
    expect(layout.length).toBeLessThan(routes.length / 2);
    // At most the two greedy routes per group plus the paths another family serves.
    const foreign = layout.filter((entry) => !entry.path.endsWith('{proxy+}') && !groups.has(entry.path));
    expect(layout.length).toBeLessThanOrEqual(groups.size * 2 + foreign.length);
  });

  it.each(routes.map((entry) => [entry.method, entry.path, entry.family] as const))('%s %s still reaches %s', (method, path, family) => {
    expect(servedBy(layout, method, concrete(path))).toBe(family);
  });
});

describe('route layout rules', () => {
  const table: LayoutInput[] = [
    { method: 'GET', path: '/api/v1/things', family: 'things' },
    { method: 'POST', path: '/api/v1/things', family: 'things' },
    { method: 'GET', path: '/api/v1/things/{thing_id}', family: 'things' },
    { method: 'GET', path: '/api/v1/things/mine', family: 'things' },
    { method: 'GET', path: '/api/v1/things/{thing_id}/parts', family: 'parts' },
    // A foreign family with a parameter where the owner has a literal (`mine`).
    { method: 'GET', path: '/api/v1/things/{thing_id}/notes', family: 'notes' },
    { method: 'POST', path: '/api/v1/things/{thing_id}/notes', family: 'parts' },
    { method: 'GET', path: '/api/v1/other/{other_id}', family: 'parts' },
    { method: 'GET', path: '/api/v1/stuff/{x}', family: 'stuff' },
    { method: 'GET', path: '/api/v1/stuff/special', family: 'specials' },
  ];
  const layout = routeLayout(table);

  it('gives the group to the family with most paths, and other paths routes of their own', () => {
    expect(layout).toContainEqual({ method: 'ANY', path: '/api/v1/things/{proxy+}', family: 'things' });
    expect(layout).toContainEqual({ method: 'ANY', path: '/api/v1/things', family: 'things' });
    expect(layout).toContainEqual({ method: 'ANY', path: '/api/v1/things/{thing_id}/parts', family: 'parts' });
    // Served by two families: one route per method.
    expect(layout).toContainEqual({ method: 'GET', path: '/api/v1/things/{thing_id}/notes', family: 'notes' });
    expect(layout).toContainEqual({ method: 'POST', path: '/api/v1/things/{thing_id}/notes', family: 'parts' });
  });

  it('keeps an owned literal path from being caught by a foreign parameter route', () => {
    expect(servedBy(layout, 'GET', '/api/v1/stuff/special')).toBe('specials');
    expect(servedBy(layout, 'GET', '/api/v1/stuff/other')).toBe('stuff');
  });

  it.each(table.map((entry) => [entry.method, entry.path, entry.family] as const))('%s %s reaches %s', (method, path, family) => {
    expect(servedBy(layout, method, concrete(path))).toBe(family);
  });
});

describe('a family behind a greedy route', () => {
  const familyRoutes = [
    { method: 'GET', path: '/api/v1/things/{thing_id}', family: 'things', access: { kind: 'public' } },
    { method: 'GET', path: '/api/v1/things/mine', family: 'things', access: { kind: 'public' } },
  ] as unknown as RouteDefinition[];
  const table = [...familyRoutes, { method: 'POST', path: '/api/v1/things/{thing_id}/notes', family: 'notes', access: { kind: 'public' } }] as unknown as RouteDefinition[];
  const handler = middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(respond(systemClock))
    .use(route(familyRoutes, 'things', fallback(table, { edgeSecret: undefined })))
    .handler(async (event) => ({ statusCode: 200, body: JSON.stringify({ route: event.routeKey, params: event.pathParameters, state: stateOf(event).route!.path }) }));
  const event = (method: string, path: string): APIGatewayProxyEventV2 =>
    ({
      routeKey: 'ANY /api/v1/things/{proxy+}',
      rawPath: path,
      rawQueryString: '',
      pathParameters: { proxy: path.split('/').slice(4).join('/') },
      headers: { host: 'api.example', 'x-forwarded-proto': 'https' },
      requestContext: { domainName: 'api.example', http: { method, path, sourceIp: '203.0.113.9' } },
      isBase64Encoded: false,
    }) as unknown as APIGatewayProxyEventV2;

  it('matches method and path itself and hands its action the route key and parameters', async () => {
    const answer = await handler(event('GET', '/api/v1/things/th_1'), {} as Context);
    expect(JSON.parse(answer.body!)).toEqual({ route: 'GET /api/v1/things/{thing_id}', params: { thing_id: 'th_1' }, state: '/api/v1/things/{thing_id}' });
    expect(JSON.parse((await handler(event('GET', '/api/v1/things/mine'), {} as Context)).body!).route).toBe('GET /api/v1/things/mine');
  });

  it('answers what the table lacks as the fallback does: 404, 405 with every family\'s methods, preflight', async () => {
    const missing = await handler(event('GET', '/api/v1/things/th_1/nothing'), {} as Context);
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body!).error.code).toBe('resource_not_found');
    const wrongMethod = await handler(event('DELETE', '/api/v1/things/th_1/notes'), {} as Context);
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers!.Allow).toContain('POST');
    const preflight = await handler(event('OPTIONS', '/api/v1/things/th_1'), {} as Context);
    expect(preflight.statusCode).toBe(204);
  });
});
