import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fixture } from '../support/fixtures.js';

/**
 * A local stand-in for NVD's 2.0 APIs, serving the shared fixtures in place: the 29 `cve` objects
 * of `nvd/` as CVE API pages, and the CPE / match criteria samples of `cpe/`. It honours
 * `startIndex`, `resultsPerPage` (capped at `maxPerPage`, as NVD may send fewer than asked) and
 * last-modified windows (both ends required, at most 120 days, else 404 with a `message` header,
 * as NVD answers), records every request, and fails on demand.
 */

type Json = Record<string, unknown>;

export interface FakeRequest {
  path: string;
  params: URLSearchParams;
  apiKey: string | undefined;
  status: number;
}

export interface FakeNvd {
  base: string;
  requests: FakeRequest[];
  /** The CVE collection (mutable: tests change records, which NVD would do). */
  cves: Json[];
  products: Json[];
  matchStrings: Json[];
  /** Largest page the server sends. */
  maxPerPage: number;
  /** Decides a failure status for a request (undefined: answer normally). */
  fail?: (request: { path: string; params: URLSearchParams; count: number }) => number | undefined;
  close(): Promise<void>;
}

export const NVD_DIR = fixture('nvd');
export const CPE_DIR = fixture('cpe');

export function readNvdCves(): Json[] {
  return fs
    .readdirSync(NVD_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(NVD_DIR, name), 'utf8')) as Json);
}

const readLines = (file: string) =>
  fs
    .readFileSync(path.join(CPE_DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Json);

/** NVD's times have no zone; they are UTC. */
export const nvdTime = (value: string) => Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);

const MAX_RANGE_MS = 120 * 86_400_000;

export async function startFakeNvd(): Promise<FakeNvd> {
  const fake: FakeNvd = {
    base: '',
    requests: [],
    cves: readNvdCves(),
    // The dictionary samples are bare product objects; the API wraps each as {cpe}.
    products: readLines('nvd_cpe_dictionary_api2_samples.jsonl').map((cpe) => ({ cpe })),
    matchStrings: readLines('nvd_cpematch_api2_samples.jsonl'),
    maxPerPage: 2000,
    close: async () => {},
  };
  const collections: Record<
    string,
    { key: string; items: () => Json[]; modified: (item: Json) => string; limit: number }
  > = {
    '/rest/json/cves/2.0': {
      key: 'vulnerabilities',
      items: () => fake.cves.map((cve) => ({ cve })),
      modified: (i) => (i.cve as Json).lastModified as string,
      limit: 2000,
    },
    '/rest/json/cpes/2.0': {
      key: 'products',
      items: () => fake.products,
      modified: (i) => (i.cpe as Json).lastModified as string,
      limit: 10000,
    },
    '/rest/json/cpematch/2.0': {
      key: 'matchStrings',
      items: () => fake.matchStrings,
      modified: (i) => (i.matchString as Json).lastModified as string,
      limit: 500,
    },
  };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const params = url.searchParams;
    const apiKey = request.headers.apikey as string | undefined;
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      fake.requests.push({ path: url.pathname, params, apiKey, status });
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(body === undefined ? '' : JSON.stringify(body));
    };
    const failure = fake.fail?.({ path: url.pathname, params, count: fake.requests.length });
    if (failure !== undefined) return send(failure, undefined, { message: 'induced failure' });
    const collection = collections[url.pathname];
    if (!collection) return send(404, undefined, { message: 'no such endpoint' });
    const startIndex = Number(params.get('startIndex') ?? '0');
    const perPage = Number(params.get('resultsPerPage') ?? String(collection.limit));
    if (!(perPage >= 1 && perPage <= collection.limit) || !(startIndex >= 0)) {
      return send(404, undefined, { message: 'Invalid startIndex or resultsPerPage' });
    }
    let items = collection.items();
    const start = params.get('lastModStartDate');
    const end = params.get('lastModEndDate');
    if (start !== null || end !== null) {
      const from = start === null ? NaN : Date.parse(start);
      const to = end === null ? NaN : Date.parse(end);
      if (!Number.isFinite(from) || !Number.isFinite(to))
        return send(404, undefined, { message: 'Both lastModStartDate and lastModEndDate are required' });
      if (to - from > MAX_RANGE_MS || to < from)
        return send(404, undefined, { message: 'The lastMod date range must not exceed 120 days' });
      items = items.filter((item) => {
        const time = nvdTime(collection.modified(item));
        return time >= from && time <= to;
      });
    }
    const page = items.slice(startIndex, startIndex + Math.min(perPage, fake.maxPerPage));
    send(200, {
      resultsPerPage: page.length,
      startIndex,
      totalResults: items.length,
      format:
        collection.key === 'vulnerabilities'
          ? 'NVD_CVE'
          : collection.key === 'products'
            ? 'NVD_CPE'
            : 'NVD_CPEMatchString',
      version: '2.0',
      timestamp: new Date().toISOString().slice(0, 23),
      [collection.key]: page,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}

/** The CVE requests' paging and window parameters, for assertions. */
export const cveRequests = (fake: FakeNvd) =>
  fake.requests
    .filter((r) => r.path === '/rest/json/cves/2.0')
    .map((r) => ({
      startIndex: Number(r.params.get('startIndex')),
      ...(r.params.get('lastModStartDate')
        ? { from: r.params.get('lastModStartDate')!, to: r.params.get('lastModEndDate')! }
        : {}),
      status: r.status,
    }));
