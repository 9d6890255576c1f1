import type { JobLock } from '../storage/index.js';

/** A periodic job that runs only while this process holds the job lock. */
export interface LeadJob {
  name: string;
  start(): Promise<void> | void;
  /** Stops the job and waits for a run in progress. */
  stop(): Promise<void>;
}

export interface LeadershipEvents {
  /** This process took the jobs (`true`) or gave them up (`false`). */
  changed?(leading: boolean): void;
  error?(error: unknown, what: string): void;
}

/** How often a process claims the lock: the takeover after a holder dies stays well inside 30 s. */
export const CLAIM_INTERVAL_MS = 5000;

/**
 * Runs the deployment's periodic jobs on exactly one process among every instance on one
 * database: each claim of the lock (every CLAIM_INTERVAL_MS) either confirms this process still
 * holds it, takes it when its holder is gone (and starts the jobs), or finds it lost (and stops
 * them). Jobs stop before the lock is released, so two processes never run them at once.
 */
export class JobLeadership {
  private readonly jobs: LeadJob[] = [];
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private turn: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly lock: JobLock,
    private readonly events: LeadershipEvents = {},
    private readonly claimIntervalMs = CLAIM_INTERVAL_MS,
  ) {}

  add(job: LeadJob): void {
    this.jobs.push(job);
  }

  isLeading(): boolean {
    return this.leading;
  }

  /** Makes the first claim (starting the jobs if it succeeds), then claims on a timer. */
  async start(): Promise<void> {
    await this.claimInTurn();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.claimInTurn(), this.claimIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.turn;
    await this.stopJobs();
    await this.lock.release().catch((error: unknown) => this.events.error?.(error, 'releasing the job lock'));
  }

  /** Claims never overlap: a slow one (a job starting) delays the next. */
  private claimInTurn(): Promise<void> {
    this.turn = this.turn.then(() => this.claim());
    return this.turn;
  }

  private async claim(): Promise<void> {
    if (this.stopped) return;
    let held = false;
    try {
      held = await this.lock.claim();
    } catch (error) {
      this.events.error?.(error, 'claiming the job lock');
    }
    if (this.stopped) return;
    if (held && !this.leading) {
      this.leading = true;
      this.events.changed?.(true);
      for (const job of this.jobs) {
        try {
          await job.start();
        } catch (error) {
          this.events.error?.(error, `starting ${job.name}`);
        }
      }
    } else if (!held && this.leading) {
      await this.stopJobs();
      this.events.changed?.(false);
    }
  }

  private async stopJobs(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    for (const job of this.jobs) {
      await job.stop().catch((error: unknown) => this.events.error?.(error, `stopping ${job.name}`));
    }
  }
}
