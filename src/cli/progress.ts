/**
 * Progress of a long command on stderr: a bar when the total is known, otherwise a live counter
 * with its rate. Drawn only when the stream is a terminal (so logs, pipes and CI output stay free
 * of control characters), redrawn at most five times a second, and cleared by `finish()`, after
 * which the command prints its summary either way.
 */

/** What progress is written to: stderr, or a fake terminal in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  /** Terminal width; lines are cut to fit so a redraw never wraps. */
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** The amount `done` counts up to, when known: a bar with percentage and time left. */
  total?: number;
  /** What is counted, shown after the numbers (e.g. `records`). */
  unit?: string;
  stream?: ProgressStream;
  /** Milliseconds between redraws at most (default 200). */
  intervalMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** Clear the line and return to its start. */
const CLEAR_LINE = '\r\x1b[2K';
const BAR_WIDTH = 24;

const number = (n: number) => Math.round(n).toLocaleString('en-US');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface ProgressState {
  label: string;
  done: number;
  total?: number;
  unit?: string;
  elapsedMs: number;
  detail?: string;
}

/**
 * One progress line, without control characters: `label [#####.....] 42% 4,200/10,000 records ·
 * 1,234/s · 5s left · detail` with a total, `label 4,200 records · 1,234/s · detail` without.
 */
export function renderProgress(state: ProgressState, columns = 80): string {
  const seconds = Math.max(state.elapsedMs / 1000, 0.001);
  const rate = state.done / seconds;
  const unit = state.unit ? ` ${state.unit}` : '';
  const parts: string[] = [];
  if (state.total !== undefined && state.total > 0) {
    const fraction = Math.min(Math.max(state.done / state.total, 0), 1);
    const filled = Math.round(fraction * BAR_WIDTH);
    const left = rate > 0 ? (state.total - state.done) / rate : Number.POSITIVE_INFINITY;
    parts.push(
      `${state.label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}% ${number(state.done)}/${number(state.total)}${unit}`,
      `${number(rate)}/s`,
      `${duration(left)} left`,
    );
  } else {
    parts.push(`${state.label} ${number(state.done)}${unit}`, `${number(rate)}/s`);
  }
  if (state.detail) parts.push(state.detail);
  const line = parts.join(' · ');
  // One column short of the width: a line that fills it exactly wraps on some terminals.
  const room = Math.max(columns - 1, 10);
  return line.length > room ? `${line.slice(0, room - 1)}…` : line;
}

export class Progress {
  private readonly stream: ProgressStream;
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly started: number;
  private total: number | undefined;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private done = 0;
  private detail = '';
  /** Whether anything is drawn: only on a terminal. */
  readonly enabled: boolean;

  constructor(
    private readonly label: string,
    private readonly options: ProgressOptions = {},
  ) {
    this.stream = options.stream ?? process.stderr;
    this.now = options.now ?? Date.now;
    this.intervalMs = options.intervalMs ?? 200;
    this.started = this.now();
    this.total = options.total;
    this.enabled = this.stream.isTTY === true;
  }

  /** The total, once it is known (or undefined again for a counter). */
  setTotal(total: number | undefined): void {
    this.total = total;
  }

  /** Records the count; redraws when the last draw is old enough. */
  update(done: number, detail = ''): void {
    this.done = done;
    this.detail = detail;
    if (!this.enabled) return;
    const now = this.now();
    if (now - this.lastDraw < this.intervalMs) return;
    this.lastDraw = now;
    this.draw(now);
  }

  /** Writes a line of its own (a rejection, a warning) above the progress line. */
  print(text: string): void {
    const shown = this.drawn;
    if (shown) this.stream.write(CLEAR_LINE);
    this.drawn = false;
    this.stream.write(text.endsWith('\n') ? text : `${text}\n`);
    if (shown) this.draw(this.now());
  }

  /** Clears the progress line; safe to call more than once. */
  finish(): void {
    if (this.drawn) this.stream.write(CLEAR_LINE);
    this.drawn = false;
  }

  private draw(now: number): void {
    const line = renderProgress(
      {
        label: this.label,
        done: this.done,
        ...(this.total !== undefined ? { total: this.total } : {}),
        ...(this.options.unit ? { unit: this.options.unit } : {}),
        elapsedMs: now - this.started,
        detail: this.detail,
      },
      this.stream.columns || 80,
    );
    this.stream.write(`${CLEAR_LINE}${line}`);
    this.drawn = true;
  }
}
