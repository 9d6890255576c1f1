import { describe, expect, it } from 'vitest';
import { WORKER_SEMI_SPACE_MIB, workerExecArgv } from './serve.js';

const added = `--max-semi-space-size=${WORKER_SEMI_SPACE_MIB}`;

describe('workerExecArgv', () => {
  it.each([
    { execArgv: [], nodeOptions: '', expected: [added] },
    { execArgv: ['--enable-source-maps'], nodeOptions: '', expected: ['--enable-source-maps', added] },
    { execArgv: ['--max-semi-space-size=32'], nodeOptions: '', expected: ['--max-semi-space-size=32'] },
    { execArgv: ['--max_semi_space_size=8'], nodeOptions: '', expected: ['--max_semi_space_size=8'] },
    { execArgv: [], nodeOptions: '--max-semi-space-size=128 --trace-gc', expected: [] },
    { execArgv: [], nodeOptions: '--max-old-space-size=4096', expected: [added] },
  ])('$execArgv with NODE_OPTIONS "$nodeOptions" → $expected', ({ execArgv, nodeOptions, expected }) => {
    expect(workerExecArgv(execArgv, nodeOptions)).toEqual(expected);
  });
});
