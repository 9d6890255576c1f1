import { getJson } from './server.js';
import { type LoadResult, percentile, runLoad, timeRuns } from './http-load.js';
import { readLoopDelay, resetLoopDelay, type ServerLoopDelay } from './loop-delay.js';

/** Bodies over this are held to the serialisation floor (API ≤ 2 × JSON.stringify of the same body). */
export const LARGE_BODY_BYTES = 2 ** 20;

export interface ClassRun {
  /** What the server answered the class: 200, or 400 when it refuses the request and says what to add. */
  status: number;
  /** The refusal's message, for a 400. */
  refusal?: string;
  responseBytes: number;
  /** In-process `JSON.stringify` of the very body the API returned, p50 (bodies over 1 MiB only). */
  serialiseP50Ms?: number;
  c1: LoadResult;
  c32: LoadResult;
  /** Every server worker's worst event-loop stall while the c=32 run went on. */
  loop: ServerLoopDelay;
}

export interface ClassContext {
  baseUrl: string;
  token: string;
  statusToken: string;
  workers: number;
  quick: boolean;
}

/**
 * One class through the real server: a probe (status, body, size), c=1, then c=32 between a reset
 * and a read of every worker's event-loop delay. `costMs` (one engine call) sizes the runs: a class
 * of ~1 ms gets the full counts, a slow one a few dozen requests; no run goes on past its time cap.
 */
export async function measureClass(
  path: string,
  costMs: number,
  context: ClassContext,
): Promise<{ run: ClassRun; body: unknown }> {
  const probe = await getJson(`${context.baseUrl}${path}`, context.token);
  if (probe.status !== 200 && probe.status !== 400)
    throw new Error(`${path}: HTTP ${probe.status} ${JSON.stringify(probe.body).slice(0, 300)}`);
  const responseBytes = Buffer.byteLength(JSON.stringify(probe.body));
  const budget = (seconds: number, min: number, max: number) =>
    Math.max(min, Math.min(max, Math.round((seconds * 1000) / Math.max(costMs, 0.05))));
  const load = { baseUrl: context.baseUrl, token: context.token, okStatus: probe.status };
  const c1 = await runLoad([path], {
    ...load,
    concurrency: 1,
    requests: context.quick ? 10 : budget(5, 20, 300),
    warmup: context.quick ? 2 : 5,
    maxSeconds: context.quick ? 5 : 20,
  });
  await resetLoopDelay(context.baseUrl, context.statusToken, context.workers);
  const c32 = await runLoad([path], {
    ...load,
    concurrency: 32,
    requests: context.quick ? 64 : budget(8, 128, 2000),
    // One per connection: the c=1 run warmed only the worker its single connection reached.
    warmup: 32,
    maxSeconds: context.quick ? 5 : 20,
  });
  const loop = await readLoopDelay(context.baseUrl, context.statusToken, context.workers);
  let serialiseP50Ms: number | undefined;
  if (responseBytes > LARGE_BODY_BYTES) {
    const runs = context.quick ? 3 : 15;
    serialiseP50Ms = percentile(await timeRuns(runs, () => JSON.stringify(probe.body)), 0.5);
  }
  const refusal = probe.status === 400 ? ((probe.body as { errors?: string[] }).errors ?? []).join('; ') : undefined;
  return {
    run: {
      status: probe.status,
      ...(refusal !== undefined ? { refusal } : {}),
      responseBytes,
      ...(serialiseP50Ms !== undefined ? { serialiseP50Ms } : {}),
      c1,
      c32,
      loop,
    },
    body: probe.body,
  };
}
