import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { fixture, fixtureHead } from '../support/fixtures.js';

/**
 * Loads that replace stored data are guarded (issue #21): an empty, foreign or mostly rejected
 * input changes nothing, exits non-zero and says why on its last line; `--allow-empty` and
 * `--max-rejected N%` override on purpose.
 */

let dir: string;
let env: Record<string, string>;
const KEV = fixture('feeds/cisa_kev_known_exploited_vulnerabilities.json.gz');
let go: string;
let rustsec: string;

const write = (name: string, content: string | Buffer) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
};
const lastLine = (stderr: string) => stderr.trimEnd().split('\n').pop() ?? '';

async function feedsByName(): Promise<Record<string, { records: number; source: string; loaded: string }>> {
  const listed = await runCli(['feeds', '--json'], env);
  expect(listed.code, listed.stderr).toBe(0);
  const rows = JSON.parse(listed.stdout) as Array<{ name: string; records: number; source: string; loaded: string }>;
  return Object.fromEntries(rows.map((row) => [row.name, row]));
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cli-guards-'));
  env = { VULNSCOPE_DATABASE_URL: path.join(dir, 'cli.db') };
  go = await fixtureHead('feeds/golang_vulndb_osv.jsonl.gz', 300);
  rustsec = await fixtureHead('feeds/rustsec_advisory_db_osv.jsonl.gz', 100);
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('vulnscope ingest advisories: a replacement must not destroy a feed', () => {
  it('refuses an empty file, a random binary file and a file of another feed; the feeds stay as they were', async () => {
    for (const [feed, source] of [
      ['go-vulndb', go],
      ['rustsec', rustsec],
      ['cisa-kev', KEV],
    ]) {
      const loaded = await runCli(['ingest', 'advisories', '--feed', feed!, source!], env);
      expect(loaded.code, loaded.stderr).toBe(0);
    }
    const before = await feedsByName();
    expect(before['go-vulndb']).toMatchObject({ records: 300, source: go });
    expect(before.rustsec).toMatchObject({ records: 100, source: rustsec });
    expect(before['cisa-kev']).toMatchObject({ records: 1404, source: KEV });

    const empty = write('empty.json', '[]\n');
    const noRecords = await runCli(['ingest', 'advisories', '--feed', 'go-vulndb', empty], env);
    expect(noRecords.code).toBe(1);
    expect(noRecords.stderr).toBe(
      `vulnscope: feed go-vulndb not replaced: nothing was read from ${empty}; it keeps its 300 records (--allow-empty to load it anyway)\n`,
    );

    const binary = write('random.bin', randomBytes(20_000));
    const random = await runCli(['ingest', 'advisories', '--feed', 'rustsec', binary], env);
    expect(random.code).toBe(1);
    expect(lastLine(random.stderr)).toBe(
      `vulnscope: feed rustsec not replaced: the one record read from ${binary} was rejected; it keeps its 100 records (--allow-empty --max-rejected 100% to load it anyway)`,
    );

    const foreign = await runCli(['ingest', 'advisories', '--feed', 'cisa-kev', go], env);
    expect(foreign.code).toBe(1);
    expect(lastLine(foreign.stderr)).toBe(
      `vulnscope: feed cisa-kev not replaced: all 300 records read from ${go} were rejected; it keeps its 1,404 records (--allow-empty --max-rejected 100% to load it anyway)`,
    );
    const merged = await runCli(['ingest', 'advisories', '--feed', 'cisa-kev', '--merge', go], env);
    expect(merged.code).toBe(1);
    expect(lastLine(merged.stderr)).toMatch(/^vulnscope: feed cisa-kev not merged: .*; nothing was added or updated /);

    // Nothing changed, not even the recorded source.
    expect(await feedsByName()).toEqual(before);
  });

  it('more than 1 % rejected is refused; --max-rejected N% and --allow-empty let a load through on purpose', async () => {
    const lines = fs.readFileSync(go, 'utf8').trimEnd().split('\n').slice(0, 100);
    const mixed = write('mixed.jsonl', [...lines, '{"not": "an OSV entry"}', '{"neither": 1}', ''].join('\n'));
    const refused = await runCli(['ingest', 'advisories', '--feed', 'go-vulndb', mixed], env);
    expect(refused.code).toBe(1);
    expect(lastLine(refused.stderr)).toBe(
      `vulnscope: feed go-vulndb not replaced: 2 of 102 records read from ${mixed} were rejected (2%, more than the 1% allowed); it keeps its 300 records (--max-rejected 2% to load it anyway)`,
    );
    const allowed = await runCli(['ingest', 'advisories', '--feed', 'go-vulndb', '--max-rejected', '2%', mixed], env);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect((await feedsByName())['go-vulndb']).toMatchObject({ records: 100, source: mixed });

    const empty = write('empty-again.json', '[]');
    const emptied = await runCli(['ingest', 'advisories', '--feed', 'go-vulndb', '--allow-empty', empty], env);
    expect(emptied.code, emptied.stderr).toBe(0);
    expect((await feedsByName())['go-vulndb']).toMatchObject({ records: 0, source: empty });

    const bad = await runCli(['ingest', 'advisories', '--feed', 'go-vulndb', '--max-rejected', 'lots', empty], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-rejected: expected a percentage from 0% to 100%/);
  });
});

describe('vulnscope ingest classifications: a replacement must not destroy a list', () => {
  const TOR = fixture('ip-lists/tor_exit_nodes.lst');
  const entries = (name: string) => {
    const db = new BetterSqlite3(env.VULNSCOPE_DATABASE_URL!, { readonly: true });
    try {
      return (
        db.prepare(`SELECT entry_count FROM classification_lists WHERE name = ?`).get(name) as
          | { entry_count: number }
          | undefined
      )?.entry_count;
    } finally {
      db.close();
    }
  };

  it('refuses an empty file and one with too many rejected lines; --allow-empty and --max-rejected override', async () => {
    const loaded = await runCli(['ingest', 'classifications', TOR, '--as', 'proxy:tor', '--name', 'tor'], env);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(entries('tor')).toBe(600);

    const empty = write('tor-empty.lst', '');
    const refused = await runCli(['ingest', 'classifications', empty, '--as', 'proxy:tor', '--name', 'tor'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `vulnscope: classification list "tor" not replaced: nothing was read from ${empty}; it keeps its 600 entries (--allow-empty to load it anyway)\n`,
    );

    // Random bytes, but no comma: a comma on the first line would make it a CSV without an IP column (a usage error).
    const binary = write('tor-random.bin', Buffer.from(randomBytes(4096).filter((byte) => byte !== 0x2c)));
    const random = await runCli(['ingest', 'classifications', binary, '--as', 'proxy:tor', '--name', 'tor'], env);
    expect(random.code).toBe(1);
    expect(lastLine(random.stderr)).toMatch(
      /^vulnscope: classification list "tor" not replaced: all [\d,]+ lines read from .* were rejected; it keeps its 600 entries \(--allow-empty --max-rejected 100% to load it anyway\)$/,
    );

    const lines = fs.readFileSync(TOR, 'utf8').trimEnd().split('\n').slice(0, 98);
    const mixed = write('tor-mixed.lst', [...lines, 'not-an-ip', '300.1.1.1', ''].join('\n'));
    const tooMany = await runCli(['ingest', 'classifications', mixed, '--as', 'proxy:tor', '--name', 'tor'], env);
    expect(tooMany.code).toBe(1);
    expect(lastLine(tooMany.stderr)).toMatch(
      /2 of 100 lines read from .* were rejected \(2%, more than the 1% allowed\)/,
    );
    expect(entries('tor')).toBe(600);

    const allowed = await runCli(
      ['ingest', 'classifications', mixed, '--as', 'proxy:tor', '--name', 'tor', '--max-rejected', '2%'],
      env,
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(entries('tor')).toBe(98);
    const emptied = await runCli(
      ['ingest', 'classifications', empty, '--as', 'proxy:tor', '--name', 'tor', '--allow-empty'],
      env,
    );
    expect(emptied.code, emptied.stderr).toBe(0);
    expect(entries('tor')).toBe(0);
  });
});
