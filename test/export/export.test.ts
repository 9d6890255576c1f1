/**
 * `GET /v3/index/target-intel/export` and `GET /v4/advisory/export` over a listening server: every
 * match exactly once, as NDJSON closed by a `_meta` line; the same filters, errors and
 * entitlements as the paged endpoints; one export per token and a bound per process (429); a
 * stalled reader cut by the idle-write timeout, which frees its token.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeedEntitlement } from '../../src/core/entitlements.js';
import type { Observation } from '../../src/core/observation.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { advisory, loadRecords } from '../advisories/support.js';
import { startSecondApp } from '../advisories/support.js';

const TI = '/v3/index/target-intel';
const RECORDS = 2_400;
const PORTS = [22, 80, 443, 8080];

function observationAt(i: number): Partial<Observation> & { ip: string; port: number } {
  return {
    ip: `10.${Math.floor(i / 250)}.${i % 250}.1`,
    port: PORTS[i % PORTS.length]!,
    hostnames: [`host${i}.example.test`],
    cves: i % 3 === 0 ? [`CVE-2024-${1000 + (i % 7)}`] : [],
    fingerprints: i % 5 === 0 ? [{ cpe: 'cpe:2.3:a:nginx:nginx:1.20.1:*:*:*:*:*:*:*' }] : [],
  } as Partial<Observation> & { ip: string; port: number };
}

interface Exported {
  status: number;
  contentType: string | undefined;
  lines: any[];
}

/** Reads a whole export (or an error body) over HTTP. */
async function readExport(base: string, path: string, token: string): Promise<Exported> {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  const lines = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
  return { status: response.status, contentType: response.headers.get('content-type') ?? undefined, lines };
}

/** Starts an export and reads nothing after the headers: the server's stream stalls on backpressure. */
function stalledExport(base: string, path: string, token: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.pause();
      resolve(response);
    });
    request.on('error', reject);
  });
}

const walkKey = (record: any) => `${record.ip} ${record.port}/${record.protocol}`;

/** Every record of a plain cursor walk with the same filters. */
async function walkAll(t: TestApp, filters: string): Promise<string[]> {
  const keys: string[] = [];
  let response = await t.get(`${TI}?${filters}${filters ? '&' : ''}start_cursor=true&limit=2000`);
  for (;;) {
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    keys.push(...response.body.data.map(walkKey));
    const next = response.body._meta.next_cursor;
    if (next === undefined) return keys;
    response = await t.get(`${TI}?cursor=${encodeURIComponent(next)}`);
  }
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within 10 s`);
}

describe.each(engineCases())('exports ($name)', (engine) => {
  let t: TestApp;
  let base: string;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp(engine, {
      VULNSCOPE_EXPORTS_PER_PROCESS: '2',
      VULNSCOPE_DEFAULT_FEEDS: 'alpha',
      VULNSCOPE_STREAM_IDLE_TIMEOUT_MS: '1000',
    });
    await t.ingest(Array.from({ length: RECORDS }, (_, i) => observationAt(i)));
    // Long descriptions: an export of alpha is far more than socket buffers hold, so it stalls unread.
    const long = 'x'.repeat(3000);
    await loadRecords(
      t.storage,
      'alpha',
      Array.from({ length: 4000 }, (_, i) =>
        advisory(`CVE-2023-${10000 + i}`, { descriptions: [{ lang: 'en', value: `${i} ${long}` }] }),
      ),
    );
    await loadRecords(t.storage, 'beta', [advisory('CVE-2024-0003')]);
    for (const name of ['a', 'b', 'c']) tokens[name] = (await t.storage.tokens.create(name)).token;
    tokens.beta = (await t.storage.tokens.create('beta', { feeds: parseFeedEntitlement('beta') })).token;
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['', RECORDS],
    ['port=443', RECORDS / 4],
    ['contains_cve=true', RECORDS / 3],
    ['cve=CVE-2024-1003&port=80', undefined],
    ['product=nginx', RECORDS / 5],
    ['hostname=host12', undefined],
    ['port=9', 0],
  ])(
    'target-intel export "%s" serves each match of the cursor walk once, then a complete line',
    async (filters, count) => {
      const exported = await readExport(base, `${TI}/export${filters ? `?${filters}` : ''}`, tokens.a!);
      expect(exported.status).toBe(200);
      expect(exported.contentType).toMatch(/^application\/x-ndjson/);
      const meta = exported.lines.at(-1);
      const records = exported.lines.slice(0, -1);
      expect(meta).toEqual({ _meta: { complete: true, records: records.length } });
      const keys = records.map(walkKey);
      expect(new Set(keys).size).toBe(keys.length);
      expect([...keys].sort()).toEqual((await walkAll(t, filters)).sort());
      if (count !== undefined) expect(records.length).toBe(count);
      // Records in the plain endpoint's shape.
      if (records.length > 0)
        expect(Object.keys(records[0]).sort()).toEqual(Object.keys((await t.get(`${TI}?limit=1`)).body.data[0]).sort());
    },
  );

  it('advisory export serves the token feeds matching the filters, in the served order', async () => {
    const all = await readExport(base, '/v4/advisory/export', tokens.a!);
    expect(all.status).toBe(200);
    expect(all.lines.at(-1)).toEqual({ _meta: { complete: true, records: 4000 } });
    const ids = all.lines.slice(0, -1).map((record) => record.cveMetadata.cveId);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(4000);
    const one = await readExport(base, '/v4/advisory/export?cve_id=CVE-2023-10007', tokens.a!);
    expect(one.lines.map((line) => line.cveMetadata?.cveId ?? line._meta)).toEqual([
      'CVE-2023-10007',
      { complete: true, records: 1 },
    ]);
    const beta = await readExport(base, '/v4/advisory/export', tokens.beta!);
    expect(beta.lines.map((line) => line.cveMetadata?.cveId ?? line._meta)).toEqual([
      'CVE-2024-0003',
      { complete: true, records: 1 },
    ]);
  });

  it.each([
    ['/v4/advisory/export?name=alpha', 'beta', 402, /not entitled to feed "alpha"/],
    [`${TI}/export?page=2`, 'a', 400, /unknown parameter "page"/],
    [`${TI}/export?cursor=abc`, 'a', 400, /unknown parameter "cursor"/],
    [`${TI}/export?sort=ip`, 'a', 400, /unknown parameter "sort"/],
    [`${TI}/export?port=http`, 'a', 400, /port/],
    ['/v4/advisory/export?limit=10', 'a', 400, /unknown parameter "limit"/],
    ['/v4/advisory/export?updatedAfter=yesterday', 'a', 400, /updatedAfter/],
  ])('%s with token %s answers %i in the error shape', async (path, token, status, message) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${tokens[token]}` } });
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ error: true, errors: [expect.stringMatching(message)] });
  });

  it('frees the token before the client sees the end: exports back to back all succeed', async () => {
    for (let i = 0; i < 10; i++) {
      const path = i % 2 === 0 ? `${TI}/export?port=22` : '/v4/advisory/export?cve_id=CVE-2023-10001';
      expect((await readExport(base, path, tokens.c!)).status, `export ${i}`).toBe(200);
    }
  });

  it('answers 401 without a token', async () => {
    for (const path of [`${TI}/export`, '/v4/advisory/export'])
      expect((await fetch(`${base}${path}`)).status).toBe(401);
  });

  it('allows one export per token and two per process; a stalled reader is cut and frees its token', async () => {
    const first = await stalledExport(base, '/v4/advisory/export', tokens.a!);
    expect(first.statusCode).toBe(200);
    const again = await fetch(`${base}${TI}/export`, { headers: { authorization: `Bearer ${tokens.a}` } });
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await again.json()).toEqual({ error: true, errors: [expect.stringMatching(/already runs an export/)] });

    const second = await stalledExport(base, '/v4/advisory/export', tokens.b!);
    expect(second.statusCode).toBe(200);
    const third = await fetch(`${base}${TI}/export`, { headers: { authorization: `Bearer ${tokens.c}` } });
    expect(third.status).toBe(429);
    expect(await third.json()).toEqual({ error: true, errors: [expect.stringMatching(/too many exports/)] });

    // Another process on the same database sees the token's lease.
    const other = await startSecondApp(t);
    try {
      const elsewhere = await other.app.inject({
        method: 'GET',
        url: `${TI}/export?port=9`,
        headers: { authorization: `Bearer ${tokens.a}` },
      });
      expect(elsewhere.statusCode).toBe(429);
    } finally {
      await other.close();
    }

    // Neither reader reads: the idle-write timeout (1 s here) cuts both and frees their tokens.
    // (A paused client notices the cut only when it reads again.)
    await eventually(
      async () => (await readExport(base, `${TI}/export?port=9`, tokens.a!)).status === 200,
      'token a exporting again',
    );
    await eventually(
      async () => (await readExport(base, `${TI}/export?port=9`, tokens.b!)).status === 200,
      'token b exporting again',
    );
    const cut = await new Promise<boolean>((resolve) => {
      first.once('error', () => resolve(true));
      first.once('end', () => resolve(false));
      first.resume();
    });
    expect(cut).toBe(true);
    second.destroy();
  });

  it('a client that goes away stops the export and frees its token', async () => {
    const response = await stalledExport(base, '/v4/advisory/export', tokens.b!);
    response.destroy();
    await eventually(
      async () => (await readExport(base, `${TI}/export?port=9`, tokens.b!)).status === 200,
      'token b exporting again',
    );
  });

  it('a record present from start to end appears exactly once while ingest changes the index', async () => {
    // Read the export slowly, re-ingesting every record (new timestamps) and adding new ones meanwhile.
    const response = await stalledExport(base, `${TI}/export`, tokens.c!);
    let text = '';
    response.setEncoding('utf8');
    let changed = false;
    const done = new Promise<void>((resolve, reject) => {
      response.on('data', (chunk: string) => {
        text += chunk;
        if (!changed && text.length > 100_000) {
          changed = true;
          response.pause();
          t.ingest([
            ...Array.from({ length: RECORDS }, (_, i) => ({ ...observationAt(i), timestamp: Date.now() + 1000 })),
            ...Array.from({ length: 300 }, (_, i) => observationAt(RECORDS + i)),
          ])
            .then(() => response.resume())
            .catch(reject);
        }
      });
      response.on('end', () => resolve());
      response.on('error', reject);
    });
    response.resume();
    await done;
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const meta = lines.at(-1);
    expect(meta._meta.complete).toBe(true);
    const keys = lines.slice(0, -1).map(walkKey);
    expect(new Set(keys).size).toBe(keys.length);
    const before = new Set(
      Array.from({ length: RECORDS }, (_, i) => walkKey({ ...observationAt(i), protocol: 'tcp' })),
    );
    for (const key of before) expect(keys).toContain(key);
    expect(changed).toBe(true);
  });
});
