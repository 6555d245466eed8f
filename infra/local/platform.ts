/**
 * The local `Platform`: the same SDK adapters as the cloud pointed at the emulators (SQS and S3
 * in fauxqs), plus the ports AWS cannot emulate here: the email outbox, the local key, and
 * outbound HTTP that lets developers receive on localhost, all on the runtime's clock (the
 * system clock, or the manual one). It points the store at the emulated table
 * (`configureStore`), and hands the same configuration to `useConfig` for the handler modules
 * the gateway loads, which read it as their composition (the fallback family's handler, which
 * the gateway calls as it is; the other families' Lambda handlers, built but never called here).
 */
import { testGateway } from '../../shared/modules/payments';
import { readConfig, siteOf, useConfig, type PlatformConfig } from '../../shared/core/config';
import { s3Objects, sqsQueues } from '../../shared/platform/adapters/aws-clients';
import { guardedHttp } from '../../shared/platform/adapters/outbound-http';
import { stripeGateways } from '../../shared/platform/adapters/stripe-gateway';
import type { Clock, Platform } from '../../shared/platform/ports';
import { configureStore } from '../../shared/store/client';
import type { dataPaths } from './data-dir';
import type { Emulators } from './emulators';
import { holdDeployments, holdGateway } from './gateway-hold';
import { localSecrets } from './local-secrets';
import { outboxEmail } from './outbox';
import { localFunctionRunner, type LocalFunctionRunner } from './functions';

/** The configuration of a local runtime answering on `port`. */
function localConfig(emulators: Pick<Emulators, 'env'>, port: number, edgeSecret = ''): PlatformConfig {
  const origin = `http://localhost:${port}`;
  return readConfig({
    ...emulators.env,
    CARTWHEEL_EDGE_SECRET: edgeSecret,
    CARTWHEEL_APPS_DOMAIN: `apps.localhost:${port}`,
    CARTWHEEL_PUBLIC_API_URL: `${origin}/api/v1/`,
    CARTWHEEL_PUBLIC_FUNCTIONS_URL: origin,
    CARTWHEEL_PUBLIC_SIGNIN_URL: `${origin}/signin/`,
    CARTWHEEL_PUBLIC_APPS_URL: `http://{account_id}.apps.localhost:${port}`,
    // The operator's own rate limits and sender still apply locally.
    ...pick(process.env, ['CARTWHEEL_RATE_PER_TOKEN', 'CARTWHEEL_RATE_PER_IP', 'CARTWHEEL_EMAIL_FROM']),
  });
}

function pick(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((name) => env[name]).map((name) => [name, env[name]!]));
}

/**
 * Points the shared code at the emulators and builds the local ports on `clock`; answers them
 * with the configuration they were built from, for the parts of the runtime that take it. Used
 * by the runtime and by operator commands that open a stopped data directory, so both configure
 * the platform identically.
 */
export function useLocalPlatform(paths: ReturnType<typeof dataPaths>, emulators: Pick<Emulators, 'env'>, port: number, clock: Clock, edgeSecret = '', log?: (line: string) => void): { platform: LocalPlatform; settings: PlatformConfig } {
  const settings = localConfig(emulators, port, edgeSecret);
  useConfig(settings);
  configureStore(settings);
  return { platform: localPlatform(paths, settings, clock, log), settings };
}

/** The local ports; the function runner's own handle lets the runtime stop its children. */
export type LocalPlatform = Platform & { functions: LocalFunctionRunner };

/** The local ports over `paths` (data directory) and `settings`, on `clock`; `log` gets hosted functions' output. */
export function localPlatform(paths: Pick<ReturnType<typeof dataPaths>, 'outbox' | 'localKey' | 'functions'>, settings: PlatformConfig, clock: Clock, log?: (line: string) => void): LocalPlatform {
  const objects = s3Objects({ region: settings.region, endpoint: settings.endpoints.s3, buckets: { functions: settings.functionsBucket, apps: settings.appsBucket } });
  return {
    clock,
    site: siteOf(settings),
    email: outboxEmail({ dir: paths.outbox, from: settings.emailFrom, clock }),
    secrets: localSecrets(paths.localKey),
    // A test may hold authorizations and refunds (CARTWHEEL_GATEWAY_HOLD_FILE, CARTWHEEL_GATEWAY_REFUND_HOLD_FILE, gateway-hold.ts): local only.
    gateway: holdGateway(testGateway(clock), process.env.CARTWHEEL_GATEWAY_HOLD_FILE, process.env.CARTWHEEL_GATEWAY_REFUND_HOLD_FILE, process.env.CARTWHEEL_GATEWAY_CHARGED_HOLD_FILE),
    // The same Stripe adapter as the cloud, at CARTWHEEL_STRIPE_API_BASE (a stand-in, local-runtime.md);
    // CARTWHEEL_STRIPE_TIMEOUT_MS (tests only) shortens the 20 s wait so a hang is tested in seconds.
    stripe: stripeGateways({
      apiBase: process.env.CARTWHEEL_STRIPE_API_BASE || 'https://api.stripe.com',
      ...(Number(process.env.CARTWHEEL_STRIPE_TIMEOUT_MS) > 0 ? { timeoutMs: Number(process.env.CARTWHEEL_STRIPE_TIMEOUT_MS) } : {}),
    }),
    http: guardedHttp({ allowLoopback: true }, clock),
    queues: sqsQueues({ region: settings.region, endpoint: settings.endpoints.sqs, urls: settings.queueUrls }),
    objects,
    // Starts nothing until a function is called (operator commands build it too).
    // A test may hold deployments (CARTWHEEL_FUNCTION_DEPLOY_HOLD_FILE, gateway-hold.ts): local only.
    functions: holdDeployments(localFunctionRunner({ dir: paths.functions, objects, log }), process.env.CARTWHEEL_FUNCTION_DEPLOY_HOLD_FILE),
  };
}
