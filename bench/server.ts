import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { DatabaseConfig } from '../src/config.js';
import type { Storage } from '../src/storage/index.js';
import { cleanEnv } from './common.js';

/** Starting and stopping `vulnscope serve`, plain GETs, and database sizes (knowledge benchmark). */

/** Spawns `node <cli> serve` with `env` (VULNSCOPE_PORT set) and waits for /healthz (15 min at most: each worker builds its indexes first). */
export async function startServer(cli: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 15 * 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await getStatus(`http://127.0.0.1:${env.VULNSCOPE_PORT}/healthz`)) === 200) return child;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error(`the server exited during start (code ${child.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGTERM');
  throw new Error('the server did not start');
}

/** SIGTERM, then SIGKILL if the server has not exited within 15 s. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await closed;
  clearTimeout(timer);
}

function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
  });
}

/** GET with node:http (no connection left open): status and parsed body. */
export function getJson(url: string, token: string): Promise<{ status: number; body: unknown; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        try {
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(text) as unknown,
            bytes: Buffer.byteLength(text),
          });
        } catch (error) {
          reject(error as Error);
        }
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

export interface DatabaseSize {
  /** The whole database: SQLite file + WAL, or every relation of the PostgreSQL schema. */
  totalMiB: number;
  /** Per table, indexes included (SQLite: dbstat; PostgreSQL: pg_total_relation_size). */
  tables: Record<string, number>;
}

/** The database's size on disk, and the tables' (with their indexes). */
export async function databaseSize(
  storage: Storage,
  config: DatabaseConfig,
  tables: readonly string[],
): Promise<DatabaseSize> {
  const sizes: Record<string, number> = {};
  if (config.engine === 'sqlite') {
    let bytes = 0;
    for (const suffix of ['', '-wal']) {
      try {
        bytes += fs.statSync(config.file + suffix).size;
      } catch {
        /* no such file */
      }
    }
    // dbstat: bytes per table and index; indexes are counted with their table.
    const rows = await storage.db.all<{ name: string; tbl: string; bytes: number }>(
      `SELECT s.name AS name, COALESCE(m.tbl_name, s.name) AS tbl, SUM(s.pgsize) AS bytes
       FROM dbstat s LEFT JOIN sqlite_master m ON m.name = s.name GROUP BY s.name`,
    );
    for (const table of tables)
      sizes[table] = rows.filter((r) => r.tbl === table).reduce((s, r) => s + Number(r.bytes), 0) / 2 ** 20;
    return { totalMiB: bytes / 2 ** 20, tables: sizes };
  }
  const rows = await storage.db.all<{ name: string; bytes: string }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  for (const table of tables) sizes[table] = Number(rows.find((r) => r.name === table)?.bytes ?? 0) / 2 ** 20;
  return { totalMiB: rows.reduce((s, r) => s + Number(r.bytes), 0) / 2 ** 20, tables: sizes };
}
