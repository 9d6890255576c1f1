import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/cli.js';

/** Where the suite's figures are collected during one run (the global teardown prints them). */
export const FIGURES_FILE = path.join(ROOT, '.tmp', 'reliability-figures.jsonl');

/** Long mode: the soak runs 10 minutes and the crash loops try more points (VULNSCOPE_RELIABILITY_LONG=1). */
export const LONG = process.env.VULNSCOPE_RELIABILITY_LONG === '1';

/** One seed for the whole run, printed, so a failure reproduces with VULNSCOPE_RELIABILITY_SEED. */
export const SEED = seedOf(process.env.VULNSCOPE_RELIABILITY_SEED);

function seedOf(text: string | undefined): number {
  if (text && /^\d+$/.test(text)) return Number(text);
  return Math.floor(Math.random() * 2 ** 31);
}

/** Records a figure the suite reports (never asserts): printed now, and listed at the end of the run. */
export function report(part: string, figure: string, value: string | number): void {
  const shown = typeof value === 'number' ? formatNumber(value) : value;
  console.log(`[reliability] ${part} | ${figure} | ${shown}`);
  fs.mkdirSync(path.dirname(FIGURES_FILE), { recursive: true });
  fs.appendFileSync(FIGURES_FILE, `${JSON.stringify({ part, figure, value: shown })}\n`);
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(2);
}

/** A small seeded generator (mulberry32) for choices outside fast-check (kill points, scan data). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
