import { describe, expect, it } from 'vitest';
import { Progress, renderProgress, type ProgressStream } from './progress.js';

/** A stream that records what is written, a terminal or not, with a clock the test moves. */
function fakeStream(isTTY: boolean, columns = 100): ProgressStream & { output: string } {
  return {
    isTTY,
    columns,
    output: '',
    write(text: string) {
      this.output += text;
      return true;
    },
  };
}

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** Whether `text` holds a control character other than newline and tab. */
const hasControl = (text: string) => [...text].some((c) => (c < ' ' && c !== '\n' && c !== '\t') || c === '\u007f');
const CLEAR = '\r\u001b[2K';

describe('renderProgress', () => {
  it('draws a bar with percentage, counts, rate and time left when the total is known', () => {
    const line = renderProgress(
      {
        label: 'ingesting',
        done: 2_500,
        total: 10_000,
        unit: 'observations',
        elapsedMs: 5_000,
      },
      120,
    );
    expect(line).toBe('ingesting [######..................] 25% 2,500/10,000 observations · 500/s · 15s left');
  });

  it('draws a counter with its rate when the total is unknown', () => {
    expect(renderProgress({ label: 'loading nist-nvd2', done: 12_345, elapsedMs: 2_000, detail: '3 rejected' })).toBe(
      'loading nist-nvd2 12,345 · 6,173/s · 3 rejected',
    );
  });

  it('never writes control characters and fits the terminal width', () => {
    const line = renderProgress({ label: 'x'.repeat(200), done: 1, total: 2, elapsedMs: 1 }, 60);
    expect(line.length).toBeLessThanOrEqual(59);
    expect(hasControl(line)).toBe(false);
    expect(renderProgress({ label: 'done', done: 10, total: 10, elapsedMs: 1000 })).toMatch(
      /\[#{24}\] 100% .* 0s left/,
    );
  });
});

describe('Progress', () => {
  it('writes nothing at all when the stream is not a terminal', () => {
    const stream = fakeStream(false);
    const progress = new Progress('ingesting', { stream, total: 10 });
    expect(progress.enabled).toBe(false);
    for (let i = 0; i <= 10; i++) progress.update(i);
    progress.print('rejected line 3: bad');
    progress.finish();
    expect(stream.output).toBe('rejected line 3: bad\n');
  });

  it('on a terminal redraws one line at most every 200 ms and clears it at the end', () => {
    const stream = fakeStream(true);
    const time = clock();
    const progress = new Progress('backup nist-nvd2', { stream, total: 1000, unit: 'records', now: time.now });
    expect(progress.enabled).toBe(true);
    progress.update(100); // first update: drawn
    time.advance(50);
    progress.update(200); // too soon: not drawn
    time.advance(150);
    progress.update(300); // 200 ms after the first draw
    const draws = stream.output.split(CLEAR).filter(Boolean);
    expect(draws).toHaveLength(2);
    expect(draws[0]).toMatch(/^backup nist-nvd2 \[##\.+\] 10% 100\/1,000 records/);
    expect(draws[1]).toMatch(/^backup nist-nvd2 \[#+\.+\] 30% 300\/1,000 records/);
    expect(stream.output).not.toContain('\n');

    progress.finish();
    expect(stream.output.endsWith(CLEAR)).toBe(true);
    const length = stream.output.length;
    progress.finish();
    expect(stream.output.length).toBe(length);
  });

  it('prints a line of its own above the progress line, then draws the progress again', () => {
    const stream = fakeStream(true);
    const time = clock();
    const progress = new Progress('ingesting', { stream, now: time.now });
    progress.update(5);
    progress.print('rejected scan.xml:3: no port');
    const pieces = stream.output.split(CLEAR);
    expect(pieces).toHaveLength(4);
    expect(pieces[0]).toBe('');
    expect(pieces[1]).toMatch(/^ingesting 5 · /);
    expect(pieces[2]).toBe('rejected scan.xml:3: no port\n');
    expect(pieces[3]).toMatch(/^ingesting 5 · /);
  });

  it('shows a total set later', () => {
    const stream = fakeStream(true);
    const time = clock();
    const progress = new Progress('expiring', { stream, now: time.now });
    progress.setTotal(4);
    progress.update(1);
    expect(stream.output).toContain('25% 1/4');
  });
});
