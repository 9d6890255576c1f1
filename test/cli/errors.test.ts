import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, summaryOf } from '../support/cli.js';
import { fixture } from '../support/fixtures.js';

/**
 * Every CLI error is one plain line, `vulnscope: <message>` on stderr with a non-zero exit status;
 * `--verbose` adds the stack trace. An input that cannot be decoded is reported once, naming it
 * (issue #21).
 */

let dir: string;
let env: Record<string, string>;
const KEV = fixture('feeds/cisa_kev_known_exploited_vulnerabilities.json.gz');

const write = (name: string, content: string | Buffer) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
};
/** The lines a command printed other than its summary (title and indented `key  value` lines). */
const messages = (stderr: string) =>
  stderr.split('\n').filter((line) => line !== '' && !line.startsWith(' ') && !/summary$|^feed /.test(line));

/** A gzip cut short: everything but its last `cut` bytes (the end of the deflate stream and its trailer). */
const truncatedGzip = (content: string | Buffer, cut: number) => {
  const gz = gzipSync(content);
  return gz.subarray(0, gz.length - cut);
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cli-errors-'));
  env = { VULNSCOPE_DATABASE_URL: path.join(dir, 'cli.db') };
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('vulnscope errors: one plain line', () => {
  it('ingest scans: a truncated .gz ends with one line naming the file; what was read before it is kept', async () => {
    const now = Date.now();
    const lines = Array.from({ length: 5_000 }, (_, n) =>
      JSON.stringify({
        ip: `10.1.${n >> 8}.${n & 255}`,
        port: 443,
        timestamp: new Date(now - n * 1000).toISOString(),
        hostnames: [`host-${n}-${(n * 7919) % 100_003}.example`],
      }),
    );
    const gz = gzipSync(lines.join('\n'));
    const file = write('scan.ndjson.gz', gz.subarray(0, Math.floor(gz.length / 2)));
    const result = await runCli(['ingest', 'scans', file], env);
    expect(result.code).toBe(1);
    expect(messages(result.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^vulnscope: ${file}: corrupt or truncated gzip data \\(unexpected end of file\\) after line \\d+; the rest of the file was not read$`,
        ),
      ),
    ]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const inserted = Number(summaryOf(result.stderr).inserted!.replace(/,/g, ''));
    expect(inserted).toBeGreaterThan(1000);
    expect(inserted).toBeLessThan(5000);
  });

  it('ingest scans: a truncated .gz of non-scan records is reported once, not as a rejection per record', async () => {
    const kev = JSON.parse(gunzipSync(fs.readFileSync(KEV)).toString('utf8')) as { vulnerabilities: unknown[] };
    const file = write('kev-array.json.gz', truncatedGzip(JSON.stringify(kev.vulnerabilities, null, 2), 8));
    const result = await runCli(['ingest', 'scans', file], env);
    expect(result.code).toBe(1);
    expect(messages(result.stderr)).toEqual([
      `vulnscope: nothing could be read from ${file}: corrupt or truncated gzip data (unexpected end of file); the 1,404 records before it were rejected`,
    ]);
  });

  it('ingest advisories: a truncated .gz ends the load with one line; the feed keeps its records', async () => {
    const loaded = await runCli(['ingest', 'advisories', '--feed', 'cisa-kev', KEV], env);
    expect(loaded.code, loaded.stderr).toBe(0);
    const file = write('kev.json.gz', fs.readFileSync(KEV).subarray(0, 50_000));
    const result = await runCli(['ingest', 'advisories', '--feed', 'cisa-kev', file], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `vulnscope: feed cisa-kev not replaced: ${file}: corrupt or truncated gzip data (unexpected end of file); it keeps its 1,404 records\n`,
    );
    const feeds = JSON.parse((await runCli(['feeds', '--json'], env)).stdout) as Array<Record<string, unknown>>;
    expect(feeds.find((feed) => feed.name === 'cisa-kev')).toMatchObject({ records: 1404, source: KEV });

    const verbose = await runCli(['--verbose', 'ingest', 'advisories', '--feed', 'cisa-kev', file], env);
    expect(verbose.code).toBe(1);
    const [first, ...stack] = verbose.stderr.trimEnd().split('\n');
    expect(first).toBe(result.stderr.trimEnd());
    expect(stack.length).toBeGreaterThan(1);
    expect(stack.slice(1).every((line) => /^\s+at /.test(line))).toBe(true);
  });

  it('a usage error is one line too', async () => {
    const unknown = await runCli(['ingest', 'scans', '--no-such-flag', 'x'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`vulnscope: unknown option '--no-such-flag' (see --help)\n`);
    const missing = await runCli(['ingest', 'scans', path.join(dir, 'missing.xml')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`vulnscope: scan file not found: ${path.join(dir, 'missing.xml')}\n`);
  });
});

describe('vulnscope ingest scans: an input from which nothing could be read exits non-zero', () => {
  it('an empty file, a random binary file and a KEV catalog: one line each, exit 1', async () => {
    const empty = write('empty.xml', '');
    const binary = write('random.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256)));
    for (const [file, why] of [
      [empty, 'it is empty'],
      [binary, 'binary data, not text: expected nmap/masscan XML (<), a JSON array ([) or JSON lines ({)'],
      [KEV, 'its one record was rejected (line 1: missing ip)'],
    ] as const) {
      const result = await runCli(['ingest', 'scans', file], env);
      expect(result.code, file).toBe(1);
      expect(result.stderr).toBe(`vulnscope: nothing could be read from ${file}: ${why}\n`);
    }
    const stdin = await runCli(['ingest', 'scans', '-'], env, '');
    expect(stdin.code).toBe(1);
    expect(stdin.stderr).toBe('vulnscope: nothing could be read from <stdin>: it is empty\n');
  });

  it('the other inputs are still read; --strict keeps its meaning for rejected lines of good input', async () => {
    const empty = write('empty-too.json', '');
    const good = write(
      'good.ndjson',
      `${JSON.stringify({ ip: '192.0.2.44', port: 22, timestamp: new Date().toISOString() })}\n{"ip": "nope"}\n`,
    );
    const result = await runCli(['ingest', 'scans', empty, good], env);
    expect(result.code).toBe(1);
    expect(messages(result.stderr)).toEqual([
      `vulnscope: nothing could be read from ${empty}: it is empty`,
      expect.stringMatching(new RegExp(`^rejected ${good}:2: `)),
    ]);
    expect(summaryOf(result.stderr)).toMatchObject({ read: '2', rejected: '1' });
    const lenient = await runCli(['ingest', 'scans', good], env);
    expect(lenient.code).toBe(0);
    const strict = await runCli(['ingest', 'scans', '--strict', good], env);
    expect(strict.code).toBe(1);
  });
});
