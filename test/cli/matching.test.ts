import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage } from '../../src/storage/index.js';
import { runCli, summaryOf } from '../support/cli.js';
import { fixture } from '../support/fixtures.js';

/**
 * Scans ingested before the knowledge exists get their CVEs when it arrives (retroactive
 * re-mapping with `vulnscope knowledge remap`), and later scans are matched on ingest — end to end through dist/.
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
    // A load only records the change; a running server, or `knowledge remap` without one, re-maps.
    expect(summaryOf(load.stderr)['records re-mapped']).toBe('pending');
    expect(await cvesByIp()).toEqual({ '192.0.2.1': [], '192.0.2.2': [] });
    const remap = await runCli(['knowledge', 'remap'], env);
    expect(remap.code).toBe(0);
    const summary = summaryOf(remap.stderr);
    // Both records run openssh (a touched product); only 8.5p1 lies in CVE-2021-41617's [6.2, 8.8).
    expect(summary).toMatchObject({ 'records re-mapped': '2', 'records changed': '1' });
    expect(Number(summary.seconds)).toBeGreaterThanOrEqual(0);
    expect(await cvesByIp()).toEqual({ '192.0.2.1': ['CVE-2021-41617'], '192.0.2.2': [] });
    // Done once: the next re-map finds nothing new.
    expect(summaryOf((await runCli(['knowledge', 'remap'], env)).stderr)['records re-mapped']).toBe('0');

    const later = path.join(dir, 'after.ndjson');
    fs.writeFileSync(later, `${observation('192.0.2.3', 'cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*')}\n`);
    expect((await runCli(['ingest', 'scans', later], env)).code).toBe(0);
    expect((await cvesByIp())['192.0.2.3']).toEqual(['CVE-2013-2028', 'CVE-2021-23017']);

    // Nothing changed: a rebuild touches no product, so nothing is left to re-map.
    const rebuild = await runCli(['knowledge', 'rebuild'], env);
    expect(rebuild.code).toBe(0);
    expect(summaryOf(rebuild.stderr)['products touched']).toBe('0');
    expect(summaryOf((await runCli(['knowledge', 'remap'], env)).stderr)['records changed']).toBe('0');
  });

  it("gives fingerprints without a CPE the CPE their product name has in nmap's service probes", async () => {
    // Lines in nmap-service-probes' format (written for this test; nmap's own file is not copied).
    const probes = path.join(dir, 'nmap-service-probes');
    fs.writeFileSync(
      probes,
      [
        'Probe TCP NULL q||',
        'match ssh m|^SSH-([\\d.]+)-OpenSSH_([\\w._-]+)\\r?\\n| p/OpenSSH/ v/$2/ i/protocol $1/ cpe:/a:openbsd:openssh:$2/',
        'match http m|^HTTP/1\\.[01] .*\\r\\nServer: nginx/([\\d.]+)|s p/nginx/ v/$1/ cpe:/a:igor_sysoev:nginx:$1/',
        '',
      ].join('\n'),
    );
    const scans = path.join(dir, 'no-cpe.ndjson');
    const named = (ip: string, product: string, version: string) =>
      JSON.stringify({ ip, port: 22, timestamp: '2026-11-01T00:00:00Z', fingerprints: [{ product, version }] });
    fs.writeFileSync(
      scans,
      `${[named('192.0.2.10', 'OpenSSH', '8.5p1'), named('192.0.2.11', 'Unknown sshd', '1.0')].join('\n')}\n`,
    );
    expect((await runCli(['ingest', 'scans', scans], env)).code).toBe(0);
    expect((await cvesByIp())['192.0.2.10']).toEqual([]);

    const withProbes = { ...env, VULNSCOPE_NMAP_SERVICE_PROBES: probes };
    const rescan = path.join(dir, 'no-cpe-again.ndjson');
    fs.writeFileSync(
      rescan,
      `${[named('192.0.2.12', 'OpenSSH', '8.5p1'), named('192.0.2.13', 'Unknown sshd', '1.0')].join('\n')}\n`,
    );
    expect((await runCli(['ingest', 'scans', rescan], withProbes)).code).toBe(0);
    const storage = await createStorage({ engine: 'sqlite', file: env.VULNSCOPE_DATABASE_URL! }, { migrate: false });
    try {
      const records = new Map((await storage.hosts.scan(0, 100)).map((r) => [r.ip, r]));
      expect(records.get('192.0.2.12')!.cves).toEqual(['CVE-2021-41617']);
      expect(records.get('192.0.2.12')!.fingerprints[0]).toMatchObject({
        cpe: 'cpe:2.3:a:openbsd:openssh:8.5p1:*:*:*:*:*:*:*',
        vendor: 'openbsd',
        product: 'openssh',
        version: '8.5p1',
        scanner_product: 'OpenSSH',
      });
      expect(records.get('192.0.2.13')!.fingerprints[0]).toEqual({ product: 'Unknown sshd', version: '1.0' });
    } finally {
      await storage.close();
    }

    const missing = await runCli(['ingest', 'scans', rescan], {
      ...env,
      VULNSCOPE_NMAP_SERVICE_PROBES: path.join(dir, 'none'),
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/nmap service-probe file/);
  });
});
