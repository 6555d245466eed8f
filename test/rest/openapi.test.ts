/**
 * The API description (conventions.md §19a): a valid OpenAPI 3.1 document with every route of
 * the table, generated from the same body declarations that validate requests.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { families, routes } from '../../shared/app/routes';
import { documentedFamilies } from '../../handlers/http/openapi';
import { productCreate } from '../../shared/modules/catalog/product-schemas';
import { openApiDocument, successStatus } from '../../shared/rest/openapi';
import { parseInput } from '../../shared/rest/validate';
import type { RouteDefinition } from '../../shared/http/routes';
import { withBody } from '../../shared/http/types';
import { z } from 'zod';

const document = openApiDocument(routes, documentedFamilies(), 'https://api.example.test/api/v1') as {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: any }> }; parameters: Array<{ name: string; in: string }>; responses: Record<string, unknown>; 'x-cartwheel-permission': string }>>;
};

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every route of the route table, with its path parameters and permission', () => {
    for (const route of routes) {
      const operation = document.paths[route.path.replace('/api/v1', '')]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      for (const [, name] of route.path.matchAll(/{([^}]+)}/g)) {
        expect(operation!.parameters).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
      expect(operation!['x-cartwheel-permission']).toBe(route.access.kind === 'permission' ? `${route.access.resource}:${route.access.method}` : route.access.kind);
      expect(Object.keys(operation!.responses)).toEqual([String(successStatus(route)), 'default']);
    }
  });

  it('gives every list route its paging style and filters, as its action declares them', () => {
    const notLists = new Set([
      '/openapi.json',
      '/auths/options',
      '/auths/me',
      '/customers/me',
      '/users/me',
      '/payments/options',
      '/app_installations/public_settings/{account_id}/{mode}/account.js',
      '/app_installations/public_settings/{account_id}/{mode}/account.json',
    ]);
    for (const route of routes) {
      const path = route.path.replace('/api/v1', '');
      if (route.method !== 'GET' || path.endsWith('}') || notLists.has(path)) continue;
      const names = document.paths[path]!.get!.parameters.map((parameter) => parameter.name);
      expect(names, path).toContain('limit');
      expect(names.includes('offset') !== names.includes('after_item'), path).toBe(true);
    }
    const products = document.paths['/products']!.get!.parameters.map((parameter) => parameter.name);
    expect(products).toEqual(expect.arrayContaining(['offset', 'sort_by', 'q', 'active', 'type', 'hidden', 'deleted', 'currency']));
    expect(document.paths['/orders']!.get!.parameters.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['after_item', 'date_start', 'payment_status', 'fulfilled']));
    expect(document.paths['/products/{product_id}']!.get!.parameters.map((parameter) => parameter.name)).not.toContain('limit');
  });

  it('documents every family that serves routes', () => {
    const documented = new Set(documentedFamilies().map((family) => family.family));
    // Every route's action is read for the document, but upload routes (multipart, described by the table).
    const actions = Object.assign({}, ...documentedFamilies().map((family) => family.actions));
    expect(routes.filter((route) => !actions[`${route.method} ${route.path}`]).map((route) => `${route.method} ${route.path}`)).toEqual(
      routes.filter((route) => 'body' in route && route.body === 'multipart').map((route) => `${route.method} ${route.path}`),
    );
    const serving = new Set(routes.map((route) => route.family));
    expect([...serving].filter((name) => !documented.has(name))).toEqual([]);
    expect(Object.keys(families)).toEqual(expect.arrayContaining([...serving]));
  });

  it('gives every body-taking action its declared schema, the one that validates the request', () => {
    const create = document.paths['/products']!.post!.requestBody!.content['application/json']!.schema;
    expect(create.required).toEqual(['name', 'type', 'prices']);
    // The tolerance is documented as it is applied: a number, or a plain decimal string.
    expect(create.properties.prices.items.properties.price.anyOf).toEqual([{ type: 'number' }, { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' }]);
    expect(parseInput(productCreate, { name: 'A', type: 'digital', prices: [{ currency: 'USD', price: '2.50' }] }).prices[0]!.price).toBe(2.5);
    const bodies = Object.values(document.paths).flatMap((methods) => Object.values(methods)).filter((operation) => operation.requestBody);
    expect(bodies.length).toBeGreaterThan(20);
    expect(document.paths['/images']!.post!.requestBody!.content['multipart/form-data']).toBeDefined();
    // The settings group in the path picks the schema: each group's is listed.
    const settings = document.paths['/settings/{group}']!.post!.requestBody!.content['application/json']!.schema;
    expect(settings.oneOf.map((alternative: { title: string }) => alternative.title)).toEqual(['group = technical', 'group = general', 'group = payment', 'group = tax']);
  });

  it('lists the media types of each body kind a route declares', async () => {
    const table: RouteDefinition[] = [
      { method: 'POST', path: '/api/v1/oauth/token', family: 'test', access: { kind: 'public' }, body: 'form-or-json' },
      { method: 'POST', path: '/api/v1/sign-in', family: 'test', access: { kind: 'public' }, body: 'form' },
      { method: 'POST', path: '/api/v1/hooks', family: 'test', access: { kind: 'public' }, body: 'raw' },
      { method: 'POST', path: '/api/v1/things', family: 'test', access: { kind: 'public' } },
    ];
    const action = withBody(z.object({ grant_type: z.string() }), async () => ({ status: 200 }));
    const actions = { 'POST /api/v1/oauth/token': action, 'POST /api/v1/sign-in': action, 'POST /api/v1/hooks': async () => ({ status: 200 }), 'POST /api/v1/things': action };
    const described = openApiDocument(table, [{ family: 'test', actions }], 'https://api.example.test/api/v1') as typeof document;
    const types = (path: string) => Object.keys(described.paths[path]!.post!.requestBody!.content);
    expect(types('/oauth/token')).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(types('/sign-in')).toEqual(['application/x-www-form-urlencoded']);
    expect(types('/hooks')).toEqual(['*/*']);
    expect(types('/things')).toEqual(['application/json']);
    const result = await new Validator().validate(structuredClone(described));
    expect(result.errors ?? []).toEqual([]);
  });
});
