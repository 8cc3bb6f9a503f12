import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'projections/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // Each worker imports the module graph once and runs file after file in it: every file makes its own app,
    // database and site, and nothing of the service keeps state per process (the prototype guard runs per file).
    isolate: false,
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/setup/global.ts'],
    setupFiles: ['test/setup/prototype-guard.ts'],
  },
});
