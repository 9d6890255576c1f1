import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  requestsPerSecond: number;
}

export interface LoadOptions {
  baseUrl: string;
  token: string;
  concurrency: number;
  requests: number;
  /** Requests sent and discarded first (warm caches, connections), `concurrency` at a time. */
  warmup?: number;
  /** The status a request must answer to count as no error (200 unless a class expects a refusal). */
  okStatus?: number;
  /** No new request is sent after this many seconds (slow classes end early; at least one per connection). */
  maxSeconds?: number;
}

/** GETs `paths` (cycled) with `concurrency` keep-alive connections; latencies per request. */
export async function runLoad(paths: string[], options: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const target = new URL(options.baseUrl);
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const request = http.get(
        {
          host: target.hostname,
          port: target.port,
          path,
          agent,
          headers: { authorization: `Bearer ${options.token}` },
        },
        (response) => {
          response.on('data', () => {});
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
    });
  // Warm-up requests go out `concurrency` at a time, so each of the connections (and every server worker they reach) has served one.
  const warmup = options.warmup ?? 0;
  for (let i = 0; i < warmup; i += options.concurrency) {
    const wave = Math.min(options.concurrency, warmup - i);
    await Promise.all(Array.from({ length: wave }, (_, k) => get(paths[(i + k) % paths.length]!)));
  }

  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = process.hrtime.bigint();
  const capped = options.maxSeconds !== undefined;
  const stopAt = started + BigInt(Math.round((options.maxSeconds ?? 0) * 1e9));
  const worker = async () => {
    for (let own = 0; ; own++) {
      if (capped && own > 0 && process.hrtime.bigint() >= stopAt) return;
      const index = next++;
      if (index >= options.requests) return;
      const t0 = process.hrtime.bigint();
      const status = await get(paths[index % paths.length]!).catch(() => 0);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (status !== (options.okStatus ?? 200)) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    meanMs: latencies.reduce((s, x) => s + x, 0) / Math.max(1, latencies.length),
    requestsPerSecond: latencies.length / seconds,
  };
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Times `fn` `runs` times (after one warm-up call); returns sorted durations in ms. */
export async function timeRuns(runs: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  await fn();
  const durations: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    durations.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return durations.sort((a, b) => a - b);
}
