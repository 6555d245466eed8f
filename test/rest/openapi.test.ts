/**
 * The API description (conventions.md §19a): a valid OpenAPI 3.1 document with every route of
 * the table, generated from the same body declarations that validate requests.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { families, routes } from '../../shared/app/routes';
import { BaseResolver, createConfig, lintFromString } from '@redocly/openapi-core';
import { apiDocument, documentedFamilies } from '../../handlers/http/openapi';
import { resources } from '../../shared/app/resources';
import { eventTypes } from '../../shared/modules/events';
import { productCreate } from '../../shared/modules/catalog/product-schemas';
import { openApiDocument, refusesEmpty, successStatus } from '../../shared/rest/openapi';
import { parseInput } from '../../shared/rest/validate';
import type { RouteDefinition } from '../../shared/http/routes';
import { withBody } from '../../shared/http/types';
import { z } from 'zod';

const document = apiDocument('https://api.example.test/api/v1') as {
  openapi: string;
  paths: Record<string, Record<string, { summary: string; requestBody?: { required?: boolean; content: Record<string, { schema: any }> }; parameters: Array<{ name: string; in: string; description?: string }>; responses: Record<string, any>; 'x-cartwheel-permission': string; 'x-cartwheel-expand'?: string[] }>>;
  components: { schemas: Record<string, any> };
  webhooks: Record<string, any>;
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
      // The main success status, the others a route declares it answers (`alsoAnswers`), then the error ranges.
      const also = ((route as RouteDefinition).alsoAnswers ?? []).filter((status) => status !== successStatus(route)).map(String);
      expect(Object.keys(operation!.responses).sort()).toEqual([String(successStatus(route)), ...also, '4XX', '5XX'].sort());
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
      // A report, not a list: its buckets are computed for the asked range (GET /reports/sales).
      '/reports/sales',
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

  it('marks a request body required only where an empty body is refused', () => {
    const required = (path: string) => document.paths[path]!.post!.requestBody?.required;
    // The pipeline validates an absent body as `{}`: a schema with a required property refuses it.
    expect(required('/products')).toBe(true);
    expect(required('/customers/login')).toBe(true);
    expect(required('/apps/{app_id}/deploy')).toBe(true);
    // Optional properties only: no body is a body.
    expect(required('/apps/{app_id}/rollback')).toBe(false);
    expect(required('/subscriptions/{subscription_id}/cancel')).toBe(false);
    expect(required('/products/{product_id}')).toBe(false);
    // An action that reads no body describes none.
    expect(document.paths['/carts/{cart_id}/logout']!.post!.requestBody).toBeUndefined();
    expect(document.paths['/invoices/{invoice_id}/publish']!.post!.requestBody).toBeUndefined();
    expect(refusesEmpty(z.object({ name: z.string() }))).toBe(true);
    expect(refusesEmpty(z.object({ name: z.string().optional() }))).toBe(false);
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

describe('GET /openapi.json: responses', () => {
  it('passes Redocly\'s recommended ruleset with no errors', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config, externalRefResolver: new BaseResolver() } as Parameters<typeof lintFromString>[0]);
    const errors = problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    // Examples are made from the schemas and must satisfy them (a warning rule, held to zero here).
    expect(problems.filter((problem) => problem.ruleId === 'no-invalid-media-type-examples').map((problem) => problem.message)).toEqual([]);
    expect(problems.filter((problem) => problem.ruleId === 'no-unused-components').map((problem) => problem.message)).toEqual([]);
  }, 60_000);

  it('describes every declared resource with typed properties, its links as URL or expanded object (anyOf), its lists by style', () => {
    const schemas = document.components.schemas;
    for (const declaration of resources()) {
      const name = declaration.name.split('_').map((part) => part[0]!.toUpperCase() + part.slice(1)).join('');
      const schema = schemas[name];
      expect(schema, declaration.name).toBeDefined();
      expect(schema.properties.object.const).toMatch(/^[a-z_]+$/);
      expect(schema.properties[declaration.idField].type, `${declaration.name}.${declaration.idField}`).toBe('string');
      // More than the declared facts: the rendered properties with their types.
      expect(Object.keys(schema.properties).length, declaration.name).toBeGreaterThan(6);
      for (const [property, target] of Object.entries(declaration.links ?? {})) {
        const alternatives = schema.properties[property].anyOf;
        // The expanded object always; the URL unless the resource renders an inline object there (a sale's customer).
        expect(alternatives, `${declaration.name}.${property}`).toEqual(expect.arrayContaining([expect.objectContaining({ $ref: `#/components/schemas/${target.split('_').map((part) => part[0]!.toUpperCase() + part.slice(1)).join('')}` })]));
        expect(alternatives.some((alternative: { format?: string; type?: string }) => alternative.format === 'uri' || alternative.type === 'object'), `${declaration.name}.${property}`).toBe(true);
      }
    }
    expect(schemas.Product.properties.type.enum).toEqual(expect.arrayContaining(['digital', 'physical']));
    expect(schemas.Product.properties.headline.type).toEqual(['string', 'null']);
    expect(schemas.Event.properties.type.enum).toEqual(eventTypes.map((entry) => entry.type));
    expect(schemas.EventSubscription.properties.event_type.enum).toEqual(expect.arrayContaining(['order:created', 'payment:completed']));
    expect(schemas.Payment.properties.order.anyOf).toEqual([expect.objectContaining({ type: 'string', format: 'uri' }), expect.objectContaining({ $ref: '#/components/schemas/Order' }), { type: 'null' }]);
    expect(schemas.Order.properties.items).toEqual({ type: 'array', items: { $ref: '#/components/schemas/OrderItem' } });
    expect(schemas.Customer.properties.orders.oneOf[1].$ref).toBe('#/components/schemas/OrderOffsetList');
    expect(schemas.Product.properties.meta.type).toBeUndefined();
  });

  it('gives each route its answer: the resource, its list of the right style, nothing for a delete', () => {
    const success = (path: string, method: string) => {
      const responses = document.paths[path]![method]!.responses;
      const status = Object.keys(responses)[0]!;
      return { status, ref: responses[status].content?.['application/json']?.schema?.$ref?.split('/').pop(), example: responses[status].content?.['application/json']?.example };
    };
    expect(success('/products', 'get')).toEqual(expect.objectContaining({ status: '200', ref: 'ProductOffsetList' }));
    expect(success('/orders', 'get').ref).toBe('OrderCursorList');
    expect(success('/customers/{customer_id}/orders', 'get').ref).toBe('OrderOffsetList');
    expect(success('/products', 'post')).toEqual(expect.objectContaining({ status: '201', ref: 'Product' }));
    expect(success('/payments/{payment_id}/refunds', 'post').ref).toBe('Refund');
    expect(success('/products/{product_id}', 'delete')).toEqual({ status: '204', ref: undefined, example: undefined });
    expect(success('/products/{product_id}', 'get').example).toEqual(expect.objectContaining({ object: 'product', url: 'https://api.example.test/api/v1/products/3HE81X8T8P1B' }));
    const described = Object.values(document.paths).flatMap((methods) => Object.values(methods)).filter((operation) => Object.keys(operation.responses)[0] !== '204');
    const specific = described.filter((operation) => !JSON.stringify(operation.responses).includes('AnyObject'));
    // Action routes (`/cancel`, `/publish`, token issuing, settings) declare their answer
    // (`declareAnswer`): the resource they return or a shape read from their code.
    expect(specific.length / described.length).toBeGreaterThanOrEqual(0.95);
    expect(success('/invoices/{invoice_id}/publish', 'post').ref).toBe('Invoice');
    expect(success('/auths/secret', 'post')).toEqual(expect.objectContaining({ status: '201', ref: 'Auth' }));
    expect(success('/subscriptions/{subscription_id}/cancel', 'post').ref).toBe('Subscription');
    expect(success('/payments/options', 'get').ref).toBe('PaymentOptions');
    expect(document.components.schemas.InvoiceLink.properties.expires_in_seconds.type).toBe('integer');
    expect(document.paths['/app_installations/public_settings/{account_id}/{mode}/account.js']!.get!.responses['200'].content).toHaveProperty('text/javascript');
    for (const operation of Object.values(document.paths).flatMap((methods) => Object.values(methods))) expect(operation.summary).toMatch(/^[A-Z]/);
    expect(document.paths['/payments/{payment_id}']!.get!['x-cartwheel-expand']).toEqual(expect.arrayContaining(['order', 'order.customer', 'customer', 'refunds']));
    expect(document.paths['/payments/{payment_id}']!.get!.parameters.find((parameter) => parameter.name === 'expand')!.description).toContain('`order.customer`');
  });

  it('describes every event type\'s notification body as a webhook', () => {
    expect(Object.keys(document.webhooks)).toEqual(eventTypes.map((entry) => entry.type));
    const created = document.webhooks['order:created'].post.requestBody.content['application/json'].schema;
    expect(created.allOf).toEqual([{ $ref: '#/components/schemas/Notification' }]);
    expect(created.properties.data).toEqual({ $ref: '#/components/schemas/Order' });
  });

  it('cites no document the repository does not ship', () => {
    const text = JSON.stringify(document);
    expect(text.match(/.{0,60}§.{0,20}/g) ?? []).toEqual([]);
    expect(text.match(/.{0,60}\b[a-z-]+\.md\b.{0,20}/g) ?? []).toEqual([]);
  });
});
