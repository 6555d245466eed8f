/**
 * tls_required for real: a runtime bound to all interfaces, called over plain HTTP through
 * this machine's own non-loopback address, must refuse with 401 tls_required (never a
 * redirect), while loopback clients are served.
 */
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { api, startRuntime } from '../support/runtime-process';

const external = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;

describe.skipIf(!external)('plain HTTP from another address', () => {
  it('answers 401 tls_required and hides the local pages', async () => {
    const runtime = await startRuntime({ env: { HOST: '0.0.0.0' } });
    try {
      expect(runtime.output()).toMatch(/Warning: binding 0\.0\.0\.0/);
      const port = new URL(runtime.url).port;
      const token = runtime.bootstrap.tokens.live_secret;
      const remote = await api(`http://${external}:${port}/api/v1/auths`, { token });
      expect(remote.status).toBe(401);
      expect(remote.body.error.code).toBe('tls_required');
      const unknownPath = await api(`http://${external}:${port}/api/v2/x`);
      expect(unknownPath.body.error.code).toBe('tls_required');
      expect((await api(`http://${external}:${port}/_local/health`)).status).toBe(404);
      expect((await api(`${runtime.url}/api/v1/auths`, { token })).status).toBe(200);
    } finally {
      await runtime.stop();
    }
  });
});
