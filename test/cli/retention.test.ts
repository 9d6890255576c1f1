import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, summaryOf } from '../support/cli.js';
import { fixture } from '../support/fixtures.js';

/** Observations dropped as older than the retention window are said so, with the setting that changes it (issue #21). */

let dir: string;
let env: Record<string, string>;
const SCANS = fixture('scans/');
const nmapSamples = () =>
  fs
    .readdirSync(SCANS)
    .filter((name) => name.startsWith('nmap_') && name.endsWith('.xml'))
    .map((name) => path.join(SCANS, name));

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cli-retention-'));
  env = { VULNSCOPE_DATABASE_URL: path.join(dir, 'cli.db') };
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('vulnscope ingest scans: observations older than the retention window', () => {
  it('says how many were dropped, the window and the setting that changes it', async () => {
    const files = nmapSamples();
    const result = await runCli(['ingest', 'scans', ...files], env);
    expect(result.code, result.stderr).toBe(0);
    const summary = summaryOf(result.stderr);
    expect(summary).toMatchObject({ inserted: '0' });
    const expired = Number(summary.expired);
    expect(expired).toBeGreaterThan(50);
    expect(result.stderr).toContain(
      `\n${expired} observations were older than the 30-day retention window and were not stored (--retention-days N before the command, or VULNSCOPE_RETENTION_DAYS, sets the window; 0 keeps everything)\n`,
    );

    const week = await runCli(['ingest', 'scans', files[0]!], { ...env, VULNSCOPE_RETENTION_DAYS: '7' });
    expect(week.stderr).toMatch(/^\d+ observations? (was|were) older than the 7-day retention window/m);

    const kept = await runCli(['--retention-days', '0', 'ingest', 'scans', ...files], env);
    expect(kept.code, kept.stderr).toBe(0);
    expect(summaryOf(kept.stderr)).toMatchObject({ expired: '0' });
    expect(Number(summaryOf(kept.stderr).inserted)).toBeGreaterThan(0);
    expect(kept.stderr).not.toMatch(/retention window/);
  });
});
