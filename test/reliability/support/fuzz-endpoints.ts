import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS as API } from '../../../src/core/api/index.js';
import { startBackupApp, loadFeed, FEED, type BackupTestApp } from '../../backup/support.js';
import type { EngineCase } from '../../support/engines.js';
import { report, SEED } from './figures.js';
import { asObservation, scanLines } from './scans.js';

/**
 * Fuzzing: for every endpoint, 10,000 seeded random and malformed parameter sets (known names with
 * wrong, extreme and hostile values, unknown names, repeats, broken percent-encoding, control
 * characters, huge values, bad tokens). No answer may be a 5xx, every error must be the documented
 * `{"error": true, "errors": ["…"]}`, and none may take longer than the request deadline.
 */
const TRIES = Number(process.env.VULNSCOPE_RELIABILITY_FUZZ_TRIES ?? 10_000);
/** The server's default request deadline (VULNSCOPE_REQUEST_TIMEOUT_MS). */
const DEADLINE_MS = 10_000;

interface Endpoint {
  path: string;
  /** Parameter names the endpoint knows. */
  names: readonly string[];
  /** A path segment the fuzz replaces (`{}`), for routes with a path parameter. */
  segment?: boolean;
}

/** The parameters an endpoint declares, but the token (fuzzed apart). */
function namesOf(endpoint: { query: { properties?: Record<string, unknown> } }): string[] {
  return Object.keys(endpoint.query.properties ?? {}).filter((name) => name !== 'token');
}

const ENDPOINTS: Endpoint[] = [
  { path: API.targetIntel.path, names: namesOf(API.targetIntel) },
  { path: API.targetIntelExport.path, names: namesOf(API.targetIntelExport) },
  { path: API.targetIntelFacets.path, names: namesOf(API.targetIntelFacets) },
  { path: API.advisories.path, names: namesOf(API.advisories) },
  { path: API.advisoryExport.path, names: namesOf(API.advisoryExport) },
  { path: API.advisoryFeeds.path, names: [] },
  { path: API.cpeSearch.path, names: namesOf(API.cpeSearch) },
  { path: '/v4/backup', names: [] },
  { path: '/v4/backup/{}', names: [], segment: true },
  { path: '/v3/backup', names: [] },
  { path: '/v3/backup/{}', names: [], segment: true },
  { path: '/v3/index', names: [] },
  { path: '/whoami', names: [] },
  { path: '/healthz', names: [] },
  { path: '/healthz/live', names: [] },
  { path: API.cpeLookup.path, names: namesOf(API.cpeLookup) },
  { path: API.entitlements.path, names: [] },
  { path: API.openapiLookup.path, names: [] },
  { path: API.tokens.path, names: [] },
  { path: API.tokenSelf.path, names: [] },
];

/** Values that are plausible for some parameter, so the fuzz reaches the filters, not only validation. */
const PLAUSIBLE = [
  'country_code,port:20,product,cve,asn',
  'date_added:5,timestamp,classifications:1000',
  'CVE-2024-1000',
  'CVE-2021-41773',
  'apache',
  'http_server',
  '2.4.49',
  'nginx',
  'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
  'cpe:/a:apache:http_server:2.4.49',
  '198.18.0.0/16',
  '198.18.0.1',
  '2001:db8::/32',
  '::',
  '0.0.0.0/0',
  'AS64500',
  'US',
  'United States',
  'tcp',
  'udp',
  '443',
  '0',
  '1',
  '-1',
  '65536',
  '100',
  '101',
  '2000',
  '2001',
  '99999999999999999999',
  'true',
  'false',
  'TRUE',
  'c2',
  'honeypot,proxy:tor',
  'example.com',
  '.com',
  '2024-01-01',
  '2024-02-30',
  '2024-01-01T00:00:00Z',
  'now-30d',
  'now+1d',
  'timestamp',
  'date_added',
  'ip',
  'port',
  'asc',
  'desc',
  'a',
  'o',
  'h',
  '*',
  'apache*',
  'mitre-cvelist-v5',
  FEED,
  'target-intel',
  'cpecve',
  'pkg:npm/lodash@4.17.20',
  'en',
  '1e3',
  '0x10',
  'NaN',
  'Infinity',
  '1.5',
  ' 1',
  '1 ',
  '',
  '%',
  '%%',
  '%zz',
  '%C0%AF',
  '%FF',
  '%00',
  '%0A',
  '%E2%80%AE',
  '..%2F..%2Fetc',
];

const rawText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('a'.repeat(5000), '9'.repeat(400), ','.repeat(300), 'CVE-2024-1,'.repeat(500)),
);

/** A value as it appears on the wire: percent-encoded, raw, or one of the hostile spellings. */
const wireValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PLAUSIBLE).map(encodeOrKeep) },
  { weight: 3, arbitrary: rawText.map(safeEncode) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('%', '%2', '%G0', '%u0041', '%ED%A0%80', '%F4%90%80%80', '%C3', '%7F', '%1F'),
  },
);

function wireName(names: readonly string[]) {
  const known = names.length > 0 ? [fc.constantFrom(...names)] : [];
  return fc.oneof(
    ...known.map((arbitrary) => ({ weight: 6, arbitrary })),
    {
      weight: 1,
      arbitrary: fc.constantFrom('token', 'TOKEN', 'limit', 'page', 'cursor', '__proto__', 'constructor', ''),
    },
    { weight: 1, arbitrary: rawText.map(safeEncode) },
    { weight: 1, arbitrary: fc.constantFrom('%74oken', 'token%3Dx', 'a%00b', '%', 'a[]', 'a[b]', 'a.b') },
  );
}

function queryOf(names: readonly string[]) {
  const pair = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(wireName(names), wireValue).map(([name, value]) => `${name}=${value}`) },
    { weight: 1, arbitrary: wireName(names) },
    { weight: 1, arbitrary: fc.constantFrom('=', '==', '&', '=x', 'a==b') },
  );
  return fc.array(pair, { maxLength: 8 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

const authorization = fc.oneof(
  { weight: 12, arbitrary: fc.constant('good') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('none', 'Bearer ', 'Bearer vs_nope', 'Basic abc', 'Bearer \u00e9', 'x'.repeat(3000)),
  },
);

function encodeOrKeep(value: string): string {
  return /%/.test(value) ? value : encodeURIComponent(value);
}

/** Percent-encodes a string; lone surrogates (which encodeURIComponent refuses) become %ED%A0%80. */
function safeEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

interface Outcome {
  status: number;
  ms: number;
  problem?: string;
}

/** Whether an NDJSON export ends with `{"_meta": {"complete": true, "records": N}}` counting its lines. */
function exportComplete(body: string): boolean {
  const lines = body.split('\n').filter(Boolean);
  try {
    const meta = JSON.parse(lines[lines.length - 1] ?? '') as { _meta?: { complete?: boolean; records?: number } };
    return meta._meta?.complete === true && meta._meta.records === lines.length - 1;
  } catch {
    return false;
  }
}

function problemWith(status: number, contentType: string | undefined, body: string): string | undefined {
  if (status >= 500) return `status ${status}`;
  if (status < 400) return undefined;
  if (!contentType?.startsWith('application/json')) return `error with content-type ${contentType}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'error body is not JSON';
  }
  const shaped =
    typeof parsed === 'object' &&
    parsed !== null &&
    Object.keys(parsed).sort().join(',') === 'error,errors' &&
    (parsed as { error: unknown }).error === true &&
    Array.isArray((parsed as { errors: unknown }).errors) &&
    (parsed as { errors: unknown[] }).errors.length > 0 &&
    (parsed as { errors: unknown[] }).errors.every((message) => typeof message === 'string' && message.length > 0);
  return shaped ? undefined : `error body not in the documented shape: ${body.slice(0, 200)}`;
}

/** The fuzz of every endpoint on one engine (one file per engine, so the two run side by side). */
export function fuzzEveryEndpoint(engine: EngineCase): void {
  describe(`fuzzing every endpoint (${engine.name})`, () => {
    let t: BackupTestApp;

    beforeAll(async () => {
      // Request logs would cost more than the requests themselves here.
      t = await startBackupApp(engine, { VULNSCOPE_LOG_LEVEL: 'warn' });
      await t.ingest(scanLines(SEED, 600).map(asObservation));
      await loadFeed(t, 60);
    });
    afterAll(async () => {
      await t?.close();
    });

    it.each(ENDPOINTS.map((endpoint) => [endpoint.path, endpoint] as const))(
      '%s: no 5xx, errors in the documented shape, none slower than the deadline',
      async (_path, endpoint) => {
        const segment = fc.oneof(
          fc.constantFrom(FEED, 'target-intel', 'cpecve', 'nope', '..', '%2e%2e', '%', '%00', 'a'.repeat(2000)),
          rawText.map(safeEncode),
        );
        const arbitrary = fc.record({ query: queryOf(endpoint.names), segment, authorization });
        const cases = fc.sample(arbitrary, { seed: SEED, numRuns: TRIES });
        const outcomes: Outcome[] = [];
        const failures: string[] = [];
        let notSent = 0;
        const started = performance.now();
        for (const [index, sample] of cases.entries()) {
          const path = endpoint.segment ? endpoint.path.replace('{}', sample.segment) : endpoint.path;
          const url = `${path}${sample.query}`;
          const headers: Record<string, string> = {};
          if (sample.authorization === 'good') headers.authorization = `Bearer ${t.token}`;
          else if (sample.authorization !== 'none') headers.authorization = sample.authorization;
          const before = performance.now();
          let response: Awaited<ReturnType<typeof t.app.inject>>;
          try {
            response = await t.app.inject({ method: 'GET', url, headers });
          } catch {
            // The client library refused to build the request (e.g. an invalid header): nothing reached the server.
            notSent++;
            continue;
          }
          const ms = performance.now() - before;
          const problem =
            problemWith(response.statusCode, response.headers['content-type'] as string | undefined, response.body) ??
            (endpoint.path.endsWith('/export') && response.statusCode === 200 && !exportComplete(response.body)
              ? 'export not closed by its complete line'
              : undefined) ??
            (ms > DEADLINE_MS ? `took ${Math.round(ms)} ms` : undefined);
          outcomes.push({ status: response.statusCode, ms, problem });
          if (problem && failures.length < 10) failures.push(`#${index} GET ${url}: ${problem}`);
        }
        const wall = (performance.now() - started) / 1000;
        const times = outcomes.map((o) => o.ms).sort((a, b) => a - b);
        const byStatus = new Map<number, number>();
        for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
        const part = `fuzz ${engine.name} ${endpoint.path}`;
        report(part, 'tries', outcomes.length);
        report(part, 'failures', outcomes.filter((o) => o.problem).length);
        report(
          part,
          'statuses',
          [...byStatus]
            .sort((a, b) => a[0] - b[0])
            .map(([s, n]) => `${s}×${n}`)
            .join(' '),
        );
        report(part, 'p50 / p99 / max ms', `${pct(times, 0.5)} / ${pct(times, 0.99)} / ${pct(times, 1)}`);
        report(part, 'wall s', wall);
        if (notSent) report(part, 'not sent (client refused)', notSent);
        expect(failures, `seed ${SEED}`).toEqual([]);
        expect(outcomes.length).toBeGreaterThanOrEqual(TRIES * 0.99);
      },
    );
  });
}

function pct(sorted: number[], q: number): string {
  if (sorted.length === 0) return '-';
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))]!.toFixed(2);
}
