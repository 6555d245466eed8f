/**
 * The cloud `Platform`: SES, KMS, SQS, S3, the CDN's pointer store and Lambda for hosted functions (each when granted), the system clock, the built-in test gateway and
 * outbound HTTP that refuses every non-public address. Cloud handlers build it once at module
 * load (`cloudPlatform()`); every SDK client inside is made on first use, so a function pays
 * only for the ports it touches. Building it also points the store at the function's table,
 * unless this process's own composition already did (the local runtime and tests load the
 * handler modules, whose cloud handlers they never call).
 */
import { testGateway } from '../modules/payments';
import { config, siteOf } from '../core/config';
import { sesEmail } from '../platform/adapters/ses-email';
import { kmsSecrets } from '../platform/adapters/kms-secrets';
import { s3Objects, sqsQueues } from '../platform/adapters/aws-clients';
import { kvsEdgePointers } from '../platform/adapters/aws-edge-pointers';
import { lambdaFunctions } from '../platform/adapters/lambda-functions';
import { guardedHttp } from '../platform/adapters/outbound-http';
import { systemClock } from '../platform/adapters/system-clock';
import { stripeGateways } from '../platform/adapters/stripe-gateway';
import type { Platform } from '../platform/ports';
import { configureStore, storeConfigured } from '../store/client';

let built: Platform | undefined;

/** The platform of a cloud function, built once per process (on first call) from its configuration. */
export function cloudPlatform(): Platform {
  if (built) return built;
  const settings = config();
  if (!storeConfigured()) configureStore(settings);
  const objects = s3Objects({ region: settings.region, buckets: { functions: settings.functionsBucket, apps: settings.appsBucket } });
  built = {
    clock: systemClock,
    site: siteOf(settings),
    email: sesEmail({ from: settings.emailFrom, region: settings.region }),
    secrets: kmsSecrets({ keyId: settings.kmsKeyId, region: settings.region }),
    gateway: testGateway(systemClock),
    stripe: stripeGateways({ apiBase: 'https://api.stripe.com' }),
    http: guardedHttp({ allowLoopback: false }, systemClock),
    queues: sqsQueues({ region: settings.region, urls: settings.queueUrls }),
    objects,
    // Only functions granted `edgePointers` (shared/app/routes.ts) know the store.
    ...(settings.appPointersArn ? { edgePointers: kvsEdgePointers({ arn: settings.appPointersArn, region: settings.region }) } : {}),
    // Only functions granted `functions` know the role and prefix; the Lambda SDK loads on first use.
    ...(settings.hostedFunctions
      ? {
          functions: lambdaFunctions({
            region: settings.region,
            executionRoleArn: settings.hostedFunctions.roleArn,
            namePrefix: settings.hostedFunctions.prefix,
            objects,
            codeBucket: settings.functionsBucket,
          }),
        }
      : {}),
  };
  return built;
}
