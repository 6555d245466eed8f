import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: e2e files start whole runtimes; keep parallelism modest so timings stay sane.
    maxWorkers: 2,
  },
});
