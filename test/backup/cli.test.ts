import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupStore } from '../../src/backup/store.js';
import type { DatabaseConfig } from '../../src/config.js';
import { freePort, runCli, spawnCli } from '../support/cli.js';
import { engineCases } from '../support/engines.js';
import { FEED, loadFeed, recordsOf, sha256, startBackupApp, unzip, type BackupTestApp } from './support.js';

function databaseUrl(config: DatabaseConfig): string {
  if (config.engine === 'sqlite') return config.file;
  const url = new URL(config.url);
  if (config.schema) url.searchParams.set('schema', config.schema);
  return url.toString();
}

describe.each(engineCases())('vulnscope backup and the official clients on the wire ($name)', (engine) => {
  let t: BackupTestApp;
  let base: string;
  let env: Record<string, string>;
  let out: string;

  beforeAll(async () => {
    // The background job is off here (the CLI writes); the last test turns it on.
    t = await startBackupApp(engine, { VULNSCOPE_BACKUP_INTERVAL: '0' });
    await loadFeed(t, 1500);
    await t.ingest([
      { ip: '192.0.2.1', port: 443 },
      { ip: '192.0.2.2', port: 80 },
    ]);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    t.config.publicUrl = base;
    env = {
      VULNSCOPE_DATABASE_URL: databaseUrl(t.config.database),
      VULNSCOPE_BACKUP_DIR: t.backupDir,
      VULNSCOPE_URL: base,
      VULNSCOPE_TOKEN: t.token,
    };
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-backup-out-'));
  });
  afterAll(async () => {
    await t?.close();
    if (out) fs.rmSync(out, { recursive: true, force: true });
  });

  it('backup write --feed writes one feed, --index cpecve is refused, backup write writes the rest', async () => {
    const one = await runCli(['backup', 'write', '--feed', FEED], env);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toMatch(/records\s+1,500/);
    expect(one.stderr).toMatch(/records\/s/);
    const store = new BackupStore(t.backupDir);
    expect((await store.latest('v4', FEED))?.records).toBe(1500);
    expect(await store.latest('v3', 'target-intel')).toBeUndefined();

    const cpecve = await runCli(['backup', 'write', '--index', 'cpecve'], env);
    expect(cpecve.code).toBe(2);
    expect(cpecve.stderr).toMatch(/cpecve.*no backup yet/);
    const unknown = await runCli(['backup', 'write', '--feed', 'nope'], env);
    expect(unknown.code).toBe(2);

    const all = await runCli(['backup', 'write'], env);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toMatch(/index target-intel: /);
    expect(all.stderr).toMatch(/skipped \(no data yet\)/); // registered feeds never loaded
    expect((await store.latest('v3', 'target-intel'))?.records).toBe(2);
  });

  it('backup list and backup download (sha256 verified) against the server', async () => {
    const list = await runCli(['backup', 'list'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${FEED}\\s+yes\\s+\\d{4}-`, 'm'));
    const json = await runCli(['backup', 'list', '--json'], env);
    expect(JSON.parse(json.stdout).find((item: { name: string }) => item.name === FEED).available).toBe(true);

    const file = path.join(out, 'feed.zip');
    const result = await runCli(['backup', 'download', FEED, '--out', file], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(file);
    const info = await (await fetch(`${base}/v4/backup/${FEED}`, { headers: { authorization: t.token } })).json();
    expect(sha256(fs.readFileSync(file))).toBe(info.sha256);
    expect(recordsOf(await unzip(fs.readFileSync(file)))).toHaveLength(1500);

    const missing = await runCli(['backup', 'download', FEED], { ...env, VULNSCOPE_TOKEN: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/VULNSCOPE_TOKEN/);
  });

  it('backup download target-intel fetches the index backup (GET /v3/backup/{index}), sha256 verified', async () => {
    const file = path.join(out, 'index.zip');
    const result = await runCli(['backup', 'download', 'target-intel', '--out', file], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(file);
    expect(result.stderr).toMatch(/downloaded index target-intel: /);
    const listing = await (
      await fetch(`${base}/v3/backup/target-intel`, { headers: { authorization: t.token } })
    ).json();
    expect(sha256(fs.readFileSync(file))).toBe(listing.data[0].sha256);
    expect(recordsOf(await unzip(fs.readFileSync(file)))).toHaveLength(2);

    const cpecve = await runCli(['backup', 'download', 'cpecve'], env);
    expect(cpecve.code).toBe(2);
    expect(cpecve.stderr).toMatch(/cpecve.*no backup yet/);
  });

  it('backup list with VULNSCOPE_URL lists the index backups too', async () => {
    const list = await runCli(['backup', 'list'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^target-intel\s+yes\s+\d{4}-\S+\s+index$/m);
    const json = JSON.parse((await runCli(['backup', 'list', '--json'], env)).stdout) as Array<{
      name: string;
      kind: string;
      available: boolean;
    }>;
    expect(json.find((item) => item.name === 'target-intel')).toMatchObject({ kind: 'index', available: true });
    expect(json.find((item) => item.name === FEED)).toMatchObject({ kind: 'feed', available: true });
  });

  it('backup list without VULNSCOPE_URL lists the archives of the local backup directory', async () => {
    const local = { VULNSCOPE_DATABASE_URL: env.VULNSCOPE_DATABASE_URL!, VULNSCOPE_BACKUP_DIR: t.backupDir };
    const store = new BackupStore(t.backupDir);
    const feed = (await store.latest('v4', FEED))!;
    const index = (await store.latest('v3', 'target-intel'))!;
    const table = await runCli(['backup', 'list'], local);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).toContain(`archives in ${t.backupDir}`);
    expect(table.stdout).toMatch(/^NAME\s+KIND\s+FILE\s+WRITTEN\s+RECORDS\s+BYTES\s+CURRENT$/m);
    expect(table.stdout).toMatch(
      new RegExp(`^${FEED}\\s+feed\\s+${feed.file}\\s+\\S+\\s+1,500\\s+[\\d,]+\\s+yes$`, 'm'),
    );
    expect(table.stdout).toMatch(new RegExp(`^target-intel\\s+index\\s+${index.file}\\s+\\S+\\s+2\\s`, 'm'));
    expect(table.stdout).toMatch(/^cisa-kev\s+feed\s+-$/m); // registered, never loaded: no archive

    const json = JSON.parse((await runCli(['backup', 'list', '--json'], local)).stdout) as Array<{
      name: string;
      kind: string;
      available: boolean;
      archives: Array<{ file: string; path: string; sha256: string; records: number; size: number; current: boolean }>;
    }>;
    const item = json.find((entry) => entry.name === FEED)!;
    expect(item).toMatchObject({ kind: 'feed', available: true });
    expect(item.archives[0]).toMatchObject({
      file: feed.file,
      path: store.pathOf(feed),
      sha256: feed.sha256,
      records: 1500,
      size: feed.size,
      current: true,
    });
    expect(json.find((entry) => entry.name === 'target-intel')!.archives[0]!.sha256).toBe(index.sha256);

    const missing = await runCli(['backup', 'list'], { ...local, VULNSCOPE_BACKUP_DIR: path.join(out, 'none') });
    expect(missing.code, missing.stderr).toBe(0);
    expect(missing.stderr).toMatch(/no backup directory .*none yet/);
    expect(missing.stdout).toMatch(new RegExp(`^${FEED}\\s+feed\\s+-$`, 'm'));
  });

  it('a download whose bytes do not match the advertised sha256 fails and leaves no file', async () => {
    const store = new BackupStore(t.backupDir);
    const latest = (await store.latest('v4', FEED))!;
    const zip = store.pathOf(latest);
    const original = fs.readFileSync(zip);
    const corrupt = Buffer.from(original);
    corrupt[100] = corrupt[100]! ^ 0xff;
    fs.writeFileSync(zip, corrupt);
    try {
      const file = path.join(out, 'corrupt.zip');
      const result = await runCli(['backup', 'download', FEED, '--out', file], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/sha256 mismatch/);
      expect(fs.readdirSync(out).filter((entry) => entry.includes('corrupt'))).toEqual([]);
    } finally {
      fs.writeFileSync(zip, original);
    }
  });

  it('the official CLI flow: /v3/backup/{index} → data[0].url (.zip, no auth) → 200 with Content-Length; .json members, manifest not .json', async () => {
    const headers = {
      authorization: `Bearer ${t.token}`,
      accept: 'application/json',
      'user-agent': 'VulnCheck CLI 1.0',
    };
    const index = await fetch(`${base}/v3/index`, { headers });
    expect(index.status).toBe(200);
    const listing = await fetch(`${base}/v3/backup/target-intel`, { headers });
    expect(listing.status).toBe(200);
    const first = (await listing.json()).data[0];
    const url = new URL(first.url);
    expect(url.pathname.endsWith('.zip')).toBe(true);
    expect(path.posix.basename(url.pathname)).toBe(first.filename);
    expect(Number.isNaN(Date.parse(first.date_added))).toBe(false);

    const head = await fetch(first.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const response = await fetch(first.url); // no auth, as http.Get
    expect(response.status).toBe(200);
    const length = Number(response.headers.get('content-length'));
    expect(length).toBeGreaterThan(0);
    expect(response.headers.get('content-type')).toBe('application/zip');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(length);
    expect(sha256(body)).toBe(first.sha256);
    const members = await unzip(body);
    for (const member of members) {
      if (member.name.endsWith('.json')) {
        // NDJSON: every line one JSON value (the CLI imports a JSON array or NDJSON).
        for (const line of member.text.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
      } else {
        expect(member.name).toBe('manifest.txt');
      }
    }

    const v4 = await (await fetch(`${base}/v4/backup/${FEED}`, { headers: { authorization: t.token } })).json();
    const zip = await fetch(v4.url_mrap);
    expect(zip.status).toBe(200);
    expect(Number(zip.headers.get('content-length'))).toBeGreaterThan(0);
    const ranged = await fetch(v4.url_mrap, { headers: { range: 'bytes=0-3' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).toString('latin1')).toBe('PK\u0003\u0004');
  });

  it("the server's background job archives the data once the server listens", async () => {
    // Checks every min(interval, 60 s), the first one period after the start.
    const other = await startBackupApp(engine, { VULNSCOPE_BACKUP_INTERVAL: '1s' });
    try {
      await loadFeed(other, 10);
      const store = new BackupStore(other.backupDir);
      // Under inject (not listening) nothing runs in the background.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await store.latest('v4', FEED)).toBeUndefined();
      await other.app.listen({ host: '127.0.0.1', port: 0 });
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !(await store.latest('v4', FEED)))
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect((await store.latest('v4', FEED))?.records).toBe(10);
    } finally {
      await other.close();
    }
  });

  it('vulnscope serve archives in a worker thread after changes, and keeps serving meanwhile', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-serve-backups-'));
    const port = await freePort();
    let logs = '';
    const server = spawnCli(['serve', '--port', String(port)], {
      VULNSCOPE_DATABASE_URL: databaseUrl(t.config.database),
      VULNSCOPE_BACKUP_DIR: dir,
      VULNSCOPE_BACKUP_INTERVAL: '1s',
      VULNSCOPE_RATE_LIMIT: 'unlimited',
    });
    server.stdout!.on('data', (chunk) => (logs += chunk));
    server.stderr!.on('data', (chunk) => (logs += chunk));
    try {
      const store = new BackupStore(dir);
      const deadline = Date.now() + 20_000;
      while (
        Date.now() < deadline &&
        !((await store.latest('v4', FEED)) && (await store.latest('v3', 'target-intel')))
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await store.latest('v4', FEED))?.records, logs).toBe(1500);
      expect((await store.latest('v3', 'target-intel'))?.records, logs).toBe(2);
      expect(logs).toMatch(/"in_worker":true[^\n]*"msg":"backup written"/);
      const first = (await store.latest('v4', FEED))!;
      // A change is archived at the next check; unchanged sources are not rewritten.
      await loadFeed(t, 1501, 'changed');
      while (Date.now() < deadline + 20_000 && (await store.latest('v4', FEED))!.file === first.file) {
        const response = await fetch(`http://127.0.0.1:${port}/v4/backup/${FEED}`, {
          headers: { authorization: t.token },
        });
        expect(response.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const second = (await store.latest('v4', FEED))!;
      expect(second.records).toBe(1501);
      expect((await store.list('v3', 'target-intel')).length).toBe(1);
      const info = await (
        await fetch(`http://127.0.0.1:${port}/v4/backup/${FEED}`, { headers: { authorization: t.token } })
      ).json();
      expect(info.sha256).toBe(second.sha256);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.on('close', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
