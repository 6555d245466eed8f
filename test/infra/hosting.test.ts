import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { appRouterFunctionCode } from '../../infra/cloud/app-router';
import { apiPathPattern, bucketMissStatusCodes, edgeSecretHeader, forwardedHostFunctionCode, hostingPathPatterns, imagesPathPattern } from '../../infra/cloud/hosting';
import { type Synthesized, allowedActions, functionWithRole, referencedId, resourcesOfType, roleStatements, synthesize, synthTimeout } from './synthesize';
import { families } from '../../shared/app/routes';
import { schedules } from '../../shared/app/schedules';
import { APP_POINTERS_ACTIONS, APP_POINTERS_VARIABLE } from '../../infra/cloud/platform-function';

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

  /** The origin group of the app-files (default) behaviour. */
  const appFilesGroup = () => (config.OriginGroups.Items as Record<string, any>[]).find((group) => group.Id === config.DefaultCacheBehavior.TargetOriginId)!;
  const behaviourFor = (pattern: string) => (config.CacheBehaviors as Record<string, any>[]).find((behaviour) => behaviour.PathPattern === pattern)!;
  const functionNamed = (prefix: string) => resourcesOfType(synth.json, 'AWS::CloudFront::Function').find((id) => id.startsWith(prefix))!;

  it('serves app pages from the apps bucket through Origin Access Control, HTTPS only', () => {
    const behaviour = config.DefaultCacheBehavior;
    expect(behaviour.ViewerProtocolPolicy).toBe('redirect-to-https');
    const origin = originById(appFilesGroup().Members.Items[0].OriginId);
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
    const api = behaviourFor(apiPathPattern);
    const functionId = functionNamed('HostingForwardedHost');
    expect(api.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
    ]);
    synth.template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: forwardedHostFunctionCode,
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
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
    // The app-page origin (S3) must not receive the secret; the hosting handler does.
    const [bucket, handler] = appFilesGroup().Members.Items.map((member: { OriginId: string }) => originById(member.OriginId));
    expect(bucket!.OriginCustomHeaders).toBeUndefined();
    expect(handler!.OriginCustomHeaders).toEqual([{ HeaderName: edgeSecretHeader, HeaderValue: edge.HeaderValue }]);
  });

  it('rewrites app-file requests with the app router, which reads the alias pointers from a KeyValueStore', () => {
    const routerId = functionNamed('HostingAppRouter');
    const storeId = resourcesOfType(synth.json, 'AWS::CloudFront::KeyValueStore')[0]!;
    synth.template.resourceCountIs('AWS::CloudFront::KeyValueStore', 1);
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [routerId, 'FunctionARN'] } }]);
    expect(synth.json.Resources[routerId]!.Properties).toMatchObject({
      FunctionCode: appRouterFunctionCode,
      FunctionConfig: { Runtime: 'cloudfront-js-2.0', KeyValueStoreAssociations: [{ KeyValueStoreARN: { 'Fn::GetAtt': [storeId, 'Arn'] } }] },
    });
    expect(synth.json.Outputs?.AppPointersArn?.Value).toEqual({ 'Fn::GetAtt': [storeId, 'Arn'] });
  });

  it('fails a bucket miss over to the hosting handler, a function URL behind Origin Access Control', () => {
    const group = appFilesGroup();
    expect(group.FailoverCriteria.StatusCodes.Items).toEqual(bucketMissStatusCodes);
    expect(config.DefaultCacheBehavior.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS']);
    const handler = originById(group.Members.Items[1].OriginId);
    const urlId = resourcesOfType(synth.json, 'AWS::Lambda::Url')[0]!;
    synth.template.resourceCountIs('AWS::Lambda::Url', 1);
    const url = synth.json.Resources[urlId]!.Properties!;
    expect(url.AuthType).toBe('AWS_IAM');
    expect(referencedId(url.TargetFunctionArn)).toBe(functionWithRole(synth.json, 'family:hosting'));
    expect(JSON.stringify(handler.DomainName)).toContain(urlId);
    const oac = synth.json.Resources[referencedId(handler.OriginAccessControlId)!]!.Properties!.OriginAccessControlConfig;
    expect(oac).toMatchObject({ OriginAccessControlOriginType: 'lambda', SigningBehavior: 'always', SigningProtocol: 'sigv4' });
    // Only this distribution may invoke it.
    const distributionId = resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!;
    const permissions = resourcesOfType(synth.json, 'AWS::Lambda::Permission')
      .map((id) => synth.json.Resources[id]!.Properties!)
      .filter((permission) => JSON.stringify(permission.FunctionName).includes(urlId));
    expect(permissions.map((permission) => permission.Action).sort()).toEqual(['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl']);
    for (const permission of permissions) {
      expect(permission.Principal).toBe('cloudfront.amazonaws.com');
      expect(JSON.stringify(permission.SourceArn)).toContain(distributionId);
    }
  });

  it('caches app files by the rewritten version path, honouring the origin’s Cache-Control, with the serving headers', () => {
    const policy = synth.json.Resources[referencedId(config.DefaultCacheBehavior.CachePolicyId)!]!.Properties!.CachePolicyConfig;
    expect(policy).toMatchObject({ MinTTL: 0, MaxTTL: 31536000 });
    expect(policy.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
      QueryStringsConfig: { QueryStringBehavior: 'none' },
      CookiesConfig: { CookieBehavior: 'none' },
      HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['x-forwarded-host', 'x-cartwheel-index'] },
      EnableAcceptEncodingGzip: true,
      EnableAcceptEncodingBrotli: true,
    });
    const headers = synth.json.Resources[referencedId(config.DefaultCacheBehavior.ResponseHeadersPolicyId)!]!.Properties!.ResponseHeadersPolicyConfig;
    expect(headers.SecurityHeadersConfig).toEqual({
      ContentTypeOptions: { Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'strict-origin-when-cross-origin', Override: false },
    });
    expect(JSON.stringify(headers)).not.toMatch(/FrameOptions|frame-ancestors/);
  });

  it('sends settings/, analytics/ and oauth/callback.html under every alias to the hosting handler, uncached, after the API', () => {
    const patterns = (config.CacheBehaviors as Record<string, any>[]).map((behaviour) => behaviour.PathPattern);
    expect(patterns).toEqual([imagesPathPattern, apiPathPattern, '/func/v1/*', '/signin/*', ...hostingPathPatterns]);
    const handlerOrigin = appFilesGroup().Members.Items[1].OriginId;
    for (const pattern of hostingPathPatterns) {
      expect(behaviourFor(pattern), pattern).toMatchObject({
        TargetOriginId: handlerOrigin,
        CachePolicyId: cachingDisabled,
        OriginRequestPolicyId: allViewerExceptHostHeader,
        ViewerProtocolPolicy: 'redirect-to-https',
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS'],
        FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionNamed('HostingForwardedHost'), 'FunctionARN'] } }],
      });
    }
  });

  it('sends the sign-in page to the API origin, uncached, every method, HTTPS only, viewer cookies and headers forwarded', () => {
    expect(behaviourFor('/signin/*')).toMatchObject({
      TargetOriginId: behaviourFor(apiPathPattern).TargetOriginId,
      CachePolicyId: cachingDisabled,
      OriginRequestPolicyId: allViewerExceptHostHeader,
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: expect.arrayContaining(['GET', 'HEAD', 'POST']),
    });
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

describe('grants around app hosting', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize();
  }, synthTimeout);

  it('lets the hosting family read app files (and list their prefix, so a missing key is a 404) and nothing else in S3', () => {
    const hosting = functionWithRole(synth.json, 'family:hosting');
    const s3 = roleStatements(synth.json, hosting).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('s3:')));
    // App files and their manifests: read each prefix, list it (a missing key is then a 404).
    expect(s3.map((statement) => statement.Action)).toEqual(['s3:GetObject', 's3:ListBucket', 's3:GetObject', 's3:ListBucket']);
    expect(JSON.stringify(s3[0]!.Resource)).toMatch(/DataAppsBucket.*\/apps\/\*/);
    expect((s3[1] as unknown as { Condition: unknown }).Condition).toEqual({ StringLike: { 's3:prefix': ['apps/*'] } });
    expect(JSON.stringify(s3[2]!.Resource)).toMatch(/DataAppsBucket.*\/app-manifests\/\*/);
    expect((s3[3] as unknown as { Condition: unknown }).Condition).toEqual({ StringLike: { 's3:prefix': ['app-manifests/*'] } });
    expect(allowedActions(synth.json, hosting).some((action) => action.startsWith('cloudfront'))).toBe(false);
  });

  it('lets the apps family and the due-work job describe, put and delete keys of the pointer store only, and tells them the ARN', () => {
    const storeArn = { 'Fn::GetAtt': [resourcesOfType(synth.json, 'AWS::CloudFront::KeyValueStore')[0]!, 'Arn'] };
    expect(families.apps.grants.edgePointers).toBe(true);
    expect(schedules.find((schedule) => schedule.name === 'due-work')!.grants.edgePointers).toBe(true);
    for (const role of ['family:apps', 'schedule:due-work']) {
      const id = functionWithRole(synth.json, role);
      const statements = roleStatements(synth.json, id).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('cloudfront')));
      expect(statements, role).toEqual([expect.objectContaining({ Effect: 'Allow', Action: [...APP_POINTERS_ACTIONS], Resource: storeArn })]);
      expect(synth.json.Resources[id]!.Properties!.Environment.Variables[APP_POINTERS_VARIABLE], role).toEqual(storeArn);
    }
    for (const name of Object.keys(families).filter((each) => each !== 'apps')) {
      const id = functionWithRole(synth.json, `family:${name}`);
      expect(allowedActions(synth.json, id).some((action) => action.startsWith('cloudfront-keyvaluestore:')), name).toBe(false);
      expect(synth.json.Resources[id]!.Properties!.Environment.Variables[APP_POINTERS_VARIABLE], name).toBeUndefined();
    }
  });
});
