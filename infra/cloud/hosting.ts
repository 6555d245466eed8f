/**
 * CloudFront in front of hosted apps: app files from the apps bucket (Origin Access
 * Control, no public bucket), product image files under `/images/*` from the same bucket
 * (cached a year at the edge and in browsers: their paths carry a content hash, commerce.md
 * §2.2), and `/api/v1/*` proxied to the HTTP API so apps call it same-origin. The API behaviour tells handlers the viewer's host (x-forwarded-host, set
 * by a viewer-request function) and scheme (CloudFront-Forwarded-Proto), and proves both
 * came from this distribution with the `x-cartwheel-edge` secret header.
 */
import { Aws, Duration, Fn } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Path pattern of the behaviour that proxies the platform API. */
export const apiPathPattern = '/api/v1/*';

/** Path pattern of the behaviour that serves product image files (keys `images/...` of the apps bucket). */
export const imagesPathPattern = '/images/*';

/** What browsers are told about image files: a year, never revalidated (a new image gets new paths). */
export const imagesCacheControl = 'public, max-age=31536000, immutable';

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
  /** Value of the `x-cartwheel-edge` origin header (a Secrets Manager dynamic reference). */
  edgeSecret: string;
  /** @default the distribution's *.cloudfront.net name only */
  customDomain?: AppsCustomDomain;
}

/** The CloudFront distribution serving hosted apps and proxying the API. */
export class AppsHosting extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly forwardedHost: cloudfront.Function;

  constructor(scope: Construct, id: string, props: AppsHostingProps) {
    super(scope, id);

    this.forwardedHost = new cloudfront.Function(this, 'ForwardedHost', {
      code: cloudfront.FunctionCode.fromInline(forwardedHostFunctionCode),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Copies the viewer Host into x-forwarded-host for the Cartwheel API',
    });

    const apiOrigin = new origins.HttpOrigin(
      Fn.join('', [props.httpApi.apiId, '.execute-api.', Aws.REGION, '.', Aws.URL_SUFFIX]),
      {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        customHeaders: { [edgeSecretHeader]: props.edgeSecret },
      },
    );

    // One origin (one Origin Access Control) for app files and image files.
    const appsOrigin = origins.S3BucketOrigin.withOriginAccessControl(props.appsBucket);
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

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Cartwheel hosted apps and /api/v1 proxy',
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
        origin: appsOrigin,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        compress: true,
      },
      additionalBehaviors: {
        [imagesPathPattern]: {
          origin: appsOrigin,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
          cachePolicy: imageCache,
          responseHeadersPolicy: imageHeaders,
          // JPEG, PNG, GIF and WebP are compressed already.
          compress: false,
        },
        [apiPathPattern]: {
          origin: apiOrigin,
          // Plain HTTP must reach the API, which answers `401 tls_required`; a redirect
          // would silently upgrade a client that is leaking its token in clear text.
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.ALLOW_ALL,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          // Every viewer header except Host (API Gateway routes on its own host name), plus
          // CloudFront's own headers, CloudFront-Forwarded-Proto among them.
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          compress: false,
          functionAssociations: [
            { function: this.forwardedHost, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
          ],
        },
      },
    });
  }
}
