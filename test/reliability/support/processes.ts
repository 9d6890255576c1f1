import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { DatabaseConfig } from '../../../src/config.js';
import type { HostRecord } from '../../../src/core/host-record.js';
import { createStorage, type Storage } from '../../../src/storage/index.js';
import { freePort, spawnCli } from '../../support/cli.js';

/** The VULNSCOPE_DATABASE_URL a CLI child uses for a test database. */
export function databaseUrlOf(config: DatabaseConfig): string {
  if (config.engine === 'sqlite') return config.file;
  const url = new URL(config.url);
  if (config.schema) url.searchParams.set('schema', config.schema);
  return url.toString();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the exit code (or signal) once the child has exited. */
export function exited(child: ChildProcess): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
}

/** Collects a child's stderr (for failure messages). */
export function stderrOf(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (chunk) => (text += chunk));
  child.stdout?.resume();
  return () => text;
}

export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited(child);
}

/** Opens the test database, runs `work` and closes it again. */
export async function withStorage<T>(config: DatabaseConfig, work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await createStorage(config);
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}

/** Every live record, in id order. */
export async function allRecords(storage: Storage): Promise<HostRecord[]> {
  const records: HostRecord[] = [];
  for (let after = 0; ; ) {
    const page = await storage.hosts.scan(after, 5000);
    if (page.length === 0) return records;
    records.push(...page);
    after = page[page.length - 1]!.id;
  }
}

/** A checksum of the records' content, independent of ids and row order. */
export function recordsChecksum(records: HostRecord[]): string {
  const lines = records.map(({ id: _id, ...content }) => JSON.stringify(content, Object.keys(content).sort())).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

export interface RunningServer {
  child: ChildProcess;
  base: string;
  port: number;
  stderr: () => string;
}

/** Starts `vulnscope serve` on a free port and waits until /healthz answers 200. */
export async function startServer(env: Record<string, string>, timeoutMs = 60_000): Promise<RunningServer> {
  const port = await freePort();
  const child = spawnCli(['serve', '--port', String(port)], { VULNSCOPE_LOG_LEVEL: 'warn', ...env });
  const stderr = stderrOf(child);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${stderr()}`);
    const ok = await fetch(`${base}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return { child, base, port, stderr };
    await sleep(100);
  }
  await killHard(child);
  throw new Error(`the server did not answer within ${timeoutMs} ms: ${stderr()}`);
}
