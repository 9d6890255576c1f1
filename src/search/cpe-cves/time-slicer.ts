/** Cuts long work into slices: `pause()` yields to the event loop once a slice has run `sliceMs`. */
export class TimeSlicer {
  private started = performance.now();

  constructor(private readonly sliceMs = 8) {}

  async pause(): Promise<void> {
    if (performance.now() - this.started < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
