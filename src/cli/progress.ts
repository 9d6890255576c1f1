/**
 * A one-line progress display on stderr, only when stderr is a terminal (so logs and pipes stay
 * clean). Redraws at most a few times a second.
 */
export class Progress {
  private lastDraw = 0;
  private readonly started = Date.now();
  private readonly enabled: boolean;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.enabled = Boolean(stream.isTTY);
  }

  update(done: number, detail = ''): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastDraw < 200) return;
    this.lastDraw = now;
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = Math.round(done / seconds).toLocaleString('en-US');
    this.stream.write(
      `\r\x1b[2K${this.label} ${done.toLocaleString('en-US')} (${rate}/s)${detail ? ` · ${detail}` : ''}`,
    );
  }

  finish(): void {
    if (this.enabled) this.stream.write('\r\x1b[2K');
  }
}
