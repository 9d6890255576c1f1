/** Work one turn of the event loop may start before later work waits for a following turn. */
export const TURN_BUDGET_MS = 8;

/**
 * One queue of work per process, so no burst of requests holds the event loop: a request's
 * handler, each slice of a streamed body and each slice of an index rebuild calls `admit()`, which
 * lets it run at once while the current turn has used less than the budget, and otherwise makes it
 * wait, in arrival order, for a later turn (one waiting item per turn, timers and sockets between).
 */
export class LoopTurns {
  private turnStartedAt: number | undefined;
  private pumpScheduled = false;
  private readonly waiting: Array<() => void> = [];
  private head = 0;

  constructor(private readonly budgetMs = TURN_BUDGET_MS) {}

  /** Undefined when the caller may go on now; otherwise a promise that resolves on its turn. */
  admit(): Promise<void> | undefined {
    if (this.head < this.waiting.length) return this.enqueue();
    const now = performance.now();
    if (this.turnStartedAt === undefined) {
      this.turnStartedAt = now;
      this.schedulePump();
      return undefined;
    }
    return now - this.turnStartedAt < this.budgetMs ? undefined : this.enqueue();
  }

  /** A promise that resolves on a later turn of the caller's own, whatever this one has used. */
  next(): Promise<void> {
    return this.enqueue();
  }

  /** Items waiting for a turn. */
  get backlog(): number {
    return this.waiting.length - this.head;
  }

  private enqueue(): Promise<void> {
    this.schedulePump();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(this.pump);
  }

  /** Runs after the turn's I/O callbacks: ends the turn and starts the next waiting item, if any. */
  private readonly pump = () => {
    this.pumpScheduled = false;
    this.turnStartedAt = undefined;
    if (this.head === this.waiting.length) return;
    const next = this.waiting[this.head++]!;
    if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    this.turnStartedAt = performance.now();
    this.schedulePump();
    next();
  };
}

/** The process's one queue. */
export const loopTurns = new LoopTurns();

/** Waits for a turn when the current one is used up. */
export async function takeTurn(): Promise<void> {
  const wait = loopTurns.admit();
  if (wait !== undefined) await wait;
}
