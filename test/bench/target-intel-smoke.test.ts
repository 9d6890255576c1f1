import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/** The benchmark harness works end to end on a tiny dataset. No timing is asserted: speed is judged by `npm run bench`. */
describe('npm run bench (10k smoke)', () => {
  let out: string;
  beforeAll(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-bench-smoke-'));
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.bench.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  });
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it('produces every figure for every query class', () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VULNSCOPE_')));
    execFileSync(process.execPath, ['dist-bench/bench/run.js', '--records', '10000', '--quick', '--out', out], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 170_000,
    });
    const result = JSON.parse(fs.readFileSync(path.join(out, 'sqlite-10000.json'), 'utf8'));
    expect(result.indexedRecords).toBeGreaterThan(9000);
    expect(result.queries.map((q: { name: string }) => q.name)).toEqual([
      'rare CVE',
      'popular CVE',
      'vendor=apache',
      'vendor+product+version',
      'cidr /24',
      'cidr /16',
      'single IP',
      'contains_cve + country_code',
      'classifications=c2',
      'C2 list: tags (text)',
      'C2 list: pdns (json)',
      'asn + port',
      'facets: 5 fields, contains_cve',
      'hostname substring',
    ]);
    for (const query of result.queries) {
      expect(query.api.c1.errors).toBe(0);
      expect(query.api.c32.errors).toBe(0);
      expect(query.total).toBeGreaterThan(0);
    }
    expect(result.walk.duplicates).toBe(0);
    expect(result.upkeep.expired).toBeGreaterThan(0);
    // Applied by every worker only after being committed.
    expect(result.upkeep.expiryAppliedSeconds).toBeGreaterThanOrEqual(result.upkeep.expirySeconds);
    expect(result.upkeep.upsertAppliedSeconds).toBeGreaterThanOrEqual(result.upkeep.upsertSeconds);
    expect(result.upkeep.contentUpserts.upserts).toBe(result.upkeep.upserts);
    // Three rounds of each upsert; the figures are the median round's.
    for (const [rounds, median] of [
      [result.upkeep.upsertRoundsSeconds, result.upkeep.upsertSeconds],
      [result.upkeep.contentUpserts.roundsSeconds, result.upkeep.contentUpserts.seconds],
    ]) {
      expect(rounds).toHaveLength(3);
      expect([...rounds].sort((a: number, b: number) => a - b)[1]).toBe(median);
    }
    expect(result.upkeep.contentUpserts.appliedSeconds).toBeGreaterThanOrEqual(result.upkeep.contentUpserts.seconds);
    // Where the cores went: the ingest process (its main thread a part of it) and each server worker.
    for (const cpu of [result.upkeep.upsertCpu, result.upkeep.contentUpserts.cpu]) {
      expect(cpu.ingest.totalSeconds).toBeGreaterThan(0);
      expect(cpu.ingest.mainThreadSeconds).toBeGreaterThan(0);
      expect(cpu.ingest.mainThreadSeconds).toBeLessThanOrEqual(cpu.ingest.totalSeconds);
      expect(cpu.server.workerSeconds).toHaveLength(result.serverWorkers);
    }
    expect(result.upkeep.expiryServerCpu.workerSeconds).toHaveLength(result.serverWorkers);
    expect(result.upkeep.expiryServerCpu.workerSeconds.every((s: number) => s >= 0)).toBe(true);
    expect(fs.readFileSync(path.join(out, 'sqlite-10000.md'), 'utf8')).toContain('| rare CVE |');
  }, 180_000);
});
