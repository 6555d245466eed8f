/**
 * The generated files the API description and its client are made from are committed, and must
 * be what `npm run generate:api` writes from the code as it is: a resource whose `toJson` changed,
 * or a new module's declaration, fails here until they are regenerated.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ANSWER_SHAPES_FILE, answerShapesText, RESOURCE_SHAPES_FILE, resourceShapesText } from '../../infra/openapi/resource-shapes';
import { resources } from '../../shared/app/resources';
import { CLIENT_TYPES_FILE, clientTypesText } from '../../infra/openapi/client-types';

describe('generated API description files', () => {
  it('shared/app/resource-shapes.json is what the declarations render (npm run generate:api)', () => {
    const fresh = resourceShapesText();
    expect(readFileSync(RESOURCE_SHAPES_FILE, 'utf8') === fresh, 'shared/app/resource-shapes.json is stale: run `npm run generate:api`').toBe(true);
    // Every registered declaration has its shape, with its properties read from its toJson.
    const shapes = JSON.parse(fresh) as Record<string, { properties?: Record<string, unknown> }>;
    expect(Object.keys(shapes).sort()).toEqual(resources().map((declaration) => declaration.name).sort());
    for (const declaration of resources()) expect(Object.keys(shapes[declaration.name]!.properties ?? {}), declaration.name).toContain(declaration.idField);
  }, 180_000);

  it('shared/app/answer-shapes.json is what the actions that declare an answer shape return (npm run generate:api)', () => {
    const fresh = answerShapesText();
    expect(readFileSync(ANSWER_SHAPES_FILE, 'utf8') === fresh, 'shared/app/answer-shapes.json is stale: run `npm run generate:api`').toBe(true);
    // Each shape has the properties its code writes, read through the types (not hand-written).
    const shapes = JSON.parse(fresh) as Record<string, { properties?: Record<string, unknown> }>;
    expect(Object.keys(shapes)).toEqual(expect.arrayContaining(['payment_options', 'oauth_token', 'invoice_link']));
    expect(Object.keys(shapes.invoice_link!.properties ?? {})).toEqual(['object', 'invoice_id', 'token', 'expires_in_seconds', 'link_url']);
  }, 180_000);

  it('packages/client/src/schema.ts is what openapi-typescript makes of the document (npm run generate:api)', async () => {
    const fresh = await clientTypesText();
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8') === fresh, 'packages/client/src/schema.ts is stale: run `npm run generate:api`').toBe(true);
    expect(fresh).toContain('export interface paths');
    expect(fresh).toContain('export interface webhooks');
  }, 180_000);
});
