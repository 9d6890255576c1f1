/**
 * `vulnscope ingest scans` runs under a heap limit: relaunched with Node's flag unless the process
 * already has one that low, and the relaunched child really has it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { relaunch, relaunchArgs } from '../../src/cli/heap-limit.js';

const MIB = 2 ** 20;

describe('relaunchArgs', () => {
  it.each([
    {
      name: 'no limit yet: relaunched with one',
      execArgv: [],
      heap: 4144,
      mb: 1536,
      expected: ['--max-old-space-size=1536', 'cli.js', 'ingest'],
    },
    {
      name: 'node flags are kept, an old limit replaced',
      execArgv: ['--enable-source-maps', '--max-old-space-size=8192'],
      heap: 8240,
      mb: 1536,
      expected: ['--enable-source-maps', '--max-old-space-size=1536', 'cli.js', 'ingest'],
    },
    {
      name: 'already that low: runs here',
      execArgv: ['--max-old-space-size=1536'],
      heap: 1568,
      mb: 1536,
      expected: undefined,
    },
    { name: 'lower still: runs here', execArgv: [], heap: 1024, mb: 1536, expected: undefined },
    { name: 'no limit wanted: runs here', execArgv: [], heap: 4144, mb: 0, expected: undefined },
  ])('$name', ({ execArgv, heap, mb, expected }) => {
    expect(relaunchArgs(execArgv, ['/usr/bin/node', 'cli.js', 'ingest'], mb, heap * MIB)).toEqual(expected);
  });

  it('runs the child with the limit and returns its exit code', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-heap-')), 'limit');
    const script = `require('fs').writeFileSync(${JSON.stringify(out)}, String(require('v8').getHeapStatistics().heap_size_limit)); process.exit(3)`;
    const args = relaunchArgs([], [process.execPath, '-e', script], 300, 4096 * MIB)!;
    expect(await relaunch(args)).toBe(3);
    const limit = Number(fs.readFileSync(out, 'utf8'));
    expect(limit).toBeGreaterThan(300 * MIB);
    expect(limit).toBeLessThan(300 * 1.25 * MIB);
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  });
});
