/**
 * Memory of a long ingest: `vulnscope ingest scans` (the real command, matching on) run as its own
 * process over a file of observations, its peak RSS read from /proc (VmHWM) while it runs. The
 * command relaunches itself under its heap limit, so the figure adds the peaks of the process and
 * of its children (an upper bound of what both held at once).
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

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
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
  /** Per process of the tree: its peak so far (a process's peak only grows). */
  const peaks = new Map<number, number>();
  const poll = setInterval(() => {
    for (const pid of [child.pid!, ...childrenOf(child.pid!)]) {
      const rss = peakRssMiB(pid);
      if (rss !== undefined) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, rss));
    }
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`vulnscope ingest scans exited with ${code}`);
  const seconds = (performance.now() - t0) / 1000;
  const peak = [...peaks.values()].reduce((sum, rss) => sum + rss, 0);
  return { observations, seconds, observationsPerSecond: observations / seconds, peakRssMiB: peak };
}
