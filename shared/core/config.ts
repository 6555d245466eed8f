/**
 * Deployment configuration: names, endpoints, limits and URLs.
 *
 * In the cloud it is read from the environment the CDK stack sets on every Lambda function.
 * The local runtime builds the same object from its emulators and hands it over with
 * `useConfig` (it never writes `process.env`). Which adapter serves a port (SES or the outbox,
 * KMS or the local key) is not configuration: it is decided by who builds the `Platform`
 * (shared/app/platforms.ts, infra/local/platform.ts).
 *
 * Only the composition reads it (`config()`: shared/app in the cloud, handlers/, infra/), once,
 * and hands the parts on: the store's table, region and endpoint (`configureStore`), the API
 * gate's rate limits, apps domain and edge secret (the transport step's `tlsRequired`), the
 * fallback's and the CDN origin's edge secret, the public addresses as the platform's `site`
 * (`siteOf`: app URLs, image links, app hosts, notification and license request bodies), and
 * the public URLs of a new account. Nothing below shared/app reads it.
 */
export interface PlatformConfig {
  /** DynamoDB table holding every record (single-table design). */
  tableName: string;
  /** SQS queue URLs by logical name (see shared/app/queues.ts). */
  queueUrls: Record<string, string>;
  /** S3 bucket for uploaded hosted-function code. */
  functionsBucket: string;
  /** S3 bucket for hosted app versions. */
  appsBucket: string;
  /** AWS region the clients talk to. */
  region: string;
  /** Endpoint overrides (local mode only): dynamodb, sqs, s3. */
  endpoints: { dynamodb?: string; sqs?: string; s3?: string };
  /** Default sender of platform email. */
  emailFrom: string;
  /** The KMS key that seals secrets (cloud); empty for functions not granted it. */
  kmsKeyId: string;
  /** Proves that forwarded headers were set by the platform's own edge (CloudFront or the local gateway). */
  edgeSecret: string | undefined;
  /** Token-bucket limits as `<per second>/<burst>` (conventions.md section 18). */
  rateLimits: { perToken: RateLimit; perIp: RateLimit };
  /** Domain under which hosted apps live: `<account_id>.<appsDomain>`. */
  appsDomain: string;
  /** ARN of the CDN's copy of the alias pointers (CloudFront KeyValueStore); set only for functions granted `edgePointers`. */
  appPointersArn: string | undefined;
  /**
   * Hosted functions in the cloud (functions.md §10), set only for functions granted `functions`:
   * the one execution role every customer function runs with, and the stage's prefix of their
   * Lambda names (also their `cartwheel:platform` tag).
   */
  hostedFunctions: { roleArn: string; prefix: string } | undefined;
  /** Public base URLs used where no request host exists (account bootstrap output). */
  publicUrls: {
    api: string;
    functions: string;
    signin: string;
    appsTemplate: string;
    /** Root the `images/...` files are served under (the apps CDN in the cloud); unset: the request's own origin (local). */
    images: string | undefined;
  };
}

/**
 * The platform's public addresses, drawn into what it renders where no request host says them
 * (notification and license request bodies, app URLs, image links, app hosts). The composition
 * builds it from the configuration (`siteOf`) and the `Platform` carries it down.
 */
export interface Site {
  /** The API root, e.g. `https://api.example.com/api/v1/`. */
  apiUrl: string;
  /** Root the `images/...` files are served under (the apps CDN in the cloud); unset: the request's own origin (local). */
  imagesUrl: string | undefined;
  /** The public address of an account's apps, with `{account_id}` in it, e.g. `https://{account_id}.apps.example.com`. */
  appsTemplate: string;
  /** Domain under which hosted apps live: `<account_id>.<appsDomain>`. */
  appsDomain: string;
  /** Where hosted functions are invoked (`{functions_url}/func/v1/<id>`), e.g. `https://fn.example.com`. */
  functionsUrl: string;
}

/** The public addresses of a configuration. */
export function siteOf(settings: Pick<PlatformConfig, 'publicUrls' | 'appsDomain'>): Site {
  return { apiUrl: settings.publicUrls.api, imagesUrl: settings.publicUrls.images, appsTemplate: settings.publicUrls.appsTemplate, appsDomain: settings.appsDomain, functionsUrl: settings.publicUrls.functions };
}

/** A token bucket: `rate` tokens per second refill, at most `burst` held. */
export interface RateLimit {
  rate: number;
  burst: number;
}

let cached: PlatformConfig | undefined;

/** The platform configuration for this process (read from `process.env` on first use, unless `useConfig` set one). */
export function config(): PlatformConfig {
  cached ??= readConfig(process.env);
  return cached;
}

/** Sets this process's configuration (the local runtime, from its emulators). */
export function useConfig(settings: PlatformConfig): void {
  cached = settings;
}

/** Forget the configuration (tests that change `process.env`, then call this). */
export function resetConfig(): void {
  cached = undefined;
}

/** Parses `<per second>/<burst>`, e.g. `100/200`. Exported for tests. */
export function parseRateLimit(value: string | undefined, fallback: RateLimit): RateLimit {
  if (!value) return fallback;
  const match = /^(\d+(?:\.\d+)?)\/(\d+)$/.exec(value.trim());
  if (!match) throw new Error(`Invalid rate limit "${value}": expected <per second>/<burst>, e.g. 100/200`);
  const rate = Number(match[1]);
  const burst = Number(match[2]);
  if (rate <= 0 || burst < 1) throw new Error(`Invalid rate limit "${value}": both numbers must be positive`);
  return { rate, burst };
}

/** Builds a configuration from an environment map. Exported for tests. */
export function readConfig(env: NodeJS.ProcessEnv): PlatformConfig {
  const queueUrls: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^CARTWHEEL_QUEUE_URL_([A-Z0-9_]+)$/.exec(name);
    if (match && value) queueUrls[match[1]!.toLowerCase().replace(/_/g, '-')] = value;
  }
  const emailFrom = env.CARTWHEEL_EMAIL_FROM ?? 'no-reply@cartwheel.localhost';
  const apiUrl = env.CARTWHEEL_PUBLIC_API_URL ?? 'http://localhost:4000/api/v1/';
  return {
    // Checked where used: a function without table access (the fallback) has no table name.
    tableName: env.CARTWHEEL_TABLE ?? '',
    queueUrls,
    functionsBucket: env.CARTWHEEL_FUNCTIONS_BUCKET ?? '',
    appsBucket: env.CARTWHEEL_APPS_BUCKET ?? '',
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    endpoints: {
      dynamodb: env.CARTWHEEL_DYNAMODB_ENDPOINT || undefined,
      sqs: env.CARTWHEEL_SQS_ENDPOINT || undefined,
      s3: env.CARTWHEEL_S3_ENDPOINT || undefined,
    },
    emailFrom,
    kmsKeyId: env.CARTWHEEL_KMS_KEY_ID ?? '',
    edgeSecret: env.CARTWHEEL_EDGE_SECRET || undefined,
    rateLimits: {
      perToken: parseRateLimit(env.CARTWHEEL_RATE_PER_TOKEN, { rate: 100, burst: 200 }),
      perIp: parseRateLimit(env.CARTWHEEL_RATE_PER_IP, { rate: 10, burst: 20 }),
    },
    appsDomain: env.CARTWHEEL_APPS_DOMAIN ?? 'apps.localhost:4000',
    appPointersArn: env.CARTWHEEL_APP_POINTERS_KVS_ARN || undefined,
    hostedFunctions: env.CARTWHEEL_FUNCTIONS_PREFIX ? { roleArn: env.CARTWHEEL_FUNCTIONS_ROLE_ARN ?? '', prefix: env.CARTWHEEL_FUNCTIONS_PREFIX } : undefined,
    publicUrls: {
      api: apiUrl,
      functions: env.CARTWHEEL_PUBLIC_FUNCTIONS_URL ?? 'http://localhost:4000',
      signin: env.CARTWHEEL_PUBLIC_SIGNIN_URL ?? 'http://localhost:4000/signin/',
      appsTemplate: env.CARTWHEEL_PUBLIC_APPS_URL ?? 'http://{account_id}.apps.localhost:4000',
      images: env.CARTWHEEL_PUBLIC_IMAGES_URL || undefined,
    },
  };
}
