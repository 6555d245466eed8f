/**
 * The HTTP API: one Lambda function per route family, one API Gateway route per entry of
 * the route table, and the fallback family on `$default` (404, 405 and CORS preflight).
 * API Gateway's own CORS stays off: the handlers answer CORS themselves, the same way the
 * local gateway does.
 */
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as logs from 'aws-cdk-lib/aws-logs';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import type { FamilyDefinition, RouteDefinition } from '../../shared/app/routes';
import { pascalCase } from './outputs';
import { routeLayout } from './route-layout';
import { type PlatformResources, PlatformFunction } from './platform-function';

/** The family that answers hosted functions' invoke URLs (the `functions` surface, functions.md §7). */
export const FUNCTION_ROUTER_FAMILY = 'function-router';

/** The functions surface's one route: every method and path under `/func/v1/` (the router matches the rest). */
export const FUNCTION_ROUTE = { method: 'ANY', path: '/func/v1/{proxy+}' } as const;

/** The family that answers the sign-in page (the `signin` surface, auth.md 5.1). */
export const SIGNIN_FAMILY = 'signin';

/**
 * The sign-in surface's routes: the page itself and whatever follows it (the page answers the rest).
 * A route key cannot end in `/`, so `{signin_url}` (`/signin/`) is caught by these two: HTTP APIs
 * send a request with a trailing slash to the route without it, or to the greedy one below it.
 */
export const SIGNIN_ROUTES = [
  { method: 'ANY', path: '/signin' },
  { method: 'ANY', path: '/signin/{proxy+}' },
] as const;

/** The family that answers the API reference (`/docs`: the page and its vendored script). */
export const DOCS_FAMILY = 'docs';

/** The API reference's routes: the page (`/docs`, and `/docs/` sent to it) and what follows it (the script; the family answers 404 for the rest). */
export const DOCS_ROUTES = [
  { method: 'ANY', path: '/docs' },
  { method: 'ANY', path: '/docs/{proxy+}' },
] as const;

/** A route as the API needs it; `family` is a plain string so tests can pass their own families. */
export type ApiRoute = Pick<RouteDefinition, 'method' | 'path'> & { family: string };

/** Stage-wide throttling, a ceiling above the per-token and per-IP limits handlers enforce. */
export interface ApiThrottle {
  rateLimit: number;
  burstLimit: number;
}

/** Options of the API: the route table, its families and the resources they may use. */
export interface PlatformApiProps {
  families: Readonly<Record<string, FamilyDefinition>>;
  routes: readonly ApiRoute[];
  /** Family that serves `$default`; it gets no route of its own. */
  fallbackFamily: string;
  resources: PlatformResources;
  /** Stage name used in the API's name. */
  stage: string;
  throttle: ApiThrottle;
  /** The API on its own domain (a regional ACM certificate in the stack's region); the execute-api endpoint is then disabled. */
  customDomain?: ApiCustomDomain;
  /** Days the API's access log group keeps its lines (a parameter's token). @default 30 */
  logRetentionDays?: number;
}

/** A custom domain for the API, e.g. `api.example.com` with a certificate for it in the stack's region. */
export interface ApiCustomDomain {
  domainName: string;
  certificateArn: string;
}

/**
 * The API's access line (API Gateway access logs, one JSON object per request): the request
 * id, route, status and latencies, never the path (which holds ids) or the query (which may
 * hold a hosted function's `?token=`). The handler's own access line (shared/http/access-log.ts)
 * adds the account and mode.
 */
export const API_ACCESS_LOG_FORMAT = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
} as const;

/** The HTTP API and the family functions behind it. */
export class PlatformApi extends Construct {
  readonly httpApi: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  /** The API's custom domain, when it has one. */
  readonly domainName?: apigw.DomainName;
  /** Family functions by family name (the fallback family included). */
  readonly functions: ReadonlyMap<string, PlatformFunction>;

  constructor(scope: Construct, id: string, props: PlatformApiProps) {
    super(scope, id);
    validateRouteTable(props);

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      apiName: `cartwheel-${props.stage}`,
      description: 'Cartwheel platform API',
      // The default stage is added below so it can carry throttling settings.
      createDefaultStage: false,
      // On a custom domain, links are built from it and the raw execute-api address answers nothing.
      ...(props.customDomain ? { disableExecuteApiEndpoint: true } : {}),
    });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: logs.RetentionDays.ONE_MONTH });
    if (props.logRetentionDays !== undefined) (accessLogs.node.defaultChild as logs.CfnLogGroup).retentionInDays = props.logRetentionDays;
    this.stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: { destination: new apigw.LogGroupLogDestination(accessLogs), format: apigateway.AccessLogFormat.custom(JSON.stringify(API_ACCESS_LOG_FORMAT)) },
    });
    if (props.customDomain) {
      this.domainName = new apigw.DomainName(this, 'Domain', {
        domainName: props.customDomain.domainName,
        certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn),
        securityPolicy: apigw.SecurityPolicy.TLS_1_2,
      });
      new apigw.ApiMapping(this, 'DomainMapping', { api: this.httpApi, domainName: this.domainName, stage: this.stage });
    }

    const functions = new Map<string, PlatformFunction>();
    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const [name, family] of Object.entries(props.families)) {
      const fn = new PlatformFunction(this, `${pascalCase(name)}Family`, {
        entry: family.entry,
        memoryMb: family.memoryMb,
        description: family.description,
        grants: family.grants,
        resources: props.resources,
        role: `family:${name}`,
        ...(family.nativeModules ? { nativeModules: family.nativeModules } : {}),
        ...(family.documentFonts ? { documentFonts: true } : {}),
        ...(family.apiReference ? { apiReference: true } : {}),
        ...(family.cdnOrigin ? { cdnOrigin: true } : {}),
      });
      functions.set(name, fn);
      // One API-wide invoke permission per function instead of one per route keeps the
      // Lambda resource policy far below its 20 KB limit as families gain routes.
      integrations.set(
        name,
        new HttpLambdaIntegration(`${pascalCase(name)}Integration`, fn.function, { scopePermissionToRoute: false }),
      );
    }
    this.functions = functions;

    const integrationOf = (family: string): HttpLambdaIntegration => integrations.get(family)!;
    // Greedy routes per resource group, not one per entry (./route-layout.ts): the stack stays
    // far below CloudFormation's resource limit as modules add routes.
    for (const route of routeLayout(props.routes)) {
      new apigw.HttpRoute(this, `Route ${route.method} ${route.path}`, {
        httpApi: this.httpApi,
        routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[route.method]),
        integration: integrationOf(route.family),
      });
    }
    // Invoke URLs go to the function router when the stack has one and the route table does not
    // already name the route itself.
    const routesInvokeUrls = props.routes.some((route) => route.path === FUNCTION_ROUTE.path);
    if (integrations.has(FUNCTION_ROUTER_FAMILY) && !routesInvokeUrls) {
      new apigw.HttpRoute(this, `Route ${FUNCTION_ROUTE.method} ${FUNCTION_ROUTE.path}`, {
        httpApi: this.httpApi,
        routeKey: apigw.HttpRouteKey.with(FUNCTION_ROUTE.path, apigw.HttpMethod.ANY),
        integration: integrationOf(FUNCTION_ROUTER_FAMILY),
      });
    }
    // The sign-in page goes to its family the same way.
    if (integrations.has(SIGNIN_FAMILY)) {
      for (const route of SIGNIN_ROUTES) {
        if (props.routes.some((entry) => entry.path === route.path)) continue;
        new apigw.HttpRoute(this, `Route ${route.method} ${route.path}`, {
          httpApi: this.httpApi,
          routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod.ANY),
          integration: integrationOf(SIGNIN_FAMILY),
        });
      }
    }
    // The API reference goes to its family the same way: `https://<api>/docs`.
    if (integrations.has(DOCS_FAMILY)) {
      for (const route of DOCS_ROUTES) {
        if (props.routes.some((entry) => entry.path === route.path)) continue;
        new apigw.HttpRoute(this, `Route ${route.method} ${route.path}`, {
          httpApi: this.httpApi,
          routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod.ANY),
          integration: integrationOf(DOCS_FAMILY),
        });
      }
    }
    new apigw.HttpRoute(this, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: apigw.HttpRouteKey.DEFAULT,
      integration: integrationOf(props.fallbackFamily),
    });
  }
}

/** Fails synthesis on a route table that would deploy a broken or ambiguous API. */
export function validateRouteTable(props: Pick<PlatformApiProps, 'families' | 'routes' | 'fallbackFamily'>): void {
  const known = Object.keys(props.families);
  if (!known.includes(props.fallbackFamily)) {
    throw new Error(`Fallback family "${props.fallbackFamily}" is not a family (known: ${known.join(', ')})`);
  }
  const seen = new Set<string>();
  for (const route of props.routes) {
    const key = `${route.method} ${route.path}`;
    if (!known.includes(route.family)) throw new Error(`Route "${key}" names unknown family "${route.family}"`);
    if (route.family === props.fallbackFamily) throw new Error(`Route "${key}" uses the fallback family, which only serves $default`);
    if (seen.has(key)) throw new Error(`Duplicate route "${key}"`);
    seen.add(key);
  }
}
