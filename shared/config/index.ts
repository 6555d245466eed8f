/**
 * Deployment configuration, read from the environment once.
 *
 * The CDK stack sets these variables on every Lambda function; the local runtime sets
 * the same variables on its own process before it loads any handler. Handlers never
 * branch on "cloud or local" beyond what is written here: endpoints, and the three
 * ports AWS cannot emulate on one machine (email, secret sealing, function runner).
 */
export interface PlatformConfig {
  /** DynamoDB table holding every record (single-table design). */
  tableName: string;
  /** SQS queue URLs by logical name (see infra/queues.ts). */
  queueUrls: Record<string, string>;
  /** S3 bucket for uploaded hosted-function code. */
  functionsBucket: string;
  /** S3 bucket for hosted app versions. */
  appsBucket: string;
  /** AWS region the clients talk to. */
  region: string;
  /** Endpoint overrides (local mode only): dynamodb, sqs, s3. */
  endpoints: { dynamodb?: string; sqs?: string; s3?: string };
  /** Email port: SES in the cloud, the outbox directory locally. */
  email: { kind: 'ses'; from: string } | { kind: 'outbox'; from: string; dir: string };
  /** Secret sealing port: KMS key in the cloud, a local key file locally. */
  secrets: { kind: 'kms'; keyId: string } | { kind: 'local'; keyFile: string };
  /** Token-bucket limits as `<per second>/<burst>` (conventions.md section 18). */
  rateLimits: { perToken: RateLimit; perIp: RateLimit };
  /** Domain under which hosted apps live: `<account_id>.<appsDomain>`. */
  appsDomain: string;
  /** Public base URLs used where no request host exists (account bootstrap output). */
  publicUrls: { api: string; functions: string; signin: string; appsTemplate: string };
}

/** A token bucket: `rate` tokens per second refill, at most `burst` held. */
export interface RateLimit {
  rate: number;
  burst: number;
}

let cached: PlatformConfig | undefined;

/** The platform configuration for this process (read from `process.env` on first use). */
export function config(): PlatformConfig {
  cached ??= readConfig(process.env);
  return cached;
}

/** Forget the cached configuration (tests and the local runtime set env, then call this). */
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
  const required = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`Missing environment variable ${name}`);
    return value;
  };
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
    email:
      env.CARTWHEEL_EMAIL === 'outbox'
        ? { kind: 'outbox', from: emailFrom, dir: required('CARTWHEEL_OUTBOX_DIR') }
        : { kind: 'ses', from: emailFrom },
    secrets:
      env.CARTWHEEL_SECRETS === 'local'
        ? { kind: 'local', keyFile: required('CARTWHEEL_LOCAL_KEY_FILE') }
        : { kind: 'kms', keyId: env.CARTWHEEL_KMS_KEY_ID ?? '' },
    rateLimits: {
      perToken: parseRateLimit(env.CARTWHEEL_RATE_PER_TOKEN, { rate: 100, burst: 200 }),
      perIp: parseRateLimit(env.CARTWHEEL_RATE_PER_IP, { rate: 10, burst: 20 }),
    },
    appsDomain: env.CARTWHEEL_APPS_DOMAIN ?? 'apps.localhost:4000',
    publicUrls: {
      api: apiUrl,
      functions: env.CARTWHEEL_PUBLIC_FUNCTIONS_URL ?? 'http://localhost:4000',
      signin: env.CARTWHEEL_PUBLIC_SIGNIN_URL ?? 'http://localhost:4000/signin/',
      appsTemplate: env.CARTWHEEL_PUBLIC_APPS_URL ?? 'http://{account_id}.apps.localhost:4000',
    },
  };
}
