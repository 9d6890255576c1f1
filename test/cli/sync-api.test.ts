import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cveRequests, startFakeNvd, type FakeNvd } from '../feeds/fake-nvd.js';
import { runCli } from '../support/cli.js';

/** `vulnscope sync nist-nvd2` and `sync cpe-dictionary` end to end, the NVD base URL pointing at a local stand-in. */

let fake: FakeNvd;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  fake = await startFakeNvd();
  fake.maxPerPage = 10;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cli-sync-'));
  env = {
    VULNSCOPE_DATABASE_URL: path.join(dir, 'sync.db'),
    VULNSCOPE_NVD_BASE_URL: fake.base,
    VULNSCOPE_NVD_API_KEY: 'cli-test-key',
  };
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fake.requests.length = 0;
  delete fake.fail;
});

const summaryValue = (stderr: string, key: string) => {
  const match = new RegExp(`^\\s+${key}\\s+(.+)$`, 'm').exec(stderr);
  return match?.[1]?.trim();
};

describe('vulnscope sync (NVD APIs)', () => {
  it('syncs nist-nvd2 from the API: everything first, then only what changed', async () => {
    const first = await runCli(['sync', 'nist-nvd2'], env);
    expect(first.stderr).not.toMatch(/error/);
    expect(first.code).toBe(0);
    expect(cveRequests(fake).map((r) => [r.startIndex, r.from])).toEqual([
      [0, undefined],
      [10, undefined],
      [20, undefined],
    ]);
    expect(fake.requests.every((r) => r.apiKey === 'cli-test-key')).toBe(true);
    expect(summaryValue(first.stderr, 'runs')).toBe('full');
    expect(summaryValue(first.stderr, 'pages')).toBe('3');
    expect(summaryValue(first.stderr, 'added')).toBe('29');
    expect(summaryValue(first.stderr, 'records')).toBe('29');

    fake.requests.length = 0;
    const second = await runCli(['sync', 'nist-nvd2'], env);
    expect(second.code).toBe(0);
    const requests = cveRequests(fake);
    expect(requests.length).toBe(1);
    expect(requests[0]!.from).toBeDefined();
    expect(Date.now() - Date.parse(requests[0]!.to!)).toBeLessThan(60_000);
    expect(summaryValue(second.stderr, 'runs')).toBe('incremental');
    expect(summaryValue(second.stderr, 'records')).toBe('29');

    const feeds = await runCli(['feeds', '--json'], env);
    const listed = (JSON.parse(feeds.stdout) as Array<{ name: string; records: number }>).find(
      (f) => f.name === 'nist-nvd2',
    );
    expect(listed?.records).toBe(29);
  });

  it('reports a request NVD refuses and exits non-zero', async () => {
    fake.fail = () => 404;
    const result = await runCli(['sync', 'nist-nvd2', '--force'], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^vulnscope: NVD API request .*cves\/2\.0.* failed: HTTP 404.*induced failure/m);
    expect(result.stderr).not.toContain('cli-test-key');
  });

  it('syncs the CPE dictionary from the CPE and Match Criteria APIs', async () => {
    const result = await runCli(['sync', 'cpe-dictionary'], env);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(0);
    expect(fake.requests.map((r) => r.path)).toEqual(['/rest/json/cpes/2.0', '/rest/json/cpematch/2.0']);
    expect(summaryValue(result.stderr, 'products')).toBe('4');
    expect(summaryValue(result.stderr, 'match criteria')).toBe('4');
    expect(summaryValue(result.stderr, 'renames')).toBe('1');
  });
});
