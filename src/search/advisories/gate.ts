/**
 * Readers share, a writer is alone: queries read a feed's segment and the match index while no
 * generation switch frees slots under them, and a waiting switch lets no new reader in first.
 */
export class ReadWriteGate {
  private readers = 0;
  private writer: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  async read<T>(fn: () => Promise<T> | T): Promise<T> {
    while (this.writer !== undefined) await this.writer;
    this.readers++;
    try {
      return await fn();
    } finally {
      this.readers--;
      if (this.readers === 0) this.drained?.();
    }
  }

  /** Runs `fn` (synchronous: it holds every reader off) once the readers in flight are done. */
  async write(fn: () => void): Promise<void> {
    while (this.writer !== undefined) await this.writer;
    let release = () => {};
    this.writer = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      if (this.readers > 0) {
        await new Promise<void>((resolve) => {
          this.drained = resolve;
        });
      }
      fn();
    } finally {
      this.drained = undefined;
      this.writer = undefined;
      release();
    }
  }
}
