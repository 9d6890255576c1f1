/**
 * Counters in Redis, shared by every instance: one key per (token, group, window), incremented
 * and given its expiry by one Lua script (atomic). While Redis cannot be reached, the counts fall
 * back to this process's own counters, so requests are still limited (per instance) and never
 * wait on Redis.
 */
import { Redis } from 'ioredis';
import { windowIndex, type RateCounter, type WindowCount } from './counter.js';
import { MemoryCounter } from './memory-counter.js';

const INCREMENT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

export interface RedisCounterOptions {
  /** Separates deployments sharing one Redis. */
  prefix: string;
  onError?: (error: unknown) => void;
  /** How long a start waits for the first connection. */
  connectTimeoutMs?: number;
}

type ScriptedRedis = Redis & { vulnscopeHit(key: string, ttlMs: number): Promise<number> };

export class RedisCounter implements RateCounter {
  private readonly fallback = new MemoryCounter();
  private lastErrorAt = 0;

  private constructor(
    private readonly redis: ScriptedRedis,
    private readonly options: RedisCounterOptions,
  ) {}

  static async connect(url: string, options: RedisCounterOptions): Promise<RedisCounter> {
    const redis = new Redis(url, {
      // A request never queues behind a lost connection: it falls back at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: options.connectTimeoutMs ?? 2000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: true,
    }) as ScriptedRedis;
    redis.defineCommand('vulnscopeHit', { numberOfKeys: 1, lua: INCREMENT });
    const counter = new RedisCounter(redis, options);
    redis.on('error', (error) => counter.report(error));
    await redis.connect().catch((error) => counter.report(error));
    return counter;
  }

  private report(error: unknown): void {
    const now = Date.now();
    if (now - this.lastErrorAt < 10_000) return;
    this.lastErrorAt = now;
    this.options.onError?.(error);
  }

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const index = windowIndex(now, windowMs);
    if (this.redis.status === 'ready') {
      try {
        const count = await this.redis.vulnscopeHit(
          `${this.options.prefix}:${key}:${windowMs}:${index}`,
          windowMs + 1000,
        );
        return { count: Number(count), resetAt: (index + 1) * windowMs };
      } catch (error) {
        this.report(error);
      }
    }
    return this.fallback.hitNow(key, windowMs, now);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }
}
