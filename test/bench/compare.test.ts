/** The comparison table of two benchmark results (bench/compare.ts), from a committed result. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderComparison } from '../../bench/compare.js';
import type { BenchResult } from '../../bench/report.js';

const result = JSON.parse(
  fs.readFileSync(new URL('../../bench/results/sqlite-10000.json', import.meta.url), 'utf8'),
) as BenchResult;

describe('renderComparison', () => {
  it('puts every query of A beside B with the ratio B ÷ A', () => {
    const faster: BenchResult = structuredClone(result);
    faster.engine = 'postgres';
    faster.queries = faster.queries.map((q) => ({
      ...q,
      api: { ...q.api, c1: { ...q.api.c1, p50Ms: q.api.c1.p50Ms / 2 } },
    }));
    faster.ingest = { ...faster.ingest, observationsPerSecond: faster.ingest.observationsPerSecond * 3 };
    const markdown = renderComparison(result, faster, ['sqlite', 'postgres']);
    const rows = markdown.split('\n').filter((line) => line.startsWith('| '));
    for (const query of result.queries) {
      const row = rows.find((line) => line.startsWith(`| ${query.name} |`));
      expect(row, query.name).toBeDefined();
      expect(row!.split('|')[4]!.trim()).toBe('0.50');
    }
    expect(
      rows
        .find((line) => line.startsWith('| ingest obs/s |'))!
        .split('|')[4]!
        .trim(),
    ).toBe('3.00');
    expect(markdown).toContain('- **postgres**: postgres, 10,000 observations');
  });

  it('marks a query that only A measured', () => {
    const fewer: BenchResult = { ...structuredClone(result), queries: result.queries.slice(1) };
    const markdown = renderComparison(result, fewer, ['A', 'B']);
    const row = markdown.split('\n').find((line) => line.startsWith(`| ${result.queries[0]!.name} |`))!;
    expect(row.split('|')[3]!.trim()).toBe('—');
  });
});
