import { setImmediate as yieldToLoop } from 'node:timers/promises';

/**
 * Cuts a long computation into slices: `tick()` yields to the event loop once `sliceMs` have
 * passed since the last yield, so requests are served between slices of a build.
 */
export class Slicer {
  private since = performance.now();
  private calls = 0;

  constructor(private readonly sliceMs = 15) {}

  /** Call often (every call is cheap: the clock is read every 256th). */
  async tick(): Promise<void> {
    if (++this.calls % 256 !== 0) return;
    await this.yieldIfDue();
  }

  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await yieldToLoop();
    this.since = performance.now();
  }
}
