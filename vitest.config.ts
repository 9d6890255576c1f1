import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The reliability suite has its own run (vitest.reliability.config.ts).
    exclude: ['**/node_modules/**', 'test/reliability/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/build.ts'],
  },
});
