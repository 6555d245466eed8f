import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Chromium, bubblewrap and poppler-utils are on the machine (installed with apt when allowed).
    globalSetup: ['test/support/system-packages.ts'],
    testTimeout: 60_000,
    // Suites that synthesize the CDK app bundle every Lambda function with esbuild in beforeAll:
    // about 30 s on a quiet 2-core machine, over 120 s when it is loaded; a hang still fails.
    hookTimeout: 300_000,
    pool: 'forks',
    // Two cores: e2e files start whole runtimes; keep parallelism modest so timings stay sane.
    maxWorkers: 2,
    // Access lines and EMF metric lines (one per request, per outcome) would bury the report;
    // test/observability turns them back on where they are the behaviour under test.
    env: { POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'true' },
  },
});
