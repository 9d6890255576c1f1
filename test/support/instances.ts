import type { ChildProcess } from 'node:child_process';
import { freePort, spawnCli } from './cli.js';

/** A `vulnscope serve` process of the built CLI, with everything it printed. */
export interface ServeInstance {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL: no cleanup of any kind, as a crash or an OOM kill. */
  kill(): Promise<void>;
}

export async function until<T>(
  probe: () => Promise<T | undefined | false>,
  withinMs: number,
  what: string,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });

/** Starts `serve` on a free port with `env` and waits until `/healthz` answers 200. */
export async function startServe(env: Record<string, string>, readyWithinMs = 60_000): Promise<ServeInstance> {
  const port = await freePort();
  const child = spawnCli(['serve'], { ...env, VULNSCOPE_HOST: '127.0.0.1', VULNSCOPE_PORT: String(port) });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const instance: ServeInstance = {
    url,
    pid: child.pid!,
    child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`serve exited before it was ready:\n${output}`);
    if ((await fetch(`${url}/healthz`).catch(() => undefined))?.ok) break;
    if (Date.now() - started > readyWithinMs) {
      await instance.kill();
      throw new Error(`serve on port ${port} not ready within ${readyWithinMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return instance;
}
