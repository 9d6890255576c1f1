import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `vulnscope` CLI with the given environment (no inherited VULNSCOPE_* settings). */
export function runCli(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (stdin !== undefined) child.stdin!.end(stdin);
    else child.stdin!.end();
  });
}

export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VULNSCOPE_')));
  // Tests name nmap's service-probe file when they want one: an installed nmap must not change results.
  const settings = { VULNSCOPE_NMAP_SERVICE_PROBES: 'off', ...env };
  return spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...clean, ...settings }, stdio: 'pipe' });
}

/** A port the OS reports free right now (random ports collide with ephemeral client ports). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The `key  value` lines of a summary a command printed. */
export function summaryOf(stderr: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stderr.split('\n')) {
    const match = /^ {2}(\S.*?)\s{2,}(\S+)$/.exec(line);
    if (match) out[match[1]!] = match[2]!;
  }
  return out;
}
