/**
 * The invoices family in the synthesized template (commerce.md §9): its own function behind
 * every invoice route (invoices, their pay links and payments, a customer's invoices), with what
 * publishing and paying need (the table, SES for the invoice and confirmation emails, the
 * notifications and license-request queues) and nothing else the template grants other families.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { routeKey, routes } from '../../shared/app/routes';
import { allowedActions, functionWithRole, referencedId, resourcesOfType, servingRouteKey, synthesize, synthTimeout, type Synthesized } from './synthesize';

describe('the invoices family', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({}, { bundle: false }); // routes, roles and variables: the bundles are not read
  }, synthTimeout);

  const invoiceRoutes = routes.filter((route) => route.family === 'invoices').map(routeKey);

  it('has every invoice route of the contract', () => {
    expect(invoiceRoutes.sort()).toEqual([
      'DELETE /api/v1/invoices/{invoice_id}',
      'GET /api/v1/customers/{customer_id}/invoices',
      'GET /api/v1/invoices',
      'GET /api/v1/invoices/{invoice_id}',
      'GET /api/v1/invoices/{invoice_id}/payments',
      'POST /api/v1/invoices',
      'POST /api/v1/invoices/{invoice_id}',
      'POST /api/v1/invoices/{invoice_id}/cancel',
      'POST /api/v1/invoices/{invoice_id}/links',
      'POST /api/v1/invoices/{invoice_id}/payments',
      'POST /api/v1/invoices/{invoice_id}/publish',
    ]);
  });

  it('serves them from its own function (through the API route that serves each)', () => {
    const fn = functionWithRole(synth.json, 'family:invoices');
    for (const key of invoiceRoutes) {
      const routeId = resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Route').find((id) => synth.json.Resources[id]!.Properties!.RouteKey === servingRouteKey(key));
      expect(routeId, key).toBeDefined();
      const target = synth.json.Resources[routeId!]!.Properties!.Target as { 'Fn::Join': [string, unknown[]] };
      const integration = synth.json.Resources[referencedId(target['Fn::Join'][1][1])!]!;
      expect(referencedId(integration.Properties!.IntegrationUri), key).toBe(fn);
    }
  });

  it('may send email, use the table, the key and its two queues', () => {
    const fn = functionWithRole(synth.json, 'family:invoices');
    const actions = allowedActions(synth.json, fn);
    expect(actions).toEqual(expect.arrayContaining(['ses:SendEmail', 'dynamodb:UpdateItem', 'sqs:SendMessage']));
    const env = synth.json.Resources[fn]!.Properties!.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['CARTWHEEL_TABLE', 'CARTWHEEL_KMS_KEY_ID']));
  });
});
