import http from 'node:http';

/**
 * The server's own view of a class: each worker process's worst event-loop delay and memory, read
 * from the operator route `/process/status` (VULNSCOPE_STATUS_TOKEN). Requests use a new connection
 * each, so the cluster hands them to its workers in turn; polling stops when every worker pid has
 * answered once.
 */
export interface WorkerStatus {
  pid: number;
  /** Worst event-loop stall: the histogram's max less its sampling interval. */
  maxDelayMs: number;
  p99DelayMs: number;
  /** The longest garbage-collection pause in the same window (absent from servers that do not report it). */
  maxGcMs?: number;
  /** Its kind: minor (scavenge), major (mark-compact), incremental or weak_callbacks. */
  maxGcKind?: string;
  rssMiB: number;
}

export interface ServerLoopDelay {
  /** The worst stall of any worker while the class ran. */
  worstMs: number;
  workers: WorkerStatus[];
  /** Workers expected; fewer in `workers` means some never answered within the polls allowed. */
  expected: number;
}

interface StatusBody {
  pid: number;
  event_loop_delay: { resolution_ms: number; max_ms: number; p99_ms: number };
  gc?: { max_ms: number; max_ms_by_kind?: Record<string, number> };
  memory: { rss_bytes: number };
}

function call(baseUrl: string, token: string, method: 'GET' | 'POST', path: string): Promise<StatusBody> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, baseUrl);
    const request = http.request(
      target,
      { method, agent: false, headers: { authorization: `Bearer ${token}` } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          if (response.statusCode !== 200) reject(new Error(`${method} ${path}: HTTP ${response.statusCode} ${text}`));
          else resolve(JSON.parse(text) as StatusBody);
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** Calls `path` until `workers` distinct pids answered (or `attempts` calls); the first answer of each. */
async function everyWorker(
  baseUrl: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  workers: number,
  attempts = 400,
): Promise<Map<number, StatusBody>> {
  const seen = new Map<number, StatusBody>();
  for (let i = 0; i < attempts && seen.size < workers; i++) {
    const body = await call(baseUrl, token, method, path);
    if (!seen.has(body.pid)) seen.set(body.pid, body);
  }
  return seen;
}

function longestKind(byKind: Record<string, number>): string | undefined {
  const longest = Object.entries(byKind).sort((a, b) => b[1] - a[1])[0];
  return longest?.[0];
}

/** The longest GC pause any worker reported, with its kind ('' when the server does not report it). */
export function gcMaxText(workers: readonly WorkerStatus[], format: (ms: number) => string): string {
  const longest = workers.filter((w) => w.maxGcMs !== undefined).sort((a, b) => (b.maxGcMs ?? 0) - (a.maxGcMs ?? 0))[0];
  if (!longest) return '';
  return `${format(longest.maxGcMs!)}${longest.maxGcKind ? ` (${longest.maxGcKind})` : ''}`;
}

/** Clears every worker's event-loop histogram (a class starts from zero). */
export async function resetLoopDelay(baseUrl: string, token: string, workers: number): Promise<void> {
  await everyWorker(baseUrl, token, 'POST', '/process/status/reset', workers);
}

/** Every worker's figures since the last reset. */
export async function readLoopDelay(baseUrl: string, token: string, workers: number): Promise<ServerLoopDelay> {
  const seen = await everyWorker(baseUrl, token, 'GET', '/process/status', workers);
  const list = [...seen.values()].map(
    (body): WorkerStatus => ({
      pid: body.pid,
      maxDelayMs: Math.max(0, body.event_loop_delay.max_ms - body.event_loop_delay.resolution_ms),
      p99DelayMs: Math.max(0, body.event_loop_delay.p99_ms - body.event_loop_delay.resolution_ms),
      ...(body.gc ? { maxGcMs: body.gc.max_ms } : {}),
      ...(body.gc?.max_ms_by_kind ? { maxGcKind: longestKind(body.gc.max_ms_by_kind) } : {}),
      rssMiB: body.memory.rss_bytes / 2 ** 20,
    }),
  );
  return { worstMs: Math.max(0, ...list.map((w) => w.maxDelayMs)), workers: list, expected: workers };
}
