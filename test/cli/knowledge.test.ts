import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, summaryOf } from '../support/cli.js';
import { fixture } from '../support/fixtures.js';

/** `vulnscope ingest cpe-dictionary`, knowledge after `ingest advisories`, and `knowledge rebuild`, end to end. */

const PRODUCTS = fixture('cpe/nvd_cpe_dictionary_api2_samples.jsonl');
const MATCHES = fixture('cpe/nvd_cpematch_api2_samples.jsonl');

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cli-knowledge-'));
  env = { VULNSCOPE_DATABASE_URL: path.join(dir, 'cli.db') };
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('vulnscope knowledge commands', () => {
  it('ingest cpe-dictionary loads the samples and prints an honest summary', async () => {
    const result = await runCli(['ingest', 'cpe-dictionary', PRODUCTS, MATCHES], env);
    expect(result.stderr).toContain('cpe dictionary');
    expect(result.code).toBe(0);
    const summary = summaryOf(result.stderr);
    expect(summary).toMatchObject({
      read: '8',
      products: '4',
      'match criteria': '4',
      deprecated: '1',
      'new renames': '1',
      rejected: '0',
    });
    expect(Number(summary['names written'])).toBeGreaterThan(100);
  });

  it('reports rejected lines with file and line; --strict exits 1', async () => {
    const file = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(
      file,
      `${JSON.stringify({ cpe: { cpeName: 'cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*' } })}\n{oops\n`,
    );
    const lenient = await runCli(['ingest', 'cpe-dictionary', file], env);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain(`rejected at ${file}:2: invalid JSON`);
    expect(summaryOf(lenient.stderr)).toMatchObject({ read: '2', 'names written': '1', rejected: '1' });
    const strict = await runCli(['ingest', 'cpe-dictionary', '--strict', file], env);
    expect(strict.code).toBe(1);
    const missing = await runCli(['ingest', 'cpe-dictionary', path.join(dir, 'missing.jsonl')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/not found/);
  });

  it('ingest advisories of nist-nvd2 refreshes knowledge and says so; knowledge rebuild re-derives', async () => {
    const load = await runCli(['ingest', 'advisories', '--feed', 'nist-nvd2', fixture('nvd')], env);
    expect(load.code).toBe(0);
    const summary = summaryOf(load.stderr);
    expect(Number(summary['knowledge CVEs changed'])).toBeGreaterThanOrEqual(28);
    expect(Number(summary['knowledge criteria written'])).toBeGreaterThan(100);
    expect(Number(summary['products touched'])).toBeGreaterThan(10);

    const rebuild = await runCli(['knowledge', 'rebuild'], env);
    expect(rebuild.code).toBe(0);
    expect(summaryOf(rebuild.stderr)).toMatchObject({ 'CVEs changed': '0', 'criteria written': '0' });
    expect(Number(summaryOf(rebuild.stderr)['CVEs known'])).toBe(29);
    const forced = await runCli(['knowledge', 'rebuild', '--force'], env);
    expect(forced.code).toBe(0);
    expect(summaryOf(forced.stderr)['CVEs changed']).toBe('29');
    expect(summaryOf(forced.stderr)['criteria written']).toBe(summary['knowledge criteria written']);

    // Other feeds do not touch knowledge and print no knowledge lines.
    const kev = await runCli(
      ['ingest', 'advisories', '--feed', 'cisa-kev', fixture('feeds/cisa_kev_known_exploited_vulnerabilities.json.gz')],
      env,
    );
    expect(kev.code).toBe(0);
    expect(kev.stderr).not.toContain('knowledge');
  });
});
