/**
 * Points the shared platform code at the local emulators and ports: the environment
 * variables `shared/config` reads, set on this process. Used by the runtime and by operator
 * commands that open a stopped data directory, so both configure the platform identically.
 */
import { resetConfig } from '../../shared/config';
import { ensureLocalKey } from '../../shared/secrets';
import { resetDb } from '../../shared/store/client';
import type { dataPaths } from './data-dir';
import type { Emulators } from './emulators';

/** Sets the local configuration for a runtime answering on `port`. */
export function useLocalPlatform(paths: ReturnType<typeof dataPaths>, emulators: Emulators, port: number, edgeSecret = ''): void {
  ensureLocalKey(paths.localKey);
  const origin = `http://localhost:${port}`;
  Object.assign(process.env, emulators.env, {
    CARTWHEEL_EMAIL: 'outbox',
    CARTWHEEL_OUTBOX_DIR: paths.outbox,
    CARTWHEEL_SECRETS: 'local',
    CARTWHEEL_LOCAL_KEY_FILE: paths.localKey,
    CARTWHEEL_EDGE_SECRET: edgeSecret,
    CARTWHEEL_APPS_DOMAIN: `apps.localhost:${port}`,
    CARTWHEEL_PUBLIC_API_URL: `${origin}/api/v1/`,
    CARTWHEEL_PUBLIC_FUNCTIONS_URL: origin,
    CARTWHEEL_PUBLIC_SIGNIN_URL: `${origin}/signin/`,
    CARTWHEEL_PUBLIC_APPS_URL: `http://{account_id}.apps.localhost:${port}`,
  });
  resetConfig();
  resetDb();
}
