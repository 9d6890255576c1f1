import type { ClassRun } from './class-load.js';
import { LARGE_BODY_BYTES } from './class-load.js';

/**
 * The targets of a query class (issue "Targets"): at c=1 API p50 ≤ 10 ms and p99 ≤ 50 ms; at c=32
 * p99 ≤ 150 ms and requests/s ≥ 1.6 × c=1; worst event-loop stall ≤ 50 ms; a body over 1 MiB is
 * held to API p50 ≤ 2 × serialising that body instead of the c=1 times; PostgreSQL API p50 ≤ 2 ×
 * SQLite's for the same class.
 */
export interface Target {
  name: string;
  met: boolean;
  /** The figure and the bound, as the report prints them. */
  figure: string;
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

export function classTargets(run: ClassRun, sqliteP50Ms?: number): Target[] {
  const targets: Target[] = [];
  const large = run.responseBytes > LARGE_BODY_BYTES && run.serialiseP50Ms !== undefined;
  if (large) {
    const ratio = run.c1.p50Ms / run.serialiseP50Ms!;
    targets.push({
      name: 'API ≤ 2 × serialisation',
      met: ratio <= 2,
      figure: `${ratio.toFixed(2)} × (${ms(run.c1.p50Ms)} ÷ ${ms(run.serialiseP50Ms!)} ms)`,
    });
  } else {
    targets.push({ name: 'c=1 p50 ≤ 10 ms', met: run.c1.p50Ms <= 10, figure: `${ms(run.c1.p50Ms)} ms` });
    targets.push({ name: 'c=1 p99 ≤ 50 ms', met: run.c1.p99Ms <= 50, figure: `${ms(run.c1.p99Ms)} ms` });
  }
  targets.push({ name: 'c=32 p99 ≤ 150 ms', met: run.c32.p99Ms <= 150, figure: `${ms(run.c32.p99Ms)} ms` });
  const scale = run.c32.requestsPerSecond / run.c1.requestsPerSecond;
  targets.push({ name: 'c=32 ÷ c=1 req/s ≥ 1.6', met: scale >= 1.6, figure: scale.toFixed(2) });
  const answered = run.loop.workers.length === run.loop.expected;
  targets.push({
    name: 'loop stall ≤ 50 ms',
    met: answered && run.loop.worstMs <= 50,
    figure: `${ms(run.loop.worstMs)} ms${answered ? '' : ` (${run.loop.workers.length} of ${run.loop.expected} workers answered)`}`,
  });
  if (sqliteP50Ms !== undefined) {
    const ratio = run.c1.p50Ms / sqliteP50Ms;
    targets.push({ name: 'PostgreSQL ≤ 2 × SQLite p50', met: ratio <= 2, figure: `${ratio.toFixed(2)} ×` });
  }
  return targets;
}

/** `met`, or the targets not met with their figures. */
export function verdict(targets: Target[]): string {
  const missed = targets.filter((t) => !t.met);
  return missed.length === 0 ? 'all met' : `not met: ${missed.map((t) => `${t.name} (${t.figure})`).join('; ')}`;
}

export const sumTargets = (all: Target[][]) => {
  const flat = all.flat();
  return { met: flat.filter((t) => t.met).length, total: flat.length };
};
