import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCidr, parseIp, rangeContains } from '../../src/core/ip.js';
import { createStorage } from '../../src/storage/index.js';
import { freePort, runCli } from '../support/cli.js';

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
      const errors = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
      expect(errors).toEqual([
        `error: cannot listen on 127.0.0.1:${taken.port}: the address is already in use; choose another port with --port or VULNSCOPE_PORT`,
      ]);
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
