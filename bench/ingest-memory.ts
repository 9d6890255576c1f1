/**
 * Memory of a long ingest: `vulnscope ingest scans` (the real command, matching on) run as its own
 * process over a file of observations, its peak RSS read from /proc (VmHWM) while it runs.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { cleanEnv } from './common.js';

export interface IngestMemoryFigures {
  observations: number;
  seconds: number;
  observationsPerSecond: number;
  peakRssMiB: number;
}

/** The process's peak resident set so far, in MiB (Linux); undefined once it has exited. */
function peakRssMiB(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function measureIngestMemory(
  cli: string,
  databaseUrl: string,
  file: string,
  observations: number,
): Promise<IngestMemoryFigures> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'ingest', 'scans', file, '--format', 'ndjson', '--strict'], {
    env: { ...cleanEnv(), VULNSCOPE_DATABASE_URL: databaseUrl, VULNSCOPE_RETENTION_DAYS: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRssMiB(child.pid!) ?? 0);
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`vulnscope ingest scans exited with ${code}`);
  const seconds = (performance.now() - t0) / 1000;
  return { observations, seconds, observationsPerSecond: observations / seconds, peakRssMiB: peak };
}
