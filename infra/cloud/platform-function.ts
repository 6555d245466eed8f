/**
 * One Lambda function of the platform (a route family or a queue consumer): the shared
 * bundling settings, the environment handlers read (shared/core/config.ts) and the IAM grants,
 * all derived from one `FamilyGrants` value so what a function may touch and what it is
 * told about can never disagree.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';
import { Duration, Fn, Stack, Tags } from 'aws-cdk-lib';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { FamilyGrants } from '../../shared/app/routes';
import { queueUrlVariable } from '../../shared/app/queues';
import { METRICS_NAMESPACE } from '../../shared/core/metrics';
import { tableDefinition } from '../../shared/store/table';
import { STAGED_PACKAGES_PREFIX } from '../../shared/platform/adapters/lambda-functions';
import { MANAGE_FUNCTIONS_ACTIONS } from './hosted-functions';
import { type BundleCopy, copyCommand, nativeModuleFiles, type NativeModule } from './native-modules';
import { DOCUMENT_FONT_FILES, DOCUMENT_FONTS_FOLDER, documentFontFolder } from '../../shared/flows/receipts/fonts';
import { DOCS_BUNDLE_FOLDER, SCALAR_SCRIPT } from '../../shared/http/docs-site';

/** The repository root: family `entry` paths in shared/app/routes.ts are relative to it. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** SDK packages bundled into functions instead of taken from the Lambda runtime (which may not ship them). */
export const BUNDLED_SDK_PACKAGES: readonly string[] = ['@aws-sdk/client-cloudfront-keyvaluestore', '@aws-sdk/signature-v4a'];

/** The `@aws-sdk/*` dependencies left to the Lambda runtime: every one the package names but the bundled ones. */
export function runtimeSdkPackages(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  return Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith('@aws-sdk/') && !BUNDLED_SDK_PACKAGES.includes(name));
}

/** Tag on every platform function naming what it serves, e.g. `family:auths`. */
export const roleTagKey = 'cartwheel:role';

/** Settings every function shares that only the stack knows (parameters, secrets). */
export interface SharedEnvironment {
  emailFrom: string;
  ratePerToken: string;
  ratePerIp: string;
  appsDomain: string;
  /** Value CloudFront sends as `x-cartwheel-edge`; proves X-Forwarded-Host came from the edge. */
  edgeSecret: string;
  /** Public base URLs (shared/core/config.ts `publicUrls`) used where a request has no host. */
  publicApiUrl: string;
  publicFunctionsUrl: string;
  publicSigninUrl: string;
  /** Root the `images/...` files are served under (the apps distribution), for image links. */
  publicImagesUrl: string;
  /** Where an account's apps live, `https://{account_id}.<apps domain>` (hosted apps' `app_url`). */
  publicAppsUrl: string;
  /** Powertools log level of every function (`POWERTOOLS_LOG_LEVEL`, the LogLevel parameter). @default INFO */
  logLevel?: string;
  /** Days every function's log group keeps its lines (the LogRetentionDays parameter). @default 30 */
  logRetentionDays?: number;
  /** Powertools Tracer (X-Ray, active tracing) on every function (context `tracing`). @default off */
  tracing?: boolean;
}

/** The resources a function may be granted, by the names `FamilyGrants` uses. */
export interface PlatformResources {
  table: dynamodb.ITable;
  secretsKey: kms.IKey;
  functionsBucket: s3.IBucket;
  appsBucket: s3.IBucket;
  /** The CDN's copy of the alias pointers (`edgePointers` grants); absent in stacks without app hosting. */
  appPointers?: cloudfront.IKeyValueStore;
  /** Work queues by logical name (shared/app/queues.ts). */
  queues: ReadonlyMap<string, sqs.IQueue>;
  /** The customer functions' execution role and name prefix (`functions` grants); absent in stacks without hosted functions. */
  hostedFunctions?: { executionRole: iam.IRole; prefix: string; functionArns: string };
  shared: SharedEnvironment;
}

/** What to build: a handler module and the grants it needs. */
export interface PlatformFunctionProps {
  /** Handler module relative to the repository root; it exports `handler`. */
  entry: string;
  memoryMb: number;
  description: string;
  grants: FamilyGrants;
  resources: PlatformResources;
  /** Tag value for `cartwheel:role`, e.g. `family:auths` or `consumer:license-requests`. */
  role: string;
  /** @default 29 s, just under the HTTP API's 30 s integration limit */
  timeout?: Duration;
  /** Variables beyond those derived from the grants (a consumer's own queue URL). */
  extraEnvironment?: Record<string, string>;
  /** Packages with native code shipped beside the bundle for linux-arm64 (native-modules.ts). */
  nativeModules?: readonly NativeModule[];
  /** Ship the fonts printed documents embed in `fonts/` beside the bundle (`FamilyDefinition.documentFonts`). */
  documentFonts?: boolean;
  /** Ship the API reference's vendored script in `docs/` beside the bundle (`FamilyDefinition.apiReference`). */
  apiReference?: boolean;
  /** An origin of the apps CDN: left without the CDN's own address (the image root), which would be a cycle. */
  cdnOrigin?: boolean;
}

/** A bundled Node.js 22 function whose environment and IAM come from its grants. */
export class PlatformFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  /** What it serves, e.g. `family:carts` (also its `cartwheel:role` tag); alarms group functions by the part before `:`. */
  readonly role: string;
  /** What it was granted (the cdk-nag acknowledgements follow from it: ./nag-acknowledgements.ts). */
  readonly grants: FamilyGrants;

  constructor(scope: Construct, id: string, props: PlatformFunctionProps) {
    super(scope, id);
    const { grants, resources } = props;

    // An explicit log group keeps retention bounded without the LogRetention custom
    // resource (which would add a Lambda of another runtime to the stack).
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH });
    // The LogRetentionDays parameter, when the stack has one (a token the enum cannot hold).
    if (resources.shared.logRetentionDays !== undefined) (logGroup.node.defaultChild as logs.CfnLogGroup).retentionInDays = resources.shared.logRetentionDays;
    this.role = props.role;
    this.grants = grants;

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(repoRoot, props.entry),
      handler: 'handler',
      projectRoot: repoRoot,
      depsLockFilePath: path.join(repoRoot, 'package-lock.json'),
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memoryMb,
      timeout: props.timeout ?? Duration.seconds(29),
      logGroup,
      ...(resources.shared.tracing ? { tracing: lambda.Tracing.ACTIVE } : {}),
      environment: { ...environmentFor(grants, resources, { cdnOrigin: props.cdnOrigin }), ...props.extraEnvironment },
      bundling: bundlingFor(props.nativeModules ?? [], grants.functions === 'manage', props.documentFonts ?? false, resources.shared.tracing ?? false, props.apiReference ?? false),
    });
    Tags.of(this.function).add(roleTagKey, props.role);

    grantAccess(this.function, grants, resources);
  }
}

/**
 * esbuild settings shared by every bundle. ESM output needs a `require` for the CommonJS
 * dependencies esbuild inlines (they call `require('node:...')` at run time).
 */
const bundlingOptions: nodejs.BundlingOptions = {
  minify: true,
  sourceMap: true,
  // Stack traces only need file/line mappings; embedding sources would double the asset.
  sourcesContent: false,
  target: 'node22',
  format: nodejs.OutputFormat.ESM,
  mainFields: ['module', 'main'],
  // Its own name for createRequire: a bundled ES module that imports `createRequire` itself (pdfkit does) would otherwise declare it twice.
  banner: "import { createRequire as bundleCreateRequire } from 'module'; const require = bundleCreateRequire(import.meta.url);",
  // The nodejs22.x runtime ships AWS SDK v3; bundling it would only grow cold starts. Not the
  // packages it may lack (the KeyValueStore client and its SigV4A signer): those are bundled.
  externalModules: runtimeSdkPackages(),
  forceDockerBundling: false,
};

/** Where the hosted functions' runtime wrappers are, and where a deploying function's bundle holds them (beside `index.mjs`). */
export const FUNCTION_WRAPPER_COPY: BundleCopy = { from: path.join(repoRoot, 'shared/platform/function-wrapper'), to: 'function-wrapper' };

/** The fonts printed documents embed, from the installed package into the bundle's `fonts/` (where shared/flows/receipts/fonts.ts looks first). */
export function documentFontCopies(): BundleCopy[] {
  const folder = documentFontFolder();
  return Object.values(DOCUMENT_FONT_FILES).map((file) => ({ from: path.join(folder, file), to: path.posix.join(DOCUMENT_FONTS_FOLDER, file) }));
}

/** The API reference's vendored script, from the repository into the bundle's `docs/` (where handlers/http/docs.ts looks first). */
export function apiReferenceCopies(): BundleCopy[] {
  return [{ from: path.join(repoRoot, 'infra/docs/vendor', SCALAR_SCRIPT), to: path.posix.join(DOCS_BUNDLE_FOLDER, SCALAR_SCRIPT) }];
}

/**
/**
 * The Powertools Tracer: bundled only into a stack with tracing on. With tracing off it is an
 * external module the code never reaches (shared/core/tracing.ts imports it only when
 * `POWERTOOLS_TRACE_ENABLED` is `true`), so no function carries it or the X-Ray SDK and the
 * default cold start pays nothing for them (bench/observability.ts, part 3).
 */
export const TRACER_PACKAGE = '@aws-lambda-powertools/tracer';

/**
 * The bundling of a function: the shared settings, the Tracer left out unless `tracing`, and
 * files beside the bundle, copied after esbuild ran: native modules (esbuild leaves them
 * external; their JavaScript and linux-arm64 binaries go into the bundle's `node_modules`), for
 * functions that deploy hosted functions the runtime wrappers the Lambda runner adds to each
 * package (it reads them from `function-wrapper/` at run time), for families that print
 * documents the fonts (`fonts/`), and for the API reference its script (`docs/`).
 */
export function bundlingFor(modules: readonly NativeModule[], functionWrappers: boolean, documentFonts: boolean, tracing: boolean, apiReference = false): nodejs.BundlingOptions {
  const tracer = tracing ? [] : [TRACER_PACKAGE];
  if (!modules.length && !functionWrappers && !documentFonts && !apiReference) return { ...bundlingOptions, externalModules: [...(bundlingOptions.externalModules ?? []), ...tracer] };
  const { externals, copies } = modules.length ? nativeModuleFiles(modules) : { externals: [], copies: [] };
  const allCopies = [...copies, ...(functionWrappers ? [FUNCTION_WRAPPER_COPY] : []), ...(documentFonts ? documentFontCopies() : []), ...(apiReference ? apiReferenceCopies() : [])];
  return {
    ...bundlingOptions,
    externalModules: [...(bundlingOptions.externalModules ?? []), ...externals, ...tracer],
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir, outputDir) => [copyCommand(outputDir, allCopies)],
    },
  };
}

/** The environment variables (shared/core/config.ts) a function with these grants receives. */
export function environmentFor(grants: FamilyGrants, resources: PlatformResources, options: { cdnOrigin?: boolean } = {}): Record<string, string> {
  const { shared } = resources;
  const environment: Record<string, string> = {
    CARTWHEEL_FUNCTIONS_BUCKET: resources.functionsBucket.bucketName,
    CARTWHEEL_APPS_BUCKET: resources.appsBucket.bucketName,
    CARTWHEEL_EMAIL_FROM: shared.emailFrom,
    CARTWHEEL_RATE_PER_TOKEN: shared.ratePerToken,
    CARTWHEEL_RATE_PER_IP: shared.ratePerIp,
    CARTWHEEL_APPS_DOMAIN: shared.appsDomain,
    CARTWHEEL_EDGE_SECRET: shared.edgeSecret,
    CARTWHEEL_PUBLIC_API_URL: shared.publicApiUrl,
    CARTWHEEL_PUBLIC_FUNCTIONS_URL: shared.publicFunctionsUrl,
    CARTWHEEL_PUBLIC_SIGNIN_URL: shared.publicSigninUrl,
    CARTWHEEL_PUBLIC_APPS_URL: shared.publicAppsUrl,
    // Every function may render products, and so image links.
    CARTWHEEL_PUBLIC_IMAGES_URL: shared.publicImagesUrl,
    NODE_OPTIONS: '--enable-source-maps',
    POWERTOOLS_SERVICE_NAME: 'cartwheel',
    // Custom metrics (shared/core/metrics.ts) land in this namespace; the alarms read them there.
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: shared.logLevel ?? 'INFO',
  };
  environment.POWERTOOLS_TRACE_ENABLED = shared.tracing ? 'true' : 'false';
  // A CDN origin cannot name the distribution in front of it (a dependency cycle); it renders
  // neither image links nor app URLs.
  if (options.cdnOrigin) {
    delete environment.CARTWHEEL_PUBLIC_IMAGES_URL;
    delete environment.CARTWHEEL_PUBLIC_APPS_URL;
  }
  if (grants.table !== 'none') environment.CARTWHEEL_TABLE = resources.table.tableName;
  if (grants.secrets !== 'none') environment.CARTWHEEL_KMS_KEY_ID = resources.secretsKey.keyId;
  for (const name of grants.sendsTo) {
    environment[queueUrlVariable(name)] = queueNamed(resources, name).queueUrl;
  }
  if (grants.edgePointers) environment[APP_POINTERS_VARIABLE] = appPointersOf(resources).keyValueStoreArn;
  if (grants.functions) {
    const hosted = hostedFunctionsOf(resources);
    environment.CARTWHEEL_FUNCTIONS_ROLE_ARN = hosted.executionRole.roleArn;
    environment.CARTWHEEL_FUNCTIONS_PREFIX = hosted.prefix;
  }
  return environment;
}

/** Grants exactly what `grants` names: nothing for `none`, `false` or an empty list. */
export function grantAccess(grantee: lambda.IFunction, grants: FamilyGrants, resources: PlatformResources): void {
  // The calls the store makes (shared/store/), on the table and its indexes: never Scan (no
  // request path scans), nor the table-level actions grantReadData adds (DescribeTable, streams).
  // Each index by name (shared/store/table.ts): no `index/*` wildcard.
  const tableArns = [resources.table.tableArn, ...tableDefinition.indexes.map((index) => `${resources.table.tableArn}/index/${index.name}`)];
  if (grants.table === 'read' || grants.table === 'readWrite') {
    grantee.addToRolePolicy(new iam.PolicyStatement({ actions: [...(grants.table === 'read' ? TABLE_READ_ACTIONS : [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS])], resources: tableArns }));
  }

  // Sealing is Encrypt, opening is Decrypt (shared/platform/adapters: one call each, no data keys).
  const keyActions = { none: [], encrypt: ['kms:Encrypt'], decrypt: ['kms:Decrypt'], encryptDecrypt: ['kms:Encrypt', 'kms:Decrypt'] }[grants.secrets];
  if (keyActions.length) grantee.addToRolePolicy(new iam.PolicyStatement({ actions: keyActions, resources: [resources.secretsKey.keyArn] }));

  if (grants.email) {
    // SES authorizes a send against the identity of its sender: the configured address (or its
    // domain, whichever identity the operator verified), and only with that From address.
    const stack = Stack.of(resources.table);
    const sender = resources.shared.emailFrom;
    const senderDomain = Fn.select(1, Fn.split('@', sender));
    grantee.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [
          stack.formatArn({ service: 'ses', resource: 'identity', resourceName: sender }),
          stack.formatArn({ service: 'ses', resource: 'identity', resourceName: senderDomain }),
        ],
        conditions: { StringEquals: { 'ses:FromAddress': sender } },
      }),
    );
  }

  // SendMessage alone: handlers get the URL from the environment, so no GetQueueUrl.
  for (const name of grants.sendsTo) queueNamed(resources, name).grant(grantee, 'sqs:SendMessage');

  // Objects under the named prefixes only (the bucket names come from the environment).
  for (const grant of grants.objects ?? []) {
    const bucket = grant.bucket === 'apps' ? resources.appsBucket : resources.functionsBucket;
    if (grant.read) {
      grantee.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(`${grant.prefix}*`)] }));
      // Listing the same prefix makes a missing key a NoSuchKey (404) instead of AccessDenied.
      grantee.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': [`${grant.prefix}*`] } } }),
      );
    }
    // PutObject and DeleteObject alone: never a version's delete (s3:DeleteObjectVersion), so a
    // mistake stays recoverable from the noncurrent version; no ACL, retention or tagging calls.
    if (grant.put) grantee.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects(`${grant.prefix}*`)] }));
    if (grant.delete) grantee.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:DeleteObject'], resources: [bucket.arnForObjects(`${grant.prefix}*`)] }));
  }

  // The CDN's pointer copy: put and delete keys (each write names the store's current ETag, from Describe).
  if (grants.edgePointers) {
    grantee.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...APP_POINTERS_ACTIONS], resources: [appPointersOf(resources).keyValueStoreArn] }),
    );
  }

  // Customer Lambdas by the stage's name prefix only: the platform's own functions are never reachable.
  if (grants.functions === 'manage') {
    const hosted = hostedFunctionsOf(resources);
    grantee.addToRolePolicy(new iam.PolicyStatement({ actions: [...MANAGE_FUNCTIONS_ACTIONS], resources: [hosted.functionArns] }));
    // The one execution role, and only to Lambda.
    grantee.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['iam:PassRole'], resources: [hosted.executionRole.roleArn], conditions: { StringEquals: { 'iam:PassedToService': 'lambda.amazonaws.com' } } }),
    );
    // Staged packages: written by the runner, read by Lambda with the caller's rights, deleted once served.
    grantee.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'], resources: [resources.functionsBucket.arnForObjects(`${STAGED_PACKAGES_PREFIX}*`)] }),
    );
  }
  if (grants.functions === 'invoke') {
    const hosted = hostedFunctionsOf(resources);
    grantee.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [hosted.functionArns],
        conditions: { StringEquals: { 'aws:ResourceTag/cartwheel:platform': hosted.prefix } },
      }),
    );
  }
}

/** What a `read` table grant allows: the store's reads (shared/store/), no Scan. */
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'] as const;

/** What a `readWrite` grant adds: the store's writes (transactions are authorized per item action). */
export const TABLE_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'] as const;

/** The hosted functions' role and prefix, or a synth-time error for a grant in a stack without them. */
function hostedFunctionsOf(resources: PlatformResources): NonNullable<PlatformResources['hostedFunctions']> {
  if (!resources.hostedFunctions) throw new Error('A functions grant needs the hosted functions role and prefix (resources.hostedFunctions)');
  return resources.hostedFunctions;
}

/** Environment variable holding the ARN of the alias pointers' KeyValueStore (`edgePointers` grants). */
export const APP_POINTERS_VARIABLE = 'CARTWHEEL_APP_POINTERS_KVS_ARN';

/** What an `edgePointers` grant allows on the KeyValueStore, and nothing else. */
export const APP_POINTERS_ACTIONS = [
  'cloudfront-keyvaluestore:DescribeKeyValueStore',
  'cloudfront-keyvaluestore:PutKey',
  'cloudfront-keyvaluestore:DeleteKey',
] as const;

/** The pointer store, or a synth-time error for a grant in a stack without one. */
function appPointersOf(resources: PlatformResources): cloudfront.IKeyValueStore {
  if (!resources.appPointers) throw new Error('An edgePointers grant needs the app pointers KeyValueStore (resources.appPointers)');
  return resources.appPointers;
}

/** The queue with this logical name, or a synth-time error naming the bad reference. */
function queueNamed(resources: PlatformResources, name: string): sqs.IQueue {
  const queue = resources.queues.get(name);
  if (!queue) {
    throw new Error(`Unknown queue "${name}" in grants.sendsTo (known: ${[...resources.queues.keys()].join(', ') || 'none'})`);
  }
  return queue;
}
