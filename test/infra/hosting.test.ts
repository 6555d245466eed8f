import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiPathPattern, edgeSecretHeader, forwardedHostFunctionCode } from '../../infra/cloud/hosting';
import type { Synthesized } from './synthesize';
import { referencedId, resourcesOfType, synthesize, synthTimeout } from './synthesize';

/** Managed CloudFront policy ids (stable across accounts). */
const cachingDisabled = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const allViewerExceptHostHeader = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

interface Origin {
  Id: string;
  DomainName: unknown;
  OriginAccessControlId?: unknown;
  S3OriginConfig?: unknown;
  CustomOriginConfig?: { OriginProtocolPolicy: string };
  OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[];
}

describe('CloudFront distribution for hosted apps', () => {
  let synth: Synthesized;
  let config: Record<string, any>;
  let originById: (id: string) => Origin;
  beforeAll(() => {
    synth = synthesize();
    synth.template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    config = synth.json.Resources[resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!]!.Properties!.DistributionConfig;
    originById = (id) => (config.Origins as Origin[]).find((origin) => origin.Id === id)!;
  }, synthTimeout);

  it('serves app pages from the apps bucket through Origin Access Control, HTTPS only', () => {
    const behaviour = config.DefaultCacheBehavior;
    expect(behaviour.ViewerProtocolPolicy).toBe('redirect-to-https');
    const origin = originById(behaviour.TargetOriginId);
    expect(referencedId(origin.DomainName)).toMatch(/^DataAppsBucket/);
    expect(referencedId(origin.OriginAccessControlId)).toBe(resourcesOfType(synth.json, 'AWS::CloudFront::OriginAccessControl')[0]);
    synth.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' },
    });
  });

  it('lets only this distribution read the apps bucket', () => {
    const distributionId = resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!;
    synth.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: Match.stringLikeRegexp('^DataAppsBucket') },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Action: 's3:GetObject',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Condition: {
              StringEquals: {
                'AWS:SourceArn': {
                  'Fn::Join': [
                    '',
                    Match.arrayWith([':distribution/', { Ref: distributionId }]),
                  ],
                },
              },
            },
          }),
        ]),
      },
    });
  });

  it(`proxies ${apiPathPattern} to the HTTP API, uncached, all methods, never redirected`, () => {
    const behaviours = config.CacheBehaviors as Record<string, any>[];
    const api = behaviours.find((behaviour) => behaviour.PathPattern === apiPathPattern)!;
    expect(api).toMatchObject({
      CachePolicyId: cachingDisabled,
      OriginRequestPolicyId: allViewerExceptHostHeader,
      ViewerProtocolPolicy: 'allow-all',
      AllowedMethods: expect.arrayContaining(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']),
    });
    const origin = originById(api.TargetOriginId);
    expect(origin.CustomOriginConfig?.OriginProtocolPolicy).toBe('https-only');
    const apiId = resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Api')[0]!;
    expect(origin.DomainName).toEqual({
      'Fn::Join': ['', [{ Ref: apiId }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
    });
  });

  it('runs the forwarded-host function on viewer request of the API behaviour', () => {
    const api = (config.CacheBehaviors as Record<string, any>[]).find((b) => b.PathPattern === apiPathPattern)!;
    const functionId = resourcesOfType(synth.json, 'AWS::CloudFront::Function')[0]!;
    expect(api.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
    ]);
    synth.template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: forwardedHostFunctionCode,
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toBeUndefined();
  });

  it('sends the edge secret header to the API origin, with the value the functions expect', () => {
    const api = (config.CacheBehaviors as Record<string, any>[]).find((b) => b.PathPattern === apiPathPattern)!;
    const headers = originById(api.TargetOriginId).OriginCustomHeaders ?? [];
    const edge = headers.find((header) => header.HeaderName === edgeSecretHeader)!;
    const secretId = resourcesOfType(synth.json, 'AWS::SecretsManager::Secret')[0]!;
    expect(edge.HeaderValue).toEqual({
      'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']],
    });
    for (const id of resourcesOfType(synth.json, 'AWS::Lambda::Function')) {
      expect(synth.json.Resources[id]!.Properties!.Environment.Variables.CARTWHEEL_EDGE_SECRET).toEqual(edge.HeaderValue);
    }
    synth.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ ExcludePunctuation: true }),
    });
    // The app-page origin (S3) must not receive the secret.
    expect(originById(config.DefaultCacheBehavior.TargetOriginId).OriginCustomHeaders).toBeUndefined();
  });

  it('uses price class 100 and HTTP/2 + HTTP/3', () => {
    expect(config).toMatchObject({ PriceClass: 'PriceClass_100', HttpVersion: 'http2and3', Enabled: true });
  });

  it('outputs the distribution domain', () => {
    expect(synth.json.Outputs?.AppsDistributionDomain?.Value).toEqual({
      'Fn::GetAtt': [resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0], 'DomainName'],
    });
  });
});

describe('custom apps domain', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({
      appsCustomDomain: {
        domainName: 'apps.example.com',
        certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/00000000-0000-0000-0000-000000000000',
      },
    });
  }, synthTimeout);

  it('answers *.<domain> with the certificate and TLS 1.2 minimum', () => {
    synth.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['*.apps.example.com'],
        ViewerCertificate: Match.objectLike({ MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' }),
      }),
    });
    expect(synth.json.Parameters?.AppsDomain?.Default).toBe('apps.example.com');
  });
});

describe('forwarded-host viewer-request function', () => {
  type Headers = Record<string, { value: string }>;
  const handler = new Function(`${forwardedHostFunctionCode}; return handler;`)() as (event: {
    request: { headers: Headers };
  }) => { headers: Headers };

  it('copies the viewer Host into x-forwarded-host', () => {
    const request = handler({ request: { headers: { host: { value: 'acct_1.apps.example.com' } } } });
    expect(request.headers['x-forwarded-host']).toEqual({ value: 'acct_1.apps.example.com' });
  });

  it('replaces a viewer-sent x-forwarded-host', () => {
    const request = handler({
      request: { headers: { host: { value: 'real.example.com' }, 'x-forwarded-host': { value: 'forged.example.com' } } },
    });
    expect(request.headers['x-forwarded-host']).toEqual({ value: 'real.example.com' });
  });

  it('drops a viewer-sent x-forwarded-host when there is no Host', () => {
    const request = handler({ request: { headers: { 'x-forwarded-host': { value: 'forged.example.com' } } } });
    expect(request.headers['x-forwarded-host']).toBeUndefined();
  });
});
