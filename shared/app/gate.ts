/**
 * The API surface's gate (shared/http/gate.ts) over the identity and accounts modules: token
 * authentication, the per-address bucket of calls without a token, the account's CORS origins
 * and its rendering defaults.
 */
import type { PlatformConfig } from '../core/config';
import type { ApiGate } from '../http/gate';
import { readPaymentSettingsCached, readTechnicalSettingsCached } from '../modules/accounts';
import { authenticate, takeFromBucket } from '../modules/identity';
import type { Clock } from '../platform/ports';
import { ipBucketKey } from '../store/keys';

/**
 * The gate of this process on the platform's `clock`, with the rate limits, apps domain and
 * edge secret of its configuration (stateless: every read goes through the modules' own caches).
 */
export function apiGate(clock: Clock, settings: Pick<PlatformConfig, 'rateLimits' | 'appsDomain' | 'edgeSecret'>): ApiGate {
  const { rateLimits, appsDomain, edgeSecret } = settings;
  return {
    authenticate: (token) => authenticate(token, clock, rateLimits.perToken),
    throttleAnonymous: (sourceIp) => takeFromBucket(ipBucketKey(sourceIp), rateLimits.perIp, clock),
    allowedOrigins: async (accountId) => (await readTechnicalSettingsCached(accountId))?.cors_allowed_origins ?? [],
    appsDomain: () => appsDomain,
    edgeSecret,
    accountRendering: async (accountId) => {
      const [technical, payment] = await Promise.all([readTechnicalSettingsCached(accountId), readPaymentSettingsCached(accountId)]);
      return { timezone: technical?.timezone, locale: technical?.locale, payment };
    },
  };
}
