/**
 * Opens a local data directory for an operator command while the runtime is stopped: takes
 * the directory lock, starts the emulators on it and points the shared code at them, the
 * same way the runtime does. Returns the function that closes everything again.
 */
import { systemClock } from '../../shared/platform/adapters/system-clock';
import { resetDb } from '../../shared/store/client';
import { dataPaths, lockDataDir } from './data-dir';
import { startEmulators } from './emulators';
import type { PlatformConfig } from '../../shared/core/config';
import type { Platform } from '../../shared/platform/ports';
import { useLocalPlatform } from './platform';

/** Opens `dataDir` for direct use; `port` only shapes the printed URLs. Answers the local platform, its configuration and the closer. */
export async function openLocalStore(dataDir: string, port: number): Promise<{ platform: Platform; settings: PlatformConfig; close: () => Promise<void> }> {
  const paths = dataPaths(dataDir);
  const release = lockDataDir(paths.root, 'account:create');
  try {
    const emulators = await startEmulators(paths.root);
    const { platform, settings } = useLocalPlatform(paths, emulators, port, systemClock);
    return {
      platform,
      settings,
      close: async () => {
        resetDb();
        await emulators.stop();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
