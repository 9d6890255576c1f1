import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCli, spawnCli } from '../support/cli.js';
import { fixture } from '../support/fixtures.js';

let dir: string;
let env: Record<string, string>;
const dbFile = () => path.join(dir, 'cli.db');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cli-'));
  env = { VULNSCOPE_DATABASE_URL: path.join(dir, 'cli.db'), VULNSCOPE_RETENTION_DAYS: '0' };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('vulnscope CLI', () => {
  it('lists every command in --help', async () => {
    const result = await runCli(['--help'], env);
    expect(result.code).toBe(0);
    for (const command of ['serve', 'migrate', 'demo', 'ingest', 'expire', 'token']) {
      expect(result.stdout).toContain(command);
    }
    const ingest = await runCli(['ingest', '--help'], env);
    expect(ingest.stdout).toContain('scans');
    expect(ingest.stdout).toContain('classifications');
  });

  it('migrates, then reports the schema up to date', async () => {
    const first = await runCli(['migrate'], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/applied migrations 1/);
    const second = await runCli(['migrate'], env);
    expect(second.stderr).toMatch(/up to date/);
  });

  it('creates a token printing only the token on stdout, lists it without the secret, revokes it', async () => {
    const created = await runCli(['token', 'create', '--name', 'ci-bot'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^vs_[A-Za-z0-9_-]{43}\n$/);
    const token = created.stdout.trim();

    const listed = await runCli(['token', 'list', '--json'], env);
    const rows = JSON.parse(listed.stdout) as Array<{ id: number; name: string; state: string }>;
    const row = rows.find((r) => r.name === 'ci-bot')!;
    expect(row.state).toBe('active');
    expect(listed.stdout).not.toContain(token);

    const table = await runCli(['token', 'list'], env);
    expect(table.stdout).toMatch(/ID\s+NAME\s+CREATED\s+LAST USED\s+STATE/);
    expect(table.stdout).not.toContain(token);

    const revoked = await runCli(['token', 'revoke', String(row.id)], env);
    expect(revoked.code).toBe(0);
    const after = JSON.parse((await runCli(['token', 'list', '--json'], env)).stdout) as typeof rows;
    expect(after.find((r) => r.id === row.id)!.state).toBe('revoked');

    const missing = await runCli(['token', 'revoke', '99999'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no token with id 99999');
  });

  it('ingests a real nmap scan and is idempotent on a re-run', async () => {
    const file = fixture('scans/nmap_ullaakut_scan_base.xml');
    const first = await runCli(['ingest', 'scans', file], env);
    expect(first.code).toBe(0);
    const inserted = Number(/inserted\s+(\d+)/.exec(first.stderr)![1]);
    expect(inserted).toBeGreaterThan(0);
    const again = await runCli(['ingest', 'scans', file], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/inserted\s+0\b/);
    expect(Number(/unchanged\s+(\d+)/.exec(again.stderr)![1])).toBe(inserted);
  });

  it('reports each bad line with file and line, ingests the rest, and fails only with --strict', async () => {
    const file = path.join(dir, 'mixed.ndjson');
    fs.writeFileSync(
      file,
      [
        JSON.stringify({
          ip: '198.51.100.7',
          port: 22,
          protocol: 'tcp',
          timestamp: '2026-11-20T10:00:00Z',
          fingerprints: [{ cpe: 'cpe:2.3:a:openbsd:openssh:9.8:p1:*:*:*:*:*:*' }],
        }),
        '{not json',
        JSON.stringify({ ip: '198.51.100.8', port: 70000, protocol: 'tcp', timestamp: '2026-11-20T10:00:00Z' }),
        JSON.stringify({
          ip: '198.51.100.9',
          port: 443,
          protocol: 'tcp',
          timestamp: '2026-11-20T10:00:00Z',
          fingerprints: [],
        }),
      ].join('\n'),
    );
    const lenient = await runCli(['ingest', 'scans', file], env);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain(`rejected ${file}:2:`);
    expect(lenient.stderr).toContain(`rejected ${file}:3:`);
    expect(lenient.stderr).toMatch(/rejected\s+2\b/);
    expect(lenient.stderr).toMatch(/inserted\s+2\b/);
    const strict = await runCli(['ingest', 'scans', '--strict', file], env);
    expect(strict.code).toBe(1);
  });

  it('rejects an unknown classification type naming it', async () => {
    const list = path.join(dir, 'list.txt');
    fs.writeFileSync(list, '192.0.2.1\n');
    const result = await runCli(['ingest', 'classifications', list, '--as', 'malware'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown classification type "malware"');
  });

  it('loads the Tor exit list as proxy:tor', async () => {
    const result = await runCli(
      ['ingest', 'classifications', fixture('ip-lists/tor_exit_nodes.lst'), '--as', 'proxy:tor'],
      env,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/entries\s+600/);
  });

  it('commits a never-ending stdin stream at least once per second', async () => {
    const child = spawnCli(['ingest', 'scans', '-'], env);
    const line = JSON.stringify({
      ip: '203.0.113.77',
      port: 8443,
      protocol: 'tcp',
      timestamp: new Date().toISOString(),
      fingerprints: [{ vendor: 'f5', product: 'nginx', version: '1.24.0' }],
    });
    child.stdin!.write(`${line}\n`);
    const visible = await waitFor(() => {
      const db = new BetterSqlite3(dbFile(), { readonly: true });
      try {
        return (db.prepare(`SELECT COUNT(*) AS n FROM hosts WHERE ip = '203.0.113.77'`).get() as { n: number }).n === 1;
      } finally {
        db.close();
      }
    }, 5000);
    expect(visible).toBe(true);
    expect(child.exitCode).toBeNull();
    child.stdin!.end();
    await new Promise((resolve) => child.on('close', resolve));
  });

  it('expires on demand', async () => {
    const result = await runCli(['expire'], { ...env, VULNSCOPE_RETENTION_DAYS: '1' });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/expired\s+\d+/);
  });

  it('serves the API on a real socket', async () => {
    const token = (await runCli(['token', 'create', '--name', 'e2e'], env)).stdout.trim();
    const port = await freePort();
    const server = spawnCli(['serve', '--port', String(port)], { ...env, VULNSCOPE_LOG_LEVEL: 'warn' });
    try {
      const up = await waitFor(async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
        } catch {
          return false;
        }
      }, 15000);
      expect(up).toBe(true);
      const unauthorised = await fetch(`http://127.0.0.1:${port}/v3/index/target-intel`);
      expect(unauthorised.status).toBe(401);
      const response = await fetch(`http://127.0.0.1:${port}/v3/index/target-intel?ip=1`, {
        headers: { authorization: token },
      });
      expect(response.status).toBe(400);
      const ok = await fetch(`http://127.0.0.1:${port}/v3/index/target-intel?cidr=203.0.113.0/24`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await ok.json()) as { data: Array<{ ip: string }> };
      expect(body.data.map((r) => r.ip)).toContain('203.0.113.77');
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.on('close', resolve));
    }
  });
});

describe('vulnscope serve --workers 2', () => {
  it('serves from a cluster and exits cleanly on SIGTERM', async () => {
    const token = (await runCli(['token', 'create', '--name', 'cluster'], env)).stdout.trim();
    const port = await freePort();
    const server = spawnCli(['serve', '--port', String(port), '--workers', '2'], {
      ...env,
      VULNSCOPE_LOG_LEVEL: 'warn',
    });
    const closed = new Promise((resolve) => server.on('close', resolve));
    const up = await waitFor(async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      } catch {
        return false;
      }
    }, 30000);
    expect(up).toBe(true);
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/whoami`, {
        headers: { authorization: token },
        keepalive: false,
      });
      expect(response.status).toBe(200);
      await response.json();
    }
    server.kill('SIGTERM');
    const exited = await Promise.race([
      closed.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 20000)),
    ]);
    expect(exited).toBe(true);
  }, 60000);
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
