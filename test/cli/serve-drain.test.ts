import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { freePort, spawnCli } from '../support/cli.js';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * SIGTERM on `vulnscope serve`: in-flight requests finish (a slow database, through a proxy,
 * keeps one in flight), then the process exits; one still running at the drain deadline is cut
 * and the process exits anyway. Bounds carry a margin of 5× or more.
 */
describe.runIf(POSTGRES_URL)('serve drains on SIGTERM', () => {
  let proxy: TcpProxy;
  let storage: Storage;
  let drop: () => Promise<void>;
  let databaseUrl: string;
  let child: ChildProcess | undefined;
  let output = '';
  const tokens: string[] = [];

  beforeAll(async () => {
    const target = new URL(POSTGRES_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const fresh = await postgresCase.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
    for (let i = 0; i < 10; i++) tokens.push((await storage.tokens.create(`drain-${i}`)).token);
    const url = new URL(POSTGRES_URL!);
    url.hostname = proxy.host;
    url.port = String(proxy.port);
    url.searchParams.set('schema', (fresh.config as { schema: string }).schema);
    databaseUrl = url.toString();
  });

  afterEach(() => {
    proxy.setLatency(0);
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  afterAll(async () => {
    await storage?.close();
    await proxy?.close();
    await drop?.();
  });

  async function serve(env: Record<string, string>): Promise<{ base: string; exited: Promise<number | null> }> {
    const port = await freePort();
    child = spawnCli(['serve'], {
      VULNSCOPE_DATABASE_URL: databaseUrl,
      VULNSCOPE_PORT: String(port),
      VULNSCOPE_RETENTION_DAYS: '0',
      VULNSCOPE_BACKUP_INTERVAL: '0',
      VULNSCOPE_LOG_LEVEL: 'error',
      VULNSCOPE_DB_PROBE_TIMEOUT_MS: '60000',
      VULNSCOPE_REQUEST_TIMEOUT_MS: '60000',
      ...env,
    });
    const running = child;
    // Read what the server writes: a pipe nobody reads fills up and blocks its writes.
    output = '';
    running.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
    running.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
    const exited = new Promise<number | null>((resolve) => running.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300; i++) {
      if (running.exitCode !== null) throw new Error('the server exited during start');
      if (
        await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return { base, exited };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the server did not become ready');
  }

  it('lets an in-flight request finish, refuses new ones, then exits 0', async () => {
    const { base, exited } = await serve({ VULNSCOPE_DRAIN_TIMEOUT_MS: '20000' });
    proxy.setLatency(700);
    const inFlight = fetch(`${base}/whoami`, { headers: { authorization: `Bearer ${tokens.pop()}` } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    child!.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const late = await fetch(`${base}/whoami`, { headers: { authorization: `Bearer ${tokens.pop()}` } }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(late).toBe('refused');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await exited).toBe(0);
  }, 120_000);

  it('cuts a request still running at the drain deadline and exits', async () => {
    const { base, exited } = await serve({ VULNSCOPE_DRAIN_TIMEOUT_MS: '500' });
    proxy.setLatency(30_000);
    const inFlight = fetch(`${base}/whoami`, { headers: { authorization: `Bearer ${tokens.pop()}` } }).then(
      (r) => r.status,
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalled = performance.now();
    child!.kill('SIGTERM');
    expect(await inFlight).toBe('cut');
    expect(await exited, output).not.toBeNull();
    const seconds = (performance.now() - signalled) / 1000;
    console.info(`drain deadline 0.5 s: exited ${seconds.toFixed(2)} s after SIGTERM`);
    // The drain deadline plus the 5 s grace for closing, with room for a loaded machine.
    expect(seconds).toBeLessThan(15);
  }, 120_000);
});
