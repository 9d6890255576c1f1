import { defineConfig } from 'vitest/config';

/**
 * The reliability suite (`npm run test:reliability`): crashes, outages, fuzzing, a soak and
 * full disks. Kept out of `npm test` so the ordinary run does not pay for it; files run one at a
 * time because each measures a server on a small machine.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/build.ts', 'test/reliability/support/report-setup.ts'],
  },
});
