/**
 * OAuth in the cloud (auth.md 6): the `/oauth_apps` routes and `POST /oauth/token` exist on the
 * HTTP API and reach the oauth family's function; `{signin_url}oauth/authorize` is served by the
 * sign-in page's function through the same greedy route (and CloudFront behaviour) as the page
 * itself; and the two functions may do what the flows write (grants, codes, consent tickets,
 * tokens), nothing more.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGNIN_FAMILY, SIGNIN_ROUTES } from '../../infra/cloud/api';
import { routes } from '../../shared/app/routes';
import { type Synthesized, allowedActions, functionWithRole, referencedId, resourcesOfType, servingRouteKey, synthesize, synthTimeout } from './synthesize';

const OAUTH_ROUTES = [
  'GET /api/v1/oauth_apps',
  'POST /api/v1/oauth_apps',
  'GET /api/v1/oauth_apps/{oauth_app_id}',
  'POST /api/v1/oauth_apps/{oauth_app_id}',
  'DELETE /api/v1/oauth_apps/{oauth_app_id}',
  'POST /api/v1/oauth_apps/{oauth_app_id}/reset_secret',
  'POST /api/v1/oauth/token',
];

describe('OAuth in the cloud template', () => {
  let synth: Synthesized;
  beforeAll(() => {
    // Routes, roles and behaviours only: the bundles are another test's concern.
    synth = synthesize({}, { bundle: false });
  }, synthTimeout);

  /** Logical id of the function an API route's integration invokes. */
  const functionBehindRoute = (key: string): string => {
    const served = key.startsWith('ANY /signin') ? key : servingRouteKey(key);
    const routeId = resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Route').find((id) => synth.json.Resources[id]!.Properties!.RouteKey === served);
    if (!routeId) throw new Error(`No route ${key}`);
    const target = synth.json.Resources[routeId]!.Properties!.Target as { 'Fn::Join': [string, unknown[]] };
    const integration = synth.json.Resources[referencedId(target['Fn::Join'][1][1])!]!;
    expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    return referencedId(integration.Properties!.IntegrationUri)!;
  };

  it('has every OAuth route in the route table, the token endpoint public and form-or-JSON', () => {
    const keys = routes.map((route) => `${route.method} ${route.path}`);
    expect(keys).toEqual(expect.arrayContaining(OAUTH_ROUTES));
    const token = routes.find((route) => `${route.method} ${route.path}` === 'POST /api/v1/oauth/token')!;
    expect(token).toMatchObject({ family: 'oauth', access: { kind: 'public' }, body: 'form-or-json' });
    for (const route of routes.filter((entry) => entry.path.startsWith('/api/v1/oauth_apps'))) {
      expect(route.access, `${route.method} ${route.path}`).toMatchObject({ kind: 'permission', resource: 'auths' });
    }
  });

  it.each(OAUTH_ROUTES)('routes %s on the HTTP API to the oauth family function', (key) => {
    expect(functionBehindRoute(key)).toBe(functionWithRole(synth.json, 'family:oauth'));
  });

  it('serves {signin_url}oauth/authorize through the sign-in greedy route, on the signin function', () => {
    expect(SIGNIN_ROUTES.map((route) => `${route.method} ${route.path}`)).toContain('ANY /signin/{proxy+}');
    expect(functionBehindRoute('ANY /signin/{proxy+}')).toBe(functionWithRole(synth.json, `family:${SIGNIN_FAMILY}`));
    // Nothing in the route table shadows it.
    expect(routes.some((route) => route.path.startsWith('/signin'))).toBe(false);
  });

  it('lets the CDN send /signin/* (the authorize page) and /api/v1/* (the token endpoint) to the API, uncached, with POST', () => {
    const distribution = synth.json.Resources[resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!]!.Properties!.DistributionConfig;
    const behaviours = distribution.CacheBehaviors as Array<Record<string, any>>;
    for (const pattern of ['/signin/*', '/api/v1/*']) {
      const behaviour = behaviours.find((entry) => entry.PathPattern === pattern);
      expect(behaviour, pattern).toBeDefined();
      expect(behaviour!.AllowedMethods, pattern).toEqual(expect.arrayContaining(['GET', 'HEAD', 'POST']));
      // The page may be redirected to HTTPS; the API never is (it answers 401 tls_required, conventions.md §2).
      expect(behaviour!.ViewerProtocolPolicy, pattern).toBe(pattern === '/signin/*' ? 'redirect-to-https' : 'allow-all');
    }
  });

  it('gives the oauth function the table and the sealing key (idempotent replays of new secrets), and no email', () => {
    const oauthActions = allowedActions(synth.json, functionWithRole(synth.json, 'family:oauth'));
    expect(oauthActions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'kms:Encrypt', 'kms:Decrypt']));
    expect(oauthActions.some((action) => action.startsWith('ses:'))).toBe(false);
    const signinActions = allowedActions(synth.json, functionWithRole(synth.json, `family:${SIGNIN_FAMILY}`));
    // Consent tickets are taken by a conditional delete; codes and tokens are written.
    expect(signinActions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']));
  });
});
