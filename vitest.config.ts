import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'projections/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/setup/global.ts'],
    setupFiles: ['test/setup/prototype-guard.ts'],
  },
});
