import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureHead } from '../support/fixtures.js';
import { runCli } from '../support/cli.js';
import { fixture } from '../support/fixtures.js';

/** `vulnscope ingest advisories`, `sync` (from a local HTTP server), `feeds` and token entitlements, end to end. */

let dir: string;
let env: Record<string, string>;
let server: http.Server;
let base: string;
const requests: Array<{ url: string; conditional: boolean }> = [];

const KEV = fixture('feeds/cisa_kev_known_exploited_vulnerabilities.json.gz');

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cli-advisories-'));
  const goSubset = await fixtureHead('feeds/golang_vulndb_osv.jsonl.gz', 120);
  const files: Record<string, { body: Buffer; type: string }> = {
    '/kev/known_exploited_vulnerabilities.json': { body: fs.readFileSync(KEV), type: 'application/json' },
    '/go/osv.jsonl': { body: fs.readFileSync(goSubset), type: 'application/x-ndjson' },
  };
  const lastModified = new Date(Date.now() - 3_600_000).toUTCString();
  server = http.createServer((request, response) => {
    const file = files[request.url ?? ''];
    const conditional =
      request.headers['if-none-match'] !== undefined || request.headers['if-modified-since'] !== undefined;
    requests.push({ url: request.url ?? '', conditional });
    if (!file) {
      response.writeHead(404).end('not found');
      return;
    }
    const etag = `"${file.body.length}"`;
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304).end();
      return;
    }
    response.writeHead(200, {
      'content-type': file.type,
      'content-length': file.body.length,
      etag,
      'last-modified': lastModified,
    });
    response.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const feedsFile = path.join(dir, 'feeds.json');
  fs.writeFileSync(
    feedsFile,
    JSON.stringify({
      feeds: [
        {
          name: 'kev-mirror',
          description: 'KEV from a mirror',
          adapter: 'cisa-kev',
          source: `${base}/kev/known_exploited_vulnerabilities.json`,
        },
        { name: 'go-vulndb', adapter: 'osv', source: `${base}/go/osv.jsonl` },
        { name: 'broken-link', adapter: 'osv', source: `${base}/missing.jsonl` },
      ],
    }),
  );
  env = { VULNSCOPE_DATABASE_URL: path.join(dir, 'cli.db'), VULNSCOPE_FEEDS_FILE: feedsFile };
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const summaryOf = (stderr: string) =>
  Object.fromEntries(
    [...stderr.matchAll(/^\s+(read|added|updated|unchanged|removed|rejected|records)\s+([\d,]+)$/gm)].map((m) => [
      m[1],
      Number(m[2]!.replace(/,/g, '')),
    ]),
  );

describe('vulnscope advisory commands', () => {
  it('ingests a feed, and again without changes (idempotent, incremental)', async () => {
    const first = await runCli(['ingest', 'advisories', '--feed', 'nist-nvd2', fixture('nvd')], env);
    expect(first.code, first.stderr).toBe(0);
    expect(summaryOf(first.stderr)).toEqual({
      read: 29,
      added: 29,
      updated: 0,
      unchanged: 0,
      removed: 0,
      rejected: 0,
      records: 29,
    });
    const second = await runCli(['ingest', 'advisories', '--feed', 'nist-nvd2', fixture('nvd')], env);
    expect(summaryOf(second.stderr)).toMatchObject({ added: 0, unchanged: 29, records: 29 });
  });

  it('reports rejected records with id and reason; --strict makes them fail the command', async () => {
    const file = path.join(dir, 'mixed.ndjson');
    const good = fs.readFileSync(fixture('cve5-examples/full-record-basic-example.json'), 'utf8');
    fs.writeFileSync(file, `${JSON.stringify(JSON.parse(good))}\n{"cveMetadata": {"cveId": "CVE-1999-9999"}}\n`);
    const result = await runCli(
      // Half the input rejected: --max-rejected lets the load through, --strict still fails the command.
      [
        'ingest',
        'advisories',
        '--feed',
        'examples',
        '--adapter',
        'mitre-cvelist-v5',
        '--strict',
        '--max-rejected',
        '50%',
        file,
      ],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/rejected CVE-1999-9999 at .*mixed\.ndjson.*: \S+/);
    expect(summaryOf(result.stderr)).toMatchObject({ read: 2, rejected: 1, records: 1 });
  });

  it('refuses an unknown feed without an adapter, and an unknown adapter', async () => {
    const unknown = await runCli(['ingest', 'advisories', '--feed', 'mystery', KEV], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown feed "mystery".*--adapter/);
    const adapter = await runCli(['ingest', 'advisories', '--feed', 'mystery', '--adapter', 'xml', KEV], env);
    expect(adapter.code).toBe(2);
    expect(adapter.stderr).toMatch(/unknown adapter "xml"/);
  });

  it('syncs feeds from their URLs: downloads, loads, skips an unchanged source, --force reloads', async () => {
    const first = await runCli(['sync', 'kev-mirror', 'go-vulndb'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/feed kev-mirror\n(.*\n)*\s+records\s+1,404/);
    expect(first.stderr).toMatch(/feed go-vulndb\n(.*\n)*\s+records\s+120/);
    const again = await runCli(['sync', 'kev-mirror'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/feed kev-mirror: .* is unchanged since the last sync/);
    expect(requests.filter((r) => r.url.startsWith('/kev')).map((r) => r.conditional)).toEqual([false, true]);
    const forced = await runCli(['sync', '--force', 'kev-mirror'], env);
    expect(summaryOf(forced.stderr)).toMatchObject({ read: 1404, unchanged: 1404, added: 0, records: 1404 });
  });

  it('reports a failed download and leaves the feed alone', async () => {
    const result = await runCli(['sync', 'broken-link'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot download .*missing\.jsonl: HTTP 404/);
    const noSource = await runCli(['sync', 'rustsec'], env);
    expect(noSource.stderr).toMatch(/feed "rustsec" has no source/);
  });

  it('lists the feeds with their record counts', async () => {
    const result = await runCli(['feeds', '--json'], env);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<{ name: string; records: number; adapter: string }>;
    const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
    expect(byName['kev-mirror']).toMatchObject({ records: 1404, adapter: 'cisa-kev' });
    expect(byName['nist-nvd2']).toMatchObject({ records: 29 });
    expect(byName['go-vulndb']).toMatchObject({ records: 120, adapter: 'osv' });
    expect(byName.examples).toMatchObject({ records: 1 });
    expect(byName.pypa).toMatchObject({ records: 0 });
  });

  it('creates tokens with feed entitlements and rate limits, and lists them', async () => {
    const limited = await runCli(
      ['token', 'create', '--name', 'partner', '--feeds', 'kev-mirror,nist-nvd2', '--rate-limit', '50'],
      env,
    );
    expect(limited.code, limited.stderr).toBe(0);
    expect(limited.stdout.trim()).toMatch(/^vs_/);
    expect(limited.stderr).toMatch(/feeds kev-mirror,nist-nvd2, rate limit 50 requests per 60 s;/);
    const bench = await runCli(['token', 'create', '--name', 'bench', '--rate-limit', 'unlimited'], env);
    expect(bench.code).toBe(0);
    const defaults = await runCli(['token', 'create', '--name', 'defaults'], {
      ...env,
      VULNSCOPE_DEFAULT_FEEDS: 'nist-nvd2',
    });
    expect(defaults.code).toBe(0);
    const listed = JSON.parse((await runCli(['token', 'list', '--json'], env)).stdout) as Array<Record<string, string>>;
    const byName = Object.fromEntries(listed.map((row) => [row.name, row]));
    expect(byName.partner).toMatchObject({ feeds: 'kev-mirror,nist-nvd2', rate_limit: '50 requests per 60 s' });
    expect(byName.bench).toMatchObject({ feeds: '*', rate_limit: 'unlimited' });
    expect(byName.defaults).toMatchObject({ feeds: 'nist-nvd2', rate_limit: 'default (600 requests per 60 s)' });
    const table = await runCli(['token', 'list'], env);
    expect(table.stdout).toMatch(/FEEDS\s+RATE LIMIT/);
    const bad = await runCli(['token', 'create', '--name', 'x', '--feeds', 'Not A Feed'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/feed name/);
    // A feed neither registered nor loaded is a typo: refused, naming the known ones (a loaded-only feed is known).
    const unknownFeed = await runCli(['token', 'create', '--name', 'x', '--feeds', 'nosuchfeed,cisa-kev'], env);
    expect(unknownFeed.code).toBe(2);
    expect(unknownFeed.stdout).toBe('');
    expect(unknownFeed.stderr).toBe(
      'vulnscope: --feeds: unknown feed "nosuchfeed" (known feeds: broken-link, cisa-kev, examples, go-vulndb, kev-mirror, mitre-cvelist-v5, nist-nvd2, pypa, rustsec; or * or none)\n',
    );
    const unknownDefault = await runCli(['token', 'create', '--name', 'x'], { ...env, VULNSCOPE_DEFAULT_FEEDS: 'kev' });
    expect(unknownDefault.code).toBe(2);
    expect(unknownDefault.stderr).toMatch(/^vulnscope: VULNSCOPE_DEFAULT_FEEDS: unknown feed "kev" \(known feeds: /);
    const loadedOnly = await runCli(['token', 'create', '--name', 'examples-reader', '--feeds', 'examples'], env);
    expect(loadedOnly.code, loadedOnly.stderr).toBe(0);
    const perGroup = await runCli(['token', 'create', '--name', 'y'], {
      ...env,
      VULNSCOPE_RATE_LIMIT: 'index=1200/60s,backup=10/1h',
    });
    expect(perGroup.stderr).toContain(
      'rate limit default (index 1,200 requests per 60 s, advisory 600 requests per 60 s, backup 10 requests per 1 h, search 600 requests per 60 s, other 600 requests per 60 s)',
    );
    const badLimit = await runCli(['token', 'create', '--name', 'x', '--rate-limit', 'fast'], env);
    expect(badLimit.code).not.toBe(0);
    expect(badLimit.stderr).toMatch(/--rate-limit/);
  });
});
