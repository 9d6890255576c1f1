import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage } from '../../src/storage/index.js';
import { runCli, summaryOf } from '../support/cli.js';
import { fixture } from '../support/fixtures.js';

/**
 * Scans ingested before the knowledge exists get their CVEs when it arrives (retroactive
 * re-mapping through the CLI), and later scans are matched on ingest — end to end through dist/.
 */

let dir: string;
let env: Record<string, string>;

const observation = (ip: string, cpe: string) =>
  JSON.stringify({ ip, port: 22, protocol: 'tcp', timestamp: '2026-11-01T00:00:00Z', fingerprints: [{ cpe }] });

async function cvesByIp(): Promise<Record<string, string[]>> {
  const storage = await createStorage({ engine: 'sqlite', file: env.VULNSCOPE_DATABASE_URL! }, { migrate: false });
  try {
    const records = await storage.hosts.scan(0, 100);
    return Object.fromEntries(records.map((r) => [r.ip, r.cves]));
  } finally {
    await storage.close();
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cli-matching-'));
  env = { VULNSCOPE_DATABASE_URL: path.join(dir, 'cli.db'), VULNSCOPE_RETENTION_DAYS: '0' };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('fingerprint → CVE matching from the CLI', () => {
  it('re-maps stored records when advisories arrive, and matches new scans on ingest', async () => {
    const scans = path.join(dir, 'before.ndjson');
    fs.writeFileSync(
      scans,
      `${[
        observation('192.0.2.1', 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*'),
        observation('192.0.2.2', 'cpe:2.3:a:openbsd:openssh:8.8:-:*:*:*:*:*:*'),
      ].join('\n')}\n`,
    );
    expect((await runCli(['ingest', 'scans', scans], env)).code).toBe(0);
    expect(await cvesByIp()).toEqual({ '192.0.2.1': [], '192.0.2.2': [] });

    const load = await runCli(['ingest', 'advisories', '--feed', 'nist-nvd2', fixture('nvd')], env);
    expect(load.code).toBe(0);
    const summary = summaryOf(load.stderr);
    // Both records run openssh (a touched product); only 8.5p1 lies in CVE-2021-41617's [6.2, 8.8).
    expect(summary).toMatchObject({ 'records re-mapped': '2', 'records changed': '1' });
    expect(Number(summary['re-map seconds'])).toBeGreaterThanOrEqual(0);
    expect(await cvesByIp()).toEqual({ '192.0.2.1': ['CVE-2021-41617'], '192.0.2.2': [] });

    const later = path.join(dir, 'after.ndjson');
    fs.writeFileSync(later, `${observation('192.0.2.3', 'cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*')}\n`);
    expect((await runCli(['ingest', 'scans', later], env)).code).toBe(0);
    expect((await cvesByIp())['192.0.2.3']).toEqual(['CVE-2013-2028', 'CVE-2021-23017']);

    // Nothing changed: a rebuild re-maps nothing.
    const rebuild = await runCli(['knowledge', 'rebuild'], env);
    expect(rebuild.code).toBe(0);
    expect(summaryOf(rebuild.stderr)['records changed'] ?? '0').toBe('0');
  });
});
