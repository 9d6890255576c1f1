import fs from 'node:fs';

/**
 * CPU time of processes from /proc (Linux): where the cores went while a step ran — the ingest's
 * threads, each server worker, the server's primary process.
 */

const TICKS_PER_SECOND = 100; // USER_HZ, fixed at 100 on Linux whatever the kernel's own tick rate

/** User + system CPU seconds a process (all its threads) has used so far; NaN once it has exited. */
export function processCpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

function statCpuSeconds(file: string): number {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 (state): utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** The direct children of a process (the cluster's workers of a server). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      /* the process ended meanwhile */
    }
  }
  return children.sort((a, b) => a - b);
}

export interface ServerCpu {
  /** The primary process (accepts nothing itself with the cluster; runs no index). */
  primarySeconds: number;
  /** Each worker process, in pid order. */
  workerSeconds: number[];
}

/** Reads the CPU time of a server and its workers now; call `.since()` on it later for the difference. */
export function serverCpuMark(serverPid: number): { since(): ServerCpu } {
  const workers = childPids(serverPid);
  const primary = processCpuSeconds(serverPid);
  const each = workers.map(processCpuSeconds);
  return {
    since: () => ({
      primarySeconds: processCpuSeconds(serverPid) - primary,
      workerSeconds: workers.map((pid, i) => processCpuSeconds(pid) - each[i]!),
    }),
  };
}

/** The CPU figures a measured child process prints on exit (see rss-report.mjs). */
export interface ChildCpu {
  /** Every thread of the process, those already ended included. */
  totalSeconds: number;
  /** The main (JavaScript) thread alone. */
  mainThreadSeconds: number;
}

export function parseChildCpu(stderr: string): ChildCpu | undefined {
  const total = /bench:cpu_ms=(\d+)/.exec(stderr);
  const main = /bench:main_cpu_ms=(\d+)/.exec(stderr);
  if (!total || !main) return undefined;
  return { totalSeconds: Number(total[1]) / 1000, mainThreadSeconds: Number(main[1]) / 1000 };
}
