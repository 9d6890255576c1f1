import fs from 'node:fs';
import { FIGURES_FILE } from './figures.js';

/** Global setup of the reliability suite: starts an empty figure list and prints it as a table at the end. */
export default function setup(): () => void {
  // Each project of the suite lists this setup: the first one starts the list, the last one prints it.
  const first = !process.env.VULNSCOPE_RELIABILITY_SETUPS || process.env.VULNSCOPE_RELIABILITY_SETUPS === '0';
  process.env.VULNSCOPE_RELIABILITY_SETUPS = String(Number(process.env.VULNSCOPE_RELIABILITY_SETUPS ?? 0) + 1);
  if (first) fs.rmSync(FIGURES_FILE, { force: true });
  // One seed for every file of the run (test processes inherit it), printed so a failure reproduces.
  process.env.VULNSCOPE_RELIABILITY_SEED ??= String(Math.floor(Math.random() * 2 ** 31));
  if (first) console.log(`reliability seed: VULNSCOPE_RELIABILITY_SEED=${process.env.VULNSCOPE_RELIABILITY_SEED}`);
  return () => {
    process.env.VULNSCOPE_RELIABILITY_SETUPS = String(Number(process.env.VULNSCOPE_RELIABILITY_SETUPS) - 1);
    if (process.env.VULNSCOPE_RELIABILITY_SETUPS !== '0' || !fs.existsSync(FIGURES_FILE)) return;
    const rows = fs
      .readFileSync(FIGURES_FILE, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { part: string; figure: string; value: string });
    console.log('\nreliability figures (reported, not asserted):\n');
    console.log('| part | figure | value |\n| --- | --- | --- |');
    for (const row of rows) console.log(`| ${row.part} | ${row.figure} | ${row.value} |`);
  };
}
