/**
 * What the cloud needs for product images (commerce.md §2.2): the images family on arm64 with
 * sharp's linux-arm64 binary and libvips in its bundle (and no other bundle carrying sharp),
 * the CloudFront `/images/*` behaviour on the apps bucket with immutable caching, image links
 * rooted at the distribution in every function, and object grants under `images/` only
 * (besides the apps family's own prefixes).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { imagesCacheControl, imagesPathPattern } from '../../infra/cloud/hosting';
import { nativeModuleFiles } from '../../infra/cloud/native-modules';
import { families } from '../../shared/app/routes';
import { schedules } from '../../shared/app/schedules';
import { functionWithRole, resourcesOfType, roleStatements, synthesize, synthTimeout, type Synthesized } from './synthesize';

/** ELF `e_machine` of AArch64. */
const EM_AARCH64 = 0xb7;

describe('product images in the cloud', () => {
  let synth: Synthesized;
  let bundleOf: (role: string) => string;
  beforeAll(() => {
    synth = synthesize();
    const outdir = (synth.stack.node.root as App).outdir;
    bundleOf = (role) => {
      const code = synth.json.Resources[functionWithRole(synth.json, role)]!.Properties!.Code as { S3Key: string };
      return join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
    };
  }, synthTimeout);

  it('runs the images family on arm64 with room for sharp', () => {
    const fn = synth.json.Resources[functionWithRole(synth.json, 'family:images')]!.Properties!;
    expect(fn.Architectures).toEqual(['arm64']);
    expect(fn.MemorySize).toBe(families.images.memoryMb);
    expect(fn.Runtime).toBe('nodejs22.x');
  });

  it('ships sharp beside the images bundle, with the linux-arm64 binary and libvips', () => {
    const bundle = bundleOf('family:images');
    // sharp is imported, not inlined: esbuild left it external.
    const code = readFileSync(join(bundle, 'index.mjs'), 'utf8');
    expect(code).toMatch(/from\s*"sharp"/);
    const modules = join(bundle, 'node_modules');
    const sharpVersion = JSON.parse(readFileSync(join(modules, 'sharp', 'package.json'), 'utf8')).version as string;
    expect(existsSync(join(modules, 'sharp', 'dist', 'index.mjs'))).toBe(true);
    for (const dependency of ['detect-libc', 'semver', '@img/colour']) expect(existsSync(join(modules, dependency, 'package.json')), dependency).toBe(true);
    const binary = join(modules, '@img', 'sharp-linux-arm64', 'lib', `sharp-linux-arm64-${sharpVersion}.node`);
    expect(existsSync(binary)).toBe(true);
    const elf = readFileSync(binary);
    expect(elf.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(elf.readUInt16LE(18)).toBe(EM_AARCH64);
    const libvips = readdirSync(join(modules, '@img', 'sharp-libvips-linux-arm64', 'lib')).find((name) => name.startsWith('libvips-cpp.so'));
    expect(libvips).toBeDefined();
    expect(readFileSync(join(modules, '@img', 'sharp-libvips-linux-arm64', 'lib', libvips!)).readUInt16LE(18)).toBe(EM_AARCH64);
    // Nothing for the build machine's own platform.
    expect(readdirSync(join(modules, '@img')).sort()).toEqual(['colour', 'sharp-libvips-linux-arm64', 'sharp-linux-arm64']);
  });

  it('keeps sharp out of every other bundle', () => {
    // The hosting family reads app files (test/infra/hosting.test.ts); no other family touches the bucket.
    for (const name of Object.keys(families).filter((family) => family !== 'images' && family !== 'hosting')) {
      const bundle = bundleOf(`family:${name}`);
      expect(existsSync(join(bundle, 'node_modules')), name).toBe(false);
      expect(readFileSync(join(bundle, 'index.mjs'), 'utf8'), name).not.toMatch(/sharp-linux|@img\/sharp|libvips/);
    }
    for (const schedule of schedules) expect(existsSync(join(bundleOf(`schedule:${schedule.name}`), 'node_modules'))).toBe(false);
  });

  it('fails synthesis with what to run when the arm64 packages are not prepared', () => {
    if (process.platform === 'linux' && process.arch === 'arm64') return; // an arm64 machine installs them itself
    expect(() => nativeModuleFiles(['sharp'], '/nonexistent/.lambda-native/node_modules')).toThrow(/sharp-linux-arm64@[\d.]+ \(linux-arm64\).*npm run prepare:lambda-native/);
  });

  it(`serves ${imagesPathPattern} from the apps bucket (same origin access control), HTTPS, GET and HEAD, cached a year as immutable`, () => {
    const distribution = synth.json.Resources[resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!]!.Properties!.DistributionConfig;
    const behaviour = (distribution.CacheBehaviors as Record<string, any>[]).find((candidate) => candidate.PathPattern === imagesPathPattern)!;
    expect(behaviour).toMatchObject({ ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'], Compress: false });
    // The same bucket and Origin Access Control as app files (the bucket side of their failover group).
    const originOf = (id: string) => (distribution.Origins as Record<string, any>[]).find((origin) => origin.Id === id)!;
    const appFiles = (distribution.OriginGroups.Items as Record<string, any>[]).find((group) => group.Id === distribution.DefaultCacheBehavior.TargetOriginId)!;
    const bucketOrigin = originOf(appFiles.Members.Items[0].OriginId);
    expect(originOf(behaviour.TargetOriginId).DomainName).toEqual(bucketOrigin.DomainName);
    expect(originOf(behaviour.TargetOriginId).OriginAccessControlId).toEqual(bucketOrigin.OriginAccessControlId);
    const s3AccessControls = resourcesOfType(synth.json, 'AWS::CloudFront::OriginAccessControl').filter(
      (id) => synth.json.Resources[id]!.Properties!.OriginAccessControlConfig.OriginAccessControlOriginType === 's3',
    );
    expect(s3AccessControls).toHaveLength(1);
    const cachePolicy = synth.json.Resources[behaviour.CachePolicyId.Ref]!.Properties!.CachePolicyConfig;
    expect(cachePolicy).toMatchObject({ DefaultTTL: 31_536_000, MinTTL: 31_536_000, MaxTTL: 31_536_000 });
    expect(cachePolicy.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({ QueryStringsConfig: { QueryStringBehavior: 'none' }, CookiesConfig: { CookieBehavior: 'none' } });
    const headers = synth.json.Resources[behaviour.ResponseHeadersPolicyId.Ref]!.Properties!.ResponseHeadersPolicyConfig;
    expect(headers.CustomHeadersConfig.Items).toEqual(
      expect.arrayContaining([{ Header: 'Cache-Control', Value: imagesCacheControl, Override: true }, { Header: 'Access-Control-Allow-Origin', Value: '*', Override: true }]),
    );
    expect(imagesCacheControl).toBe('public, max-age=31536000, immutable');
  });

  it('roots image links at the distribution in every platform function but the CDN’s own origin, and outputs that root', () => {
    const distributionId = resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!;
    const expected = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']] };
    // The hosting function is an origin of the distribution: knowing its domain would be a cycle.
    const cdnOrigins = Object.entries(families).filter(([, family]) => 'cdnOrigin' in family).map(([name]) => functionWithRole(synth.json, `family:${name}`));
    expect(cdnOrigins).toHaveLength(1);
    for (const id of resourcesOfType(synth.json, 'AWS::Lambda::Function')) {
      const variables = synth.json.Resources[id]!.Properties!.Environment?.Variables;
      if (!variables?.POWERTOOLS_SERVICE_NAME) continue;
      expect(variables.CARTWHEEL_PUBLIC_IMAGES_URL, id).toEqual(cdnOrigins.includes(id) ? undefined : expected);
    }
    expect(synth.json.Outputs?.ImagesUrl?.Value).toEqual(expected);
  });

  it('lets the images family put, and the due-work job delete, under images/ of the apps bucket only', () => {
    const s3Statements = (role: string) =>
      roleStatements(synth.json, functionWithRole(synth.json, role)).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('s3:')));
    const images = s3Statements('family:images');
    expect(images.flatMap((statement) => [statement.Action].flat())).toContain('s3:PutObject');
    expect(images.flatMap((statement) => [statement.Action].flat()).some((action) => action.startsWith('s3:Delete'))).toBe(false);
    // The job also removes app files (test/infra/apps.test.ts); its image grant is delete only.
    const job = s3Statements('schedule:due-work').filter((statement) => JSON.stringify(statement.Resource).includes('/images/*'));
    expect(job.flatMap((statement) => [statement.Action].flat())).toEqual(['s3:DeleteObject']);
    for (const statement of [...images, ...job]) {
      expect(JSON.stringify(statement.Resource)).toMatch(/DataAppsBucket/);
      expect(JSON.stringify(statement.Resource)).toContain('/images/*');
    }
    // The apps family writes app files and the hosting family reads them (test/infra/apps.test.ts, hosting.test.ts); no other family touches the bucket.
    for (const name of Object.keys(families).filter((family) => !['images', 'apps', 'hosting'].includes(family))) {
      const onApps = roleStatements(synth.json, functionWithRole(synth.json, `family:${name}`)).filter((statement) => JSON.stringify(statement.Resource ?? '').includes('DataAppsBucket'));
      expect(onApps, name).toEqual([]);
    }
  });

  it('expires the old versions deleted image files leave in the versioned apps bucket', () => {
    synth.template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Prefix: 'images/', Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 1 }, ExpiredObjectDeleteMarker: true })]) },
    });
  });
});
