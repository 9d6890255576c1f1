import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseConfig } from '../../../src/config.js';
import { freePort, runCli, spawnCli } from '../../support/cli.js';
import type { EngineCase } from '../../support/engines.js';

export interface PortalServer {
  /** The public origin, e.g. http://127.0.0.1:40123 */
  base: string;
  /** The demo's token (not an admin). */
  token: string;
  /** The settings the server runs with, for more CLI commands on its database. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

function databaseUrl(config: DatabaseConfig): string {
  if (config.engine === 'sqlite') return config.file;
  const url = new URL(config.url);
  if (config.schema) url.searchParams.set('schema', config.schema);
  return url.toString();
}

/** Waits until `text` holds a line matching `pattern`, or fails after `ms`. */
function waitFor(child: ChildProcess, read: () => string, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`the demo server did not print ${pattern} within ${ms} ms:\n${read()}`));
    }, ms);
    const check = () => {
      const match = pattern.exec(read());
      if (match) {
        cleanup();
        resolve(match);
      }
    };
    const exited = (code: number | null) => {
      cleanup();
      reject(new Error(`the demo server exited with ${code}:\n${read()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.stderr!.off('data', check);
      child.off('exit', exited);
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.on('exit', exited);
    check();
  });
}

/**
 * `vulnscope demo` on a fresh database of the engine, as a user starts it: the demo dataset,
 * backups, a token, and the server with its portal on a free port.
 */
export async function startPortalServer(
  engine: EngineCase,
  extraEnv: Record<string, string> = {},
): Promise<PortalServer> {
  const database = await engine.fresh();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-portal-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    VULNSCOPE_DATABASE_URL: databaseUrl(database.config),
    VULNSCOPE_BACKUP_DIR: path.join(dir, 'backups'),
    VULNSCOPE_PUBLIC_URL: base,
    VULNSCOPE_LOG_LEVEL: 'warn',
    // A loaded test machine may take over a second to answer the health probe: not an outage here.
    VULNSCOPE_DB_PROBE_TIMEOUT_MS: '10000',
    VULNSCOPE_DB_CONNECT_TIMEOUT_MS: '10000',
    ...extraEnv,
  };
  const child = spawnCli(['demo', '--port', String(port)], env);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const [, token] = await waitFor(child, () => output, /demo token: (vs_[A-Za-z0-9_-]+)/, 90_000);
  await waitFor(child, () => output, /is serving on/, 90_000);
  return {
    base,
    token: token!,
    env,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs a CLI command against the portal server's database (e.g. `token create --admin`). */
export async function cliOn(server: PortalServer, args: string[]): Promise<string> {
  const result = await runCli(args, server.env);
  if (result.code !== 0) throw new Error(`vulnscope ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}
