import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseConfig, loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { createContext } from '../../src/server/main.js';
import { createStorage } from '../../src/storage/index.js';
import { local, recordsOf, sha256, unzip } from '../backup/support.js';
import { CLI, ROOT, runCli, spawnCli } from '../support/cli.js';
import { engineCases } from '../support/engines.js';
import { LONG, report, SEED, seededRandom } from './support/figures.js';
import { databaseUrlOf, exited, killHard, sleep, stderrOf } from './support/processes.js';
import { seedDatabase } from './support/seed.js';

/**
 * Backups under failure: `vulnscope backup write` killed with -9 at random points of writing the
 * target-intel archive, and a write into a full file system (a small tmpfs mounted for the test,
 * or, where mounting is not permitted, a file-size limit: `ulimit -f`, EFBIG). Afterwards the
 * server must serve an intact archive (its sha256 as listed, a readable zip whose records number
 * what its manifest says): after a full disk the previous one byte for byte, after a kill the
 * previous one or, when the kill came after the new archive was renamed into place, that one.
 */
const KILLS = LONG ? 10 : 3;

interface Served {
  sha256: string;
  bytes: Buffer;
  records: number;
  problem?: string;
}

/** A server (in-process) over the test database and one backup directory: what it serves as the latest archive. */
async function servedArchive(database: DatabaseConfig, backupDir: string): Promise<Served> {
  const config = {
    ...loadConfig({
      VULNSCOPE_BACKUP_DIR: backupDir,
      VULNSCOPE_RATE_LIMIT: 'unlimited',
      VULNSCOPE_BACKUP_INTERVAL: '0',
    }),
    database,
  };
  const storage = await createStorage(database);
  const context = await createContext(config, storage);
  const app: FastifyInstance = await buildApp(context, {
    logStream: { write: () => true } as unknown as NodeJS.WritableStream,
  });
  try {
    const { token } = await storage.tokens.create('backup-check');
    const listed = await app.inject({ url: '/v3/backup/target-intel', headers: { authorization: `Bearer ${token}` } });
    if (listed.statusCode !== 200)
      return { sha256: '', bytes: Buffer.alloc(0), records: 0, problem: `list ${listed.statusCode} ${listed.body}` };
    const latest = listed.json().data[0] as { sha256: string; url: string };
    const download = await app.inject({ url: local(latest.url) });
    const bytes = download.rawPayload;
    const members = await unzip(bytes).catch(() => undefined);
    const manifest = members?.find((m) => m.name === 'manifest.txt')?.text ?? '';
    const records = members ? recordsOf(members).length : -1;
    const promised = Number(/^record_count: (\d+)$/m.exec(manifest)?.[1] ?? Number.NaN);
    let problem: string | undefined;
    if (download.statusCode !== 200) problem = `download ${download.statusCode}`;
    else if (sha256(bytes) !== latest.sha256) problem = 'sha256 differs from the listed one';
    else if (!members) problem = 'not a readable zip';
    else if (promised !== records) problem = `manifest says ${promised} records, the archive holds ${records}`;
    return { sha256: latest.sha256, bytes, records, problem };
  } finally {
    await app.close();
    await context.tokens.stop().catch(() => {});
    await storage.close();
  }
}

const leftovers = (dir: string) =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true }).filter((name) => String(name).includes('.tmp-')).length
    : 0;

/** Mounts a tmpfs of `bytes` at `dir`; false when this machine does not permit it. */
function mountSmallTmpfs(dir: string, bytes: number): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.each(engineCases())('backups killed midway and on a full disk ($name)', (engine) => {
  let database: { config: DatabaseConfig; drop(): Promise<void> };
  let root: string;
  let env: Record<string, string>;

  const writeBackup = (backupDir: string) =>
    runCli(['backup', 'write', '--index', 'target-intel', '--backup-dir', backupDir], env);

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-reliability-backup-'));
    database = await engine.fresh();
    await seedDatabase(database.config, { observations: 9000, tokens: {} });
    env = { VULNSCOPE_DATABASE_URL: databaseUrlOf(database.config), VULNSCOPE_RETENTION_DAYS: '0' };
  });
  afterAll(async () => {
    await database?.drop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('a write killed midway leaves the previous archive served and intact', async () => {
    const dir = path.join(root, 'killed');
    const started = performance.now();
    const first = await writeBackup(dir);
    const writeMs = performance.now() - started;
    expect(first.code, first.stderr).toBe(0);
    let previous = await servedArchive(database.config, dir);
    expect(previous.problem).toBeUndefined();
    // New records, so the next write is a different archive.
    await seedDatabase(database.config, { observations: 200, tokens: {} });
    const random = seededRandom(SEED ^ 0xbac);
    const failures: string[] = [];
    let killedMidway = 0;
    let publishedBeforeKill = 0;
    for (let k = 0; k < KILLS; k++) {
      const child = spawnCli(['backup', 'write', '--index', 'target-intel', '--backup-dir', dir], env);
      const stderr = stderrOf(child);
      await Promise.race([sleep(writeMs * (0.3 + 0.65 * random())), exited(child)]);
      const finished = child.exitCode !== null;
      await killHard(child);
      if (finished && child.exitCode !== 0) failures.push(`write ${k} failed: ${stderr()}`);
      const served = await servedArchive(database.config, dir);
      if (served.problem) failures.push(`after kill ${k}: ${served.problem}`);
      if (!finished) {
        killedMidway++;
        // A write killed after its archive was renamed into place (while closing) may leave that new, complete archive served.
        if (served.sha256 !== previous.sha256) publishedBeforeKill++;
      }
      previous = served;
    }
    const part = `backup write kill -9 ${engine.name}`;
    report(
      part,
      'archive',
      `${previous.records.toLocaleString('en-US')} records, ${(previous.bytes.length / 1024).toFixed(0)} KiB, written in ${(writeMs / 1000).toFixed(2)} s by the CLI`,
    );
    report(
      part,
      'kills (before the process ended; of those, after the new archive was in place)',
      `${KILLS} (${killedMidway}; ${publishedBeforeKill})`,
    );
    report(part, 'failures', failures.length);
    report(part, 'temporary files left by killed writes', leftovers(dir));
    expect(failures, `seed ${SEED}`).toEqual([]);
    expect(killedMidway).toBeGreaterThan(0);
  });

  it('a write into a full file system fails and leaves the previous archive served and intact', async () => {
    const dir = path.join(root, 'full');
    fs.mkdirSync(dir);
    const size = 8 * 1024 * 1024;
    const mounted = mountSmallTmpfs(dir, size);
    try {
      let write: Awaited<ReturnType<typeof writeBackup>>;
      let how: string;
      if (mounted) {
        const first = await writeBackup(dir);
        expect(first.code, first.stderr).toBe(0);
        const before = await servedArchive(database.config, dir);
        expect(before.problem).toBeUndefined();
        await seedDatabase(database.config, { observations: 100, tokens: {} });
        // Fill the file system to leave half an archive of room.
        const free = fs.statfsSync(dir).bavail * fs.statfsSync(dir).bsize;
        fs.writeFileSync(
          path.join(dir, 'filler'),
          Buffer.alloc(Math.max(0, free - Math.floor(before.bytes.length / 2))),
        );
        write = await writeBackup(dir);
        how = `tmpfs of ${size / 1024 / 1024} MiB filled to half an archive of room`;
        const after = await servedArchive(database.config, dir);
        report(`backup full disk ${engine.name}`, 'how', how);
        report(
          `backup full disk ${engine.name}`,
          'write exit code / message',
          `${write.code} / ${write.stderr.trim().split('\n').at(-1)}`,
        );
        report(`backup full disk ${engine.name}`, 'temporary files left', leftovers(dir));
        expect(write.code).not.toBe(0);
        expect(after.problem).toBeUndefined();
        expect(after.sha256).toBe(before.sha256);
        expect(after.bytes.equals(before.bytes)).toBe(true);
      } else {
        // No mount permitted: a file-size limit makes the archive's write fail with EFBIG instead.
        const first = await writeBackup(dir);
        expect(first.code, first.stderr).toBe(0);
        const before = await servedArchive(database.config, dir);
        await seedDatabase(database.config, { observations: 100, tokens: {} });
        const blocks = Math.floor(before.bytes.length / 2 / 1024);
        const result = execLimited(blocks, ['backup', 'write', '--index', 'target-intel', '--backup-dir', dir], env);
        const after = await servedArchive(database.config, dir);
        report(
          `backup full disk ${engine.name}`,
          'how',
          `ulimit -f ${blocks} (mounting a tmpfs is not permitted here)`,
        );
        report(`backup full disk ${engine.name}`, 'write exit code', String(result));
        expect(result).not.toBe(0);
        expect(after.problem).toBeUndefined();
        expect(after.bytes.equals(before.bytes)).toBe(true);
      }
    } finally {
      if (mounted) execFileSync('umount', [dir]);
    }
  });
});

/** Runs the CLI under `ulimit -f blocks` (1 KiB blocks); returns its exit status. */
function execLimited(blocks: number, args: string[], env: Record<string, string>): number {
  try {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VULNSCOPE_')));
    execFileSync('bash', ['-c', `ulimit -f ${blocks}; exec "$0" "$@"`, process.execPath, CLI, ...args], {
      cwd: ROOT,
      env: { ...clean, ...env },
      stdio: 'ignore',
    });
    return 0;
  } catch (error) {
    return (error as { status?: number }).status ?? 1;
  }
}
