import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { fixture } from '../support/fixtures.js';

/** Whether `text` holds a control character other than newline and tab (a progress redraw would). */
const hasControl = (text: string) => [...text].some((c) => (c < ' ' && c !== '\n' && c !== '\t') || c === '\u007f');

let dir: string;
let env: Record<string, string>;
let server: http.Server;
let kevUrl: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-progress-'));
  const kev = fs.readFileSync(fixture('feeds/cisa_kev_known_exploited_vulnerabilities.json.gz'));
  server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'identity' });
    response.end(kev);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  kevUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/known_exploited_vulnerabilities.json.gz`;
  const feedsFile = path.join(dir, 'feeds.json');
  fs.writeFileSync(feedsFile, JSON.stringify({ feeds: [{ name: 'cisa-kev', adapter: 'cisa-kev', source: kevUrl }] }));
  env = {
    VULNSCOPE_DATABASE_URL: path.join(dir, 'progress.db'),
    VULNSCOPE_BACKUP_DIR: path.join(dir, 'backups'),
    VULNSCOPE_FEEDS_FILE: feedsFile,
    VULNSCOPE_RETENTION_DAYS: '0',
  };
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Every long command, run with stderr a pipe (not a terminal): no progress drawing, nothing but
 * plain lines, and its summary. The drawing itself is tested in src/cli/progress.test.ts.
 */
describe('long commands without a terminal', () => {
  it.each([
    ['ingest scans', ['ingest', 'scans', fixture('scans/nmap_ullaakut_scan_base.xml')], /^ingest summary$/m],
    ['ingest advisories', ['ingest', 'advisories', '--feed', 'nist-nvd2', fixture('nvd')], /^feed nist-nvd2$/m],
    [
      'ingest cpe-dictionary',
      [
        'ingest',
        'cpe-dictionary',
        fixture('cpe/nvd_cpe_dictionary_api2_samples.jsonl'),
        fixture('cpe/nvd_cpematch_api2_samples.jsonl'),
      ],
      /^cpe dictionary$/m,
    ],
    [
      'ingest classifications',
      ['ingest', 'classifications', fixture('ip-lists/tor_exit_nodes.lst'), '--as', 'proxy:tor'],
      /^classification list "tor_exit_nodes.lst"$/m,
    ],
    ['knowledge rebuild', ['knowledge', 'rebuild'], /^knowledge rebuild$/m],
    ['sync', ['sync', 'cisa-kev'], /^feed cisa-kev$/m],
    ['backup write', ['backup', 'write'], /^index target-intel: /m],
    ['expire', ['--retention-days', '1', 'expire'], /^expiry \(retention 1 days\)$/m],
  ])('%s prints its summary and no control characters', async (_name, args, summary) => {
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(summary);
    expect(hasControl(result.stderr), JSON.stringify(result.stderr)).toBe(false);
  });

  it('demo prints its summary lines and no control characters', async () => {
    const result = await runCli(['demo', '--records', '500', '--no-serve'], {
      ...env,
      VULNSCOPE_DATABASE_URL: path.join(dir, 'demo.db'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^demo dataset: [\d,]+ target-intel records served/m);
    expect(result.stderr).toMatch(/^demo backups in /m);
    expect(hasControl(result.stderr), JSON.stringify(result.stderr)).toBe(false);
  });
});
