/**
 * The API description (conventions.md §19a): a valid OpenAPI 3.1 document with every route of
 * the table, generated from the same body declarations that validate requests.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { families, routes } from '../../infra/routes';
import { documentedFamilies, UPLOAD_ONLY_FAMILIES } from '../../handlers/http/openapi';
import { family as images } from '../../handlers/http/images';
import { productCreate } from '../../shared/catalog/product-schemas';
import { openApiDocument, successStatus } from '../../shared/rest/openapi';
import { parseInput } from '../../shared/input/validate';

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

  it('documents every family that serves routes', () => {
    const documented = new Set<string>([...documentedFamilies().map((family) => family.family), ...UPLOAD_ONLY_FAMILIES]);
    // A family left out for its uploads declares no JSON body the document would miss.
    expect(UPLOAD_ONLY_FAMILIES).toEqual([images.family]);
    expect(Object.values(images.actions).filter((action) => action.input?.body)).toEqual([]);
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
});
