import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Vitest global setup: end-to-end tests run the built CLI (`dist/`) and portal (`dist/portal`), as users do. */
export default function setup(): void {
  // For quick iterations on unit tests with a dist/ already built.
  if (process.env.VULNSCOPE_TEST_SKIP_BUILD === '1') return;
  // Once per run, also when several projects of one run (the reliability suite's) each list this setup.
  if (process.env.VULNSCOPE_TEST_BUILT === '1') return;
  process.env.VULNSCOPE_TEST_BUILT = '1';
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  execFileSync(process.execPath, ['scripts/build-portal.mjs'], { cwd: root, stdio: 'inherit' });
}
