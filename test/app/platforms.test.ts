/**
 * The cloud platform offers the Lambda runner of hosted functions only to functions granted
 * `functions` (their environment names the role and prefix), and builds no Lambda client for it
 * until it is used.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

async function freshCloudPlatform(env: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const { resetConfig } = await import('../../shared/core/config');
  resetConfig();
  const { cloudPlatform } = await import('../../shared/app/platforms');
  return cloudPlatform();
}

describe('cloudPlatform functions', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('has no function runner without the grant', async () => {
    expect((await freshCloudPlatform({ CARTWHEEL_TABLE: 't' })).functions).toBeUndefined();
  });

  it('has the Lambda runner when the role and prefix are configured', async () => {
    const platform = await freshCloudPlatform({ CARTWHEEL_TABLE: 't', CARTWHEEL_FUNCTIONS_ROLE_ARN: 'arn:aws:iam::123456789012:role/fn', CARTWHEEL_FUNCTIONS_PREFIX: 'cwfn-dev' });
    expect(platform.functions).toMatchObject({ deploy: expect.any(Function), invoke: expect.any(Function), remove: expect.any(Function) });
  });
});
