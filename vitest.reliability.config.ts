import { defineConfig } from 'vitest/config';

/**
 * The reliability suite (`npm run test:reliability`): crashes, outages, fuzzing, a soak and
 * full disks, kept out of `npm test`. The fuzz runs first, one file per engine side by side (it
 * is pure CPU in the test process); then the fault tests one file at a time, because each starts
 * servers and asserts time bounds that a busy neighbour would distort.
 */
export default defineConfig({
  test: {
    testTimeout: 600_000,
    hookTimeout: 180_000,
    pool: 'forks',
    globalSetup: ['test/support/build.ts', 'test/reliability/support/report-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'fuzz',
          include: ['test/reliability/fuzz-*.test.ts'],
          sequence: { groupOrder: 0 },
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['test/reliability/**/*.test.ts'],
          exclude: ['test/reliability/fuzz-*.test.ts'],
          sequence: { groupOrder: 1 },
          fileParallelism: false,
        },
      },
    ],
  },
});
