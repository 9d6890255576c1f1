import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCidr, parseIp, rangeContains } from '../../src/core/ip.js';
import { createStorage } from '../../src/storage/index.js';
import { DEMO_SERVICES } from '../../src/ingest/demo/catalog.js';
import { freePort, runCli, spawnCli } from '../support/cli.js';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-demo-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A fresh SQLite database and backup directory in the test's folder. */
function envFor(name: string): Record<string, string> {
  return {
    VULNSCOPE_DATABASE_URL: path.join(dir, `${name}.db`),
    VULNSCOPE_BACKUP_DIR: path.join(dir, `${name}-backups`),
    VULNSCOPE_LOG_LEVEL: 'warn',
  };
}

/** Holds a port the way another program would. */
async function occupy(): Promise<{ port: number; close(): Promise<void> }> {
  const port = await freePort();
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('a port already in use', () => {
  it.each([
    ['demo', ['demo', '--records', '20']],
    ['serve', ['serve']],
    ['serve --workers 2', ['serve', '--workers', '2']],
  ])('%s exits 1 with one line naming the address and how to choose another', async (name, args) => {
    const taken = await occupy();
    try {
      const result = await runCli([...args, '--port', String(taken.port)], envFor(name.replace(/\W+/g, '-')));
      expect(result.code, result.stderr).toBe(1);
      // One line, whatever prefix the CLI gives its errors, and no stack trace.
      const lines = result.stderr.split('\n').filter((line) => line.includes('cannot listen'));
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0], result.stderr).toMatch(
        new RegExp(
          `^\\S+: cannot listen on 127\\.0\\.0\\.1:${taken.port}: the address is already in use; choose another port with --port or VULNSCOPE_PORT$`,
        ),
      );
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await taken.close();
    }
  });
});

describe('vulnscope demo --no-serve', () => {
  it('keeps one demo token: reused while valid, replaced (and the old one revoked) when its file is gone', async () => {
    const env = envFor('token');
    const file = `${env.VULNSCOPE_DATABASE_URL}.demo-token`;
    const first = await runCli(['demo', '--records', '20', '--no-serve'], env);
    expect(first.code, first.stderr).toBe(0);
    const token = first.stdout.trim();
    expect(token).toMatch(/^vs_[A-Za-z0-9_-]{43}$/);
    expect(first.stderr).toMatch(/demo token: created token \d+, saved in .*demo-token \(mode 0600\)/);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(token);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const second = await runCli(['demo', '--records', '20', '--no-serve'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe(token);
    expect(second.stderr).toMatch(/demo token: reusing token \d+, saved in /);

    fs.rmSync(file);
    const third = await runCli(['demo', '--records', '20', '--no-serve'], env);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout.trim()).not.toBe(token);
    expect(third.stderr).toMatch(/revoked the earlier demo token \d+/);

    const tokens = JSON.parse((await runCli(['token', 'list', '--json'], env)).stdout) as Array<{
      name: string;
      state: string;
    }>;
    expect(tokens.filter((t) => t.name === 'demo').map((t) => t.state)).toEqual(['revoked', 'active']);
  });
});

describe('the demo dataset as served', () => {
  it('the banner counts the records stored (after supersession), all in reserved address ranges', async () => {
    const env = envFor('count');
    const result = await runCli(['demo', '--records', '3000', '--no-serve'], env);
    expect(result.code, result.stderr).toBe(0);
    const banner =
      /demo dataset: ([\d,]+) target-intel records served \(from 3,000 observations; ([\d,]+) superseded/.exec(
        result.stderr,
      );
    expect(banner, result.stderr).not.toBeNull();
    const announced = Number(banner![1]!.replace(/,/g, ''));
    expect(Number(banner![2]!.replace(/,/g, ''))).toBeGreaterThan(0);

    const storage = await createStorage({ engine: 'sqlite', file: env.VULNSCOPE_DATABASE_URL! });
    try {
      expect(await storage.hosts.count()).toBe(announced);
      const records = await storage.hosts.scan(0, 10_000);
      expect(records).toHaveLength(announced);
      // RFC 5737 documentation, RFC 2544 benchmarking, RFC 3849 IPv6 documentation: never 100.64.0.0/10.
      const reserved = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '198.18.0.0/15', '2001:db8::/32'].map(
        parseCidr,
      );
      const outside = records.filter((r) => !reserved.some((range) => rangeContains(range, parseIp(r.ip))));
      expect(outside.map((r) => r.ip)).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});

describe('the demo exercises the whole product', () => {
  let env: Record<string, string>;
  let token: string;
  let base: string;
  let server: ReturnType<typeof spawnCli> | undefined;
  const get = async (url: string) => {
    const response = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    env = envFor('whole');
    const result = await runCli(['demo', '--records', '2000', '--no-serve'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/demo advisories: nist-nvd2 \d+ records, mitre-cvelist-v5 \d+ records; knowledge of/);
    expect(result.stderr).toMatch(/demo backups in .*: .*nist-nvd2 .*target-intel \(/);
    token = result.stdout.trim();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawnCli(['serve', '--port', String(port)], { ...env, VULNSCOPE_RATE_LIMIT: 'unlimited' });
    for (let i = 0; i < 300; i++) {
      const up = await fetch(`${base}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the server did not start');
  });
  afterAll(async () => {
    if (!server) return;
    server.kill('SIGTERM');
    await new Promise((resolve) => server!.on('close', resolve));
  });

  it('demo hosts carry the CVEs of their versions, matched by the knowledge at ingest', async () => {
    const storage = await createStorage({ engine: 'sqlite', file: env.VULNSCOPE_DATABASE_URL! });
    try {
      const records = await storage.hosts.scan(0, 10_000);
      const byCpe = new Map(DEMO_SERVICES.map((service) => [service.cpe, service]));
      for (const record of records) {
        const service = byCpe.get(record.fingerprints[0]!.cpe!)!;
        expect(record.knowledgeCves, service.cpe).toEqual([...service.cves].sort());
        expect(record.cves, service.cpe).toEqual([...service.cves].sort());
      }
      // Every service with CVEs appears, and some get their CVEs from the knowledge alone.
      const vulnerable = DEMO_SERVICES.filter((service) => service.cves.length > 0).map((s) => s.cpe);
      expect(new Set(records.map((r) => r.fingerprints[0]!.cpe)).size).toBe(DEMO_SERVICES.length);
      expect(
        records.filter((r) => vulnerable.includes(r.fingerprints[0]!.cpe!) && r.scannerCves.length === 0).length,
      ).toBeGreaterThan(0);
    } finally {
      await storage.close();
    }
  });

  it('facets and export answer over the demo records', async () => {
    const listed = await get('/v3/index/target-intel?contains_cve=true&limit=1');
    const facets = await get('/v3/index/target-intel/facets?contains_cve=true&fields=country_code,port,product,cve:5');
    expect(facets.status).toBe(200);
    expect(facets.body._meta.total_documents).toBe(listed.body._meta.total_documents);
    expect(facets.body.data.cve.values).toHaveLength(5);
    expect(facets.body.data.product.values.length).toBeGreaterThan(0);
    const response = await fetch(`${base}/v3/index/target-intel/export?contains_cve=true`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const lines = (await response.text()).split('\n').filter(Boolean);
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      _meta: { complete: true, records: listed.body._meta.total_documents },
    });
  });

  it('target-intel answers confirmed=true and explain=true', async () => {
    const confirmed = await get('/v3/index/target-intel?cve=CVE-2024-6387&confirmed=true&explain=true&limit=5');
    expect(confirmed.status).toBe(200);
    expect(confirmed.body._meta.total_documents).toBeGreaterThan(0);
    const evidence = confirmed.body.data[0].cve_evidence.find((e: { source: string }) => e.source === 'nvd');
    expect(evidence).toMatchObject({ cve: 'CVE-2024-6387', kind: 'version_range', confirmed: true });
    // CVE 5 knowledge (CISA's ADP container) and a rename (igor_sysoev:nginx → f5:nginx).
    const jenkins = await get('/v3/index/target-intel?cve=CVE-2024-23897&confirmed=true&explain=true&limit=1');
    expect(jenkins.body.data[0].cve_evidence[0]).toMatchObject({ source: 'adp', confirmed: true });
    const renamed = await get('/v3/index/target-intel?product=nginx&version=1.18.0&explain=true&limit=1');
    expect(renamed.body.data[0].cve).toEqual(['CVE-2021-23017']);
    expect(renamed.body.data[0].cve_evidence[0].alias).toMatch(/f5:nginx/);
  });

  it('CPE search lists the products with their CVEs', async () => {
    const search = await get('/v3/search/cpe?vendor=apache&product=http_server');
    expect(search.status).toBe(200);
    const cves = Object.fromEntries(search.body.data.map((r: { cpe: string; cves: string[] }) => [r.cpe, r.cves]));
    expect(cves['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*']).toEqual(['CVE-2021-41773', 'CVE-2021-42013']);
    expect(cves['cpe:2.3:a:apache:http_server:2.4.50:*:*:*:*:*:*:*']).toEqual(['CVE-2021-42013']);
    expect(cves['cpe:2.3:a:apache:http_server:2.4.58:*:*:*:*:*:*:*']).toEqual([]);
  });

  it('advisories answer from both feeds', async () => {
    const nvd = await get('/v4/advisory?name=nist-nvd2&cve_id=CVE-2021-41773');
    expect(nvd.status).toBe(200);
    expect(nvd.body.data).toHaveLength(1);
    expect(nvd.body.data[0].cveMetadata.cveId).toBe('CVE-2021-41773');
    const cve5 = await get('/v4/advisory?name=mitre-cvelist-v5&cve_id=CVE-2024-23897');
    expect(cve5.body.data).toHaveLength(1);
    const list = await get('/v4/advisory/list');
    const names = list.body.data.map((feed: { name: string }) => feed.name);
    expect(names).toEqual(expect.arrayContaining(['nist-nvd2', 'mitre-cvelist-v5']));
  });

  it('backups of the feeds and of target-intel are there to download', async () => {
    const feed = await get('/v4/backup/nist-nvd2');
    expect(feed.body).toMatchObject({ available: true });
    const index = await get('/v3/backup/target-intel');
    expect(index.status).toBe(200);
    const zip = await fetch(index.body.data[0].url);
    expect(zip.status).toBe(200);
  });
});
