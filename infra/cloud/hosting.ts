/**
 * CloudFront in front of hosted apps (hosting.md §10). One distribution answers the app hosts:
 *
 * - app files: a viewer-request function reads the alias pointer from a KeyValueStore and
 *   rewrites the request to the served version's immutable prefix in the apps bucket (Origin
 *   Access Control, no public bucket); a miss there fails over to the hosting handler, which
 *   applies the directory, SPA and 404 rules from the version's manifest;
 * - `settings/`, `analytics/` and `oauth/callback.html` under every alias: the hosting handler
 *   (a Lambda function URL behind Origin Access Control), never cached;
 * - product image files under `/images/*` from the same bucket (cached a year at the edge and
 *   in browsers: their paths carry a content hash, commerce.md §2.2);
 * - `/api/v1/*` proxied to the HTTP API so apps call it same-origin. The API and hosting
 *   behaviours tell their origin the viewer's host (x-forwarded-host, set by a viewer-request
 *   function) and scheme (CloudFront-Forwarded-Proto), and prove both came from this
 *   distribution with the `x-cartwheel-edge` secret header.
 */
import { Aws, CfnRule, Duration, Fn } from 'aws-cdk-lib';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { INDEX_APPENDED_HEADER } from '../../shared/modules/hosting';
import { appRouterFunctionCode } from './app-router';
import { surfaces, surfaceNamed, type SurfaceName } from '../../shared/app/surfaces';
import { pathPatternOf } from '../../shared/http/surfaces';

/** Path pattern of the behaviour that proxies the platform API (the api surface's). */
export const apiPathPattern = pathPatternOf(surfaceNamed('api'));

/** Path pattern of the behaviour that serves product image files (the images surface's; keys `images/...` of the apps bucket). */
export const imagesPathPattern = pathPatternOf(surfaceNamed('images'));

/** What browsers are told about image files: a year, never revalidated (a new image gets new paths). */
export const imagesCacheControl = 'public, max-age=31536000, immutable';

/** Path patterns the hosting handler serves uncached: the platform-owned files under every alias (hosting.md §7, §8). */
export const hostingPathPatterns = ['*/settings/*', '*/analytics/*', '*/oauth/callback.html'] as const;

/** Bucket answers that send an app-file request on to the hosting handler (OAC reads answer 403 for a missing key without s3:ListBucket). */
export const bucketMissStatusCodes = [403, 404];

/** Header CloudFront adds to every API origin request; handlers compare it to CARTWHEEL_EDGE_SECRET. */
export const edgeSecretHeader = 'x-cartwheel-edge';

/**
 * Viewer-request function (cloudfront-js-2.0) on the API behaviour. The API origin sees
 * its own execute-api host, so the viewer's Host is copied to x-forwarded-host; a viewer's
 * own x-forwarded-host is always replaced or dropped, never passed through.
 */
export const forwardedHostFunctionCode = `function handler(event) {
  var request = event.request;
  var host = request.headers.host;
  if (host && host.value) {
    request.headers['x-forwarded-host'] = { value: host.value };
  } else {
    delete request.headers['x-forwarded-host'];
  }
  return request;
}
`;

/** A custom domain for hosted apps, e.g. `apps.example.com` with a us-east-1 certificate. */
export interface AppsCustomDomain {
  /** Apps live at `<account_id>.<domainName>`, so the distribution answers `*.<domainName>`. */
  domainName: string;
  /** ACM certificate in us-east-1 covering `*.<domainName>`. */
  certificateArn: string;
}

/** Options of the hosting distribution. */
export interface AppsHostingProps {
  appsBucket: s3.IBucket;
  httpApi: apigw.IHttpApi;
  /** The CDN's copy of the alias pointers, `<account_id>/<alias>` → `<app_id>/<version_id>`. */
  appPointers: cloudfront.IKeyValueStore;
  /**
   * The hosting family's function (platform-owned files, bucket misses).
   * @default none: app files come from the bucket alone (stacks built without the hosting family)
   */
  servingFunction?: lambda.IFunction;
  /** Value of the `x-cartwheel-edge` origin header (a Secrets Manager dynamic reference). */
  edgeSecret: string;
  /** @default the distribution's *.cloudfront.net name only */
  customDomain?: AppsCustomDomain;
  /**
   * The API's own host name, when it has a custom domain (its execute-api endpoint is then
   * disabled, so the CDN must reach it by that name). @default the execute-api host
   */
  apiDomainName?: string;
  /** Where CloudFront writes its standard access logs (`cloudfront/` prefix). @default no access logs */
  logBucket?: s3.IBucket;
  /**
   * Web ACL in front of the distribution: `create` builds one (AWS managed common and
   * known-bad-inputs rule groups and a per-IP rate rule; a CLOUDFRONT-scope ACL exists only in
   * us-east-1, which a template rule asserts), or the ARN of an existing one. @default none
   */
  waf?: { create: true; ratePer5Minutes: number } | { webAclArn: string };
}

/** The CloudFront distribution serving hosted apps and proxying the API. */
export class AppsHosting extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly forwardedHost: cloudfront.Function;
  readonly appRouter: cloudfront.Function;
  /** The hosting function's URL, reachable only by this distribution (IAM auth, Origin Access Control). */
  readonly servingUrl?: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: AppsHostingProps) {
    super(scope, id);

    this.forwardedHost = new cloudfront.Function(this, 'ForwardedHost', {
      code: cloudfront.FunctionCode.fromInline(forwardedHostFunctionCode),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Copies the viewer Host into x-forwarded-host for the Cartwheel API',
    });

    const apiOrigin = new origins.HttpOrigin(
      props.apiDomainName ?? Fn.join('', [props.httpApi.apiId, '.execute-api.', Aws.REGION, '.', Aws.URL_SUFFIX]),
      {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        customHeaders: { [edgeSecretHeader]: props.edgeSecret },
      },
    );

    this.appRouter = new cloudfront.Function(this, 'AppRouter', {
      code: cloudfront.FunctionCode.fromInline(appRouterFunctionCode),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      keyValueStore: props.appPointers,
      comment: 'Rewrites app requests to the served version prefix from the alias pointers',
    });

    // One origin (one Origin Access Control) for app files and image files.
    const appsOrigin = origins.S3BucketOrigin.withOriginAccessControl(props.appsBucket);

    // The hosting handler, callable only through this distribution; it trusts x-forwarded-host
    // by the same edge secret as the API.
    let servingOrigin: cloudfront.IOrigin | undefined;
    if (props.servingFunction) {
      this.servingUrl = props.servingFunction.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });
      servingOrigin = origins.FunctionUrlOrigin.withOriginAccessControl(this.servingUrl, {
        customHeaders: { [edgeSecretHeader]: props.edgeSecret },
        readTimeout: Duration.seconds(30),
      });
    }
    // Cached by version prefix (in the rewritten path) and the directory marker; the origin's
    // Cache-Control decides how long, so `no-cache` answers are revalidated (minimum TTL 0).
    const appFilesCache = new cloudfront.CachePolicy(this, 'AppFilesCache', {
      comment: 'Cartwheel app files: keyed by the rewritten version path, origin Cache-Control honoured',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.minutes(5),
      maxTtl: Duration.days(365),
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
      headerBehavior: cloudfront.CacheHeaderBehavior.allowList('x-forwarded-host', INDEX_APPENDED_HEADER),
      cookieBehavior: cloudfront.CacheCookieBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const appFilesHeaders = new cloudfront.ResponseHeadersPolicy(this, 'AppFilesHeaders', {
      comment: 'Cartwheel app files: nosniff and the referrer policy (hosting.md §6.2), no framing restriction',
      securityHeadersBehavior: {
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: false },
      },
    });
    const imageCache = new cloudfront.CachePolicy(this, 'ImageCache', {
      comment: 'Cartwheel image files: immutable, cached a year, no query, header or cookie in the key',
      defaultTtl: Duration.days(365),
      minTtl: Duration.days(365),
      maxTtl: Duration.days(365),
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
      headerBehavior: cloudfront.CacheHeaderBehavior.none(),
      cookieBehavior: cloudfront.CacheCookieBehavior.none(),
    });
    const imageHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ImageHeaders', {
      comment: 'Cartwheel image files: immutable caching, any origin may load them',
      customHeadersBehavior: {
        customHeaders: [
          { header: 'Cache-Control', value: imagesCacheControl, override: true },
          { header: 'Access-Control-Allow-Origin', value: '*', override: true },
        ],
      },
      securityHeadersBehavior: { contentTypeOptions: { override: true } },
    });

    const certificate = props.customDomain
      ? acm.Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn)
      : undefined;

    // What every surface served by the HTTP API shares: every method, never cached, every viewer
    // header except Host (API Gateway routes on its own host name) plus CloudFront's own headers,
    // CloudFront-Forwarded-Proto among them.
    const toApi = {
      origin: apiOrigin,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: false,
    } satisfies Partial<cloudfront.BehaviorOptions>;
    // The behaviours of the surfaces other than the apps (shared/app/surfaces.ts).
    const surfaceBehaviours: Record<Exclude<SurfaceName, 'apps'>, cloudfront.BehaviorOptions> = {
      images: {
        origin: appsOrigin,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: imageCache,
        responseHeadersPolicy: imageHeaders,
        // JPEG, PNG, GIF and WebP are compressed already.
        compress: false,
      },
      api: {
        ...toApi,
        // Plain HTTP must reach the API, which answers `401 tls_required`; a redirect
        // would silently upgrade a client that is leaking its token in clear text.
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.ALLOW_ALL,
        functionAssociations: [
          { function: this.forwardedHost, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
        ],
      },
      // Invoke URLs reach the same HTTP API (its `ANY /func/v1/{proxy+}` route); plain HTTP gets `tls_required` there too.
      functions: { ...toApi, viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.ALLOW_ALL },
      // The sign-in page reaches the same HTTP API (its `ANY /signin/{proxy+}` route): forms
      // posted, cookies and Accept-Language forwarded; a browser is sent to HTTPS.
      signin: { ...toApi, viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS },
    };
    const webAclArn = props.waf ? ('webAclArn' in props.waf ? props.waf.webAclArn : this.webAcl(props.waf.ratePer5Minutes).attrArn) : undefined;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Cartwheel hosted apps and /api/v1 proxy',
      ...(props.logBucket ? { enableLogging: true, logBucket: props.logBucket, logFilePrefix: 'cloudfront/', logIncludesCookies: false } : {}),
      ...(webAclArn ? { webAclId: webAclArn } : {}),
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      // The minimum TLS version only applies with a custom certificate: CloudFront pins
      // its default *.cloudfront.net certificate to its own policy.
      ...(props.customDomain && certificate
        ? {
            domainNames: [`*.${props.customDomain.domainName}`],
            certificate,
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      defaultBehavior: {
        origin: servingOrigin
          ? new origins.OriginGroup({ primaryOrigin: appsOrigin, fallbackOrigin: servingOrigin, fallbackStatusCodes: bucketMissStatusCodes })
          : appsOrigin,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        // An origin group serves reads only; the router answers OPTIONS with 405 itself.
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
        cachePolicy: appFilesCache,
        responseHeadersPolicy: appFilesHeaders,
        compress: true,
        functionAssociations: [{ function: this.appRouter, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        // A behaviour per surface the CDN serves besides the apps themselves (the default), in the surfaces' order.
        ...Object.fromEntries(
          surfaces.filter((surface) => surface.name !== 'apps').map((surface) => [pathPatternOf(surface), surfaceBehaviours[surface.name as Exclude<SurfaceName, 'apps'>]]),
        ),
        // After the API: `/api/v1/settings/...` must stay the API's. Behaviours match in this order.
        ...(servingOrigin ? Object.fromEntries(hostingPathPatterns.map((pattern) => [pattern, this.hostingBehaviour(servingOrigin)])) : {}),
      },
    });
  }

  /**
   * The distribution's web ACL: AWS managed common rules and known bad inputs, and a rate rule
   * per client IP (requests per 5 minutes, WAF's window), each with its CloudWatch metric.
   */
  private webAcl(ratePer5Minutes: number): wafv2.CfnWebACL {
    // A CLOUDFRONT-scope web ACL can only be created in us-east-1: fail the deploy early elsewhere.
    new CfnRule(this, 'WafRegion', {
      assertions: [{ assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'), assertDescription: 'The CloudFront web ACL (context waf=true) must be deployed in us-east-1; elsewhere pass wafWebAclArn of one created there' }],
    });
    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({ cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true });
    const managed = (name: string, priority: number, countOnly: string[] = []): wafv2.CfnWebACL.RuleProperty => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name, ...(countOnly.length ? { ruleActionOverrides: countOnly.map((rule) => ({ name: rule, actionToUse: { count: {} } })) } : {}) } },
      visibilityConfig: visibility(name),
    });
    return new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('cartwheel-edge'),
      rules: [
        // Its 8 KB body limit would block image, app and function uploads (the API enforces its own limits).
        managed('AWSManagedRulesCommonRuleSet', 0, ['SizeRestrictions_BODY']),
        managed('AWSManagedRulesKnownBadInputsRuleSet', 1),
        {
          name: 'RatePerIp',
          priority: 2,
          action: { block: {} },
          statement: { rateBasedStatement: { limit: ratePer5Minutes, aggregateKeyType: 'IP' } },
          visibilityConfig: visibility('RatePerIp'),
        },
      ],
    });
  }

  /** A behaviour answered by the hosting handler: uncached, the viewer's host forwarded and vouched for. */
  private hostingBehaviour(origin: cloudfront.IOrigin): cloudfront.BehaviorOptions {
    return {
      origin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      // Reads only: a signed function URL request with a viewer body would need its hash; the handler answers OPTIONS with 405.
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: false,
      functionAssociations: [{ function: this.forwardedHost, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
    };
  }
}
