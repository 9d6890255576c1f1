/**
 * Counters in Redis, shared by every instance: one key per (token, group, window), incremented
 * and given its expiry by one Lua script (atomic). While Redis cannot be reached or does not
 * answer, the counts fall back to this process's own counters, so requests are still limited
 * (per instance) and never wait on Redis for longer than one short command deadline.
 *
 * A breaker keeps a silent Redis (connection accepted, nothing answered) from costing every
 * request that deadline: the first command that fails opens it, and from then on requests count
 * in memory without touching Redis while a background probe, once per probe interval, tries the
 * same script; the first probe that answers closes it. A connection that stays unusable is
 * replaced, since a peer that vanished may never close it.
 */
import { Redis } from 'ioredis';
import { type CountingMode, windowIndex, type RateCounter, type WindowCount } from './counter.js';
import { MemoryCounter } from './memory-counter.js';

const INCREMENT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

export interface RedisCounterOptions {
  /** Separates deployments sharing one Redis. */
  prefix: string;
  /** Called once each time counting switches between shared and per-instance, with the last Redis error. */
  onModeChange?: (mode: CountingMode, cause?: unknown) => void;
  /** How long a start waits for Redis before it serves with per-instance counts. */
  connectTimeoutMs?: number;
  /** The longest a request waits on Redis before it counts in memory. */
  commandTimeoutMs?: number;
  /** How often an open breaker tries Redis again. */
  probeIntervalMs?: number;
  /** How long a connection may stay unusable before it is replaced by a new one. */
  reconnectAfterMs?: number;
}

type ScriptedRedis = Redis & { vulnscopeHit(key: string, ttlMs: number): Promise<number> };

export class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/**
 * Settles with `promise`, or rejects after `ms`. The timeout is decided after the event loop's
 * next I/O poll, so a reply already waiting in the socket wins even when the loop ran late.
 */
export function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(new RedisTimeoutError(ms));
        }),
      ms,
    );
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export class RedisCounter implements RateCounter {
  private readonly fallback = new MemoryCounter();
  private readonly commandTimeoutMs: number;
  private readonly reconnectAfterMs: number;
  private readonly probeTimer: NodeJS.Timeout;
  private tripped = false;
  private probing = false;
  private closed = false;
  private reported: CountingMode | undefined;
  private lastCause: unknown;
  /** Since when counting has been per-instance without a connection reset (epoch ms). */
  private unusableSince: number | undefined;

  private constructor(
    private readonly redis: ScriptedRedis,
    private readonly options: RedisCounterOptions,
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? 50;
    this.reconnectAfterMs = options.reconnectAfterMs ?? 5000;
    this.probeTimer = setInterval(() => void this.probe(), options.probeIntervalMs ?? 1000);
    this.probeTimer.unref();
  }

  static async connect(url: string, options: RedisCounterOptions): Promise<RedisCounter> {
    const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    const redis = new Redis(url, {
      // A request never queues behind a lost connection: it falls back at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: connectTimeoutMs,
      keepAlive: 10_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: true,
    }) as ScriptedRedis;
    redis.defineCommand('vulnscopeHit', { numberOfKeys: 1, lua: INCREMENT });
    const counter = new RedisCounter(redis, options);
    redis.on('error', (error) => {
      counter.lastCause = error;
    });
    // A connection that passed the ready check answers: shared counting resumes.
    redis.on('ready', () => {
      counter.tripped = false;
      counter.unusableSince = undefined;
      counter.noteMode();
    });
    redis.on('close', () => counter.noteMode());
    // The connect promise of a silent Redis never settles: a start waits only so long.
    await withinDeadline(redis.connect(), connectTimeoutMs).catch((error: unknown) => {
      counter.lastCause = error;
    });
    counter.noteMode();
    return counter;
  }

  mode(): CountingMode {
    return !this.closed && !this.tripped && this.redis.status === 'ready' ? 'shared' : 'per-instance';
  }

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const index = windowIndex(now, windowMs);
    if (this.mode() === 'shared') {
      try {
        const count = await withinDeadline(
          this.redis.vulnscopeHit(`${this.options.prefix}:${key}:${windowMs}:${index}`, windowMs + 1000),
          this.commandTimeoutMs,
        );
        return { count: Number(count), resetAt: (index + 1) * windowMs };
      } catch (error) {
        this.trip(error);
      }
    }
    return this.fallback.hitNow(key, windowMs, now);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probeTimer);
    this.redis.disconnect();
    await this.fallback.close();
  }

  private trip(error: unknown): void {
    this.lastCause = error;
    if (this.tripped) return;
    this.tripped = true;
    this.noteMode();
  }

  /** Reports a switch of mode once; the first report is made only when a start could not share. */
  private noteMode(): void {
    if (this.closed) return;
    const mode = this.mode();
    if (mode === this.reported) return;
    const first = this.reported === undefined;
    this.reported = mode;
    if (first && mode === 'shared') return;
    this.options.onModeChange?.(mode, mode === 'shared' ? undefined : this.lastCause);
  }

  private async probe(): Promise<void> {
    if (this.closed || this.probing) return;
    if (this.mode() === 'shared') {
      this.unusableSince = undefined;
      return;
    }
    const now = Date.now();
    this.unusableSince ??= now;
    const unusableSince = this.unusableSince;
    const status = this.redis.status;
    if (status === 'ready') {
      this.probing = true;
      try {
        await withinDeadline(this.redis.vulnscopeHit(`${this.options.prefix}:probe`, 10_000), this.commandTimeoutMs);
        this.tripped = false;
        this.unusableSince = undefined;
        this.noteMode();
        return;
      } catch (error) {
        this.lastCause = error;
      } finally {
        this.probing = false;
      }
    }
    // 'connect' is a handshake that got no answer; 'reconnecting' is already ioredis's own retry.
    if ((status === 'ready' || status === 'connect') && now - unusableSince >= this.reconnectAfterMs) {
      this.unusableSince = now;
      this.redis.disconnect(true);
    }
  }
}
