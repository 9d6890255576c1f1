/**
 * Smoke test of the knowledge benchmark harness (bench/knowledge.ts): a quick run over 2,000
 * generated CVEs and 8,000 CPE names must load through the real paths, measure every CPE search
 * class, the matcher and the ingest, and write its report. No timing is asserted: the numbers
 * belong to `npm run bench:knowledge`.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = path.join(ROOT, 'dist-bench/bench/knowledge.js');
const SEARCH_CLASSES = [
  'vendor+product',
  'vendor+product (most names)',
  'vendor+product+version',
  'version prefix 2.4.*',
  'part only',
  'vendor only',
  'isVulnerable=true',
  'deep page (page 100)',
];

const LOOKUP_CLASSES = [
  'name',
  'name (2.2 URI)',
  'name, isVulnerable=true',
  'version prefix 2.4.*',
  'product, no version',
  'product, no version (most names)',
  'vendor alone',
];

let out: string;

beforeAll(() => {
  // The global setup builds dist/ (the server the harness starts); the bench has its own build.
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.bench.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-knw-smoke-'));
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

describe('knowledge benchmark harness', () => {
  it('runs a quick 2,000-CVE / 8,000-name benchmark and writes a complete report', async () => {
    const { code, stderr } = await run([
      '--cves',
      '2000',
      '--names',
      '8000',
      '--quick',
      '--contexts',
      '1000',
      '--observations',
      '1000',
      '--out',
      out,
    ]);
    expect(code, stderr).toBe(0);
    const json = path.join(out, 'knowledge-sqlite-2000.json');
    expect(fs.existsSync(json)).toBe(true);
    expect(fs.existsSync(path.join(out, 'knowledge-sqlite-2000.md'))).toBe(true);
    const result = JSON.parse(fs.readFileSync(json, 'utf8')) as {
      cves: number;
      names: number;
      load: {
        feed: { records: number; rejected: number };
        derivation: { criteria: number };
        dictionary: { names: number; rejected: number };
        counts: { dictionaryNames: number };
        database: { totalMiB: number };
      };
      search: {
        queries: Array<{
          name: string;
          total: number;
          api: { c1: { requests: number; errors: number }; c32: { errors: number } };
        }>;
        lookups: Array<{
          name: string;
          total?: number;
          api: { c1: { requests: number; errors: number }; c32: { errors: number } };
        }>;
      };
      matcher: { contexts: number; cold: { contexts: number }; warm: { contexts: number } };
      ingest: { off: { inserted: number }; on: { inserted: number; withKnowledgeCves: number } };
    };
    expect(result).toMatchObject({ cves: 2000, names: 8000 });
    expect(result.load.feed).toMatchObject({ records: 2000, rejected: 0 });
    expect(result.load.derivation.criteria).toBeGreaterThan(0);
    expect(result.load.dictionary).toMatchObject({ names: 8000, rejected: 0 });
    expect(result.load.counts.dictionaryNames).toBe(8000);
    expect(result.load.database.totalMiB).toBeGreaterThan(0);
    expect(result.search.queries.map((q) => q.name)).toEqual(SEARCH_CLASSES);
    for (const query of result.search.queries) {
      expect(query.total, query.name).toBeGreaterThan(0);
      expect(query.api.c1.requests, query.name).toBeGreaterThan(0);
      expect(query.api.c1.errors + query.api.c32.errors, query.name).toBe(0);
    }
    // Every /v3/cpe class is answered at this size (none passes 10,000 names), without an error.
    expect(result.search.lookups.map((q) => q.name)).toEqual(LOOKUP_CLASSES);
    for (const lookup of result.search.lookups) {
      expect(lookup.total, lookup.name).toBeTypeOf('number');
      expect(lookup.api.c1.requests, lookup.name).toBeGreaterThan(0);
      expect(lookup.api.c1.errors + lookup.api.c32.errors, lookup.name).toBe(0);
    }
    expect(result.matcher.cold.contexts).toBe(1000);
    expect(result.matcher.warm.contexts).toBe(1000);
    expect(result.ingest.off.inserted).toBe(1000);
    expect(result.ingest.on.inserted).toBe(1000);
    // The matcher is really on: synthetic scans of vulnerable versions get knowledge CVEs.
    expect(result.ingest.on.withKnowledgeCves).toBeGreaterThan(0);
  }, 120_000);
});
