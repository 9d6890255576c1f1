/**
 * Smoke test of the advisory benchmark harness (bench/advisories.ts): a quick run over 2,000
 * generated records must complete and write a report with every query class and a complete,
 * duplicate-free cursor walk. No timing is asserted: the numbers belong to `npm run bench`.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = path.join(ROOT, 'dist-bench/bench/advisories.js');
const QUERY_CLASSES = [
  'cve_id',
  'vendor',
  'vendor+product',
  'vendor+product+version',
  'cpe (with version)',
  'purl (with version)',
  '/v3/purl (purl lookup)',
  'package_name',
  'reference_tag',
  'description_lang',
  'updatedAfter (date-math)',
  'no filter (page 1)',
  'deep page (page 50)',
  'search/cve (GET /v3/search/cve)',
];

let out: string;

beforeAll(() => {
  // The global setup builds dist/ (the server the harness starts); the bench has its own build.
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.bench.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-adv-smoke-'));
});

afterAll(() => {
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VULNSCOPE_')));
    const child = spawn(process.execPath, [ENTRY, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('advisory benchmark harness', () => {
  it('runs a quick 2,000-record benchmark and writes a complete report', async () => {
    const { code, stderr } = await run(['--records', '2000', '--quick', '--out', out]);
    expect(code, stderr).toBe(0);
    const json = path.join(out, 'advisories-sqlite-2000.json');
    expect(fs.existsSync(json)).toBe(true);
    expect(fs.existsSync(path.join(out, 'advisories-sqlite-2000.md'))).toBe(true);
    const result = JSON.parse(fs.readFileSync(json, 'utf8')) as {
      records: number;
      load: { records: number; rejected: number };
      queries: Array<{
        name: string;
        filtered: number;
        api: { c1: { requests: number; errors: number }; c32: { errors: number } };
      }>;
      walk: { records: number; total: number; duplicates: number; pages: number };
    };
    expect(result.records).toBe(2000);
    expect(result.load).toMatchObject({ records: 2000, rejected: 0 });
    expect(result.queries.map((q) => q.name)).toEqual(QUERY_CLASSES);
    for (const query of result.queries) {
      expect(query.api.c1.requests, query.name).toBeGreaterThan(0);
      expect(query.api.c1.errors + query.api.c32.errors, query.name).toBe(0);
    }
    // The version-aware classes find something, so they measure the match-data path.
    for (const name of [
      'vendor+product+version',
      'cpe (with version)',
      'purl (with version)',
      '/v3/purl (purl lookup)',
    ]) {
      expect(result.queries.find((q) => q.name === name)!.filtered, name).toBeGreaterThan(0);
    }
    expect(result.queries.find((q) => q.name.startsWith('search/cve'))!.filtered).toBe(1);
    expect(result.walk.duplicates).toBe(0);
    expect(result.walk.total).toBe(2000);
    expect(result.walk.records).toBe(result.walk.total);
    expect(result.walk.pages).toBe(20);
  }, 60_000);
});
