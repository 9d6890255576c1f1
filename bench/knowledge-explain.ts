/**
 * `explain=true` on pages of 100 records that carry knowledge CVEs: what the route computes for a
 * page (the records read by id, then the evidence matcher) in-process, and the API on a server
 * started for it. Cold = each page asked for the first time (a new matcher, a fresh server: earlier
 * pages have prepared the products they share); warm = the first page asked again.
 */
import http from 'node:http';
import { explainRecordsJson } from '../src/server/routes/target-intel/explain.js';
import { KnowledgeMatcher } from '../src/services/matching/matcher.js';
import { storageKnowledgeSource } from '../src/services/matching/source.js';
import type { Storage } from '../src/storage/index.js';
import { percentile, timeRuns } from './http-load.js';
import { getJson } from './server.js';

const PAGE = 100;
const WARM_RUNS = 20;

export interface ExplainEngineFigures {
  pages: number;
  /** Evidence rows on the first page. */
  evidencePerPage: number;
  coldMs: number[];
  warmP50Ms: number;
}

export interface ExplainApiFigures {
  coldMs: number[];
  warmP50Ms: number;
  warmP99Ms: number;
  responseBytes: number;
}

/** The route's work for pages of the records under `ipPrefix` that carry knowledge CVEs, in id order. */
export async function explainEngine(storage: Storage, ipPrefix: string, pages: number): Promise<ExplainEngineFigures> {
  const rows = await storage.db.all<{ id: number | string }>(
    `SELECT id FROM hosts WHERE knowledge_cves IS NOT NULL AND ip LIKE ? ORDER BY id LIMIT ?`,
    [`${ipPrefix}%`, pages * PAGE],
  );
  const ids = rows.map((row) => Number(row.id));
  const matcher = new KnowledgeMatcher(storageKnowledgeSource(storage));
  const explainPage = async (i: number) => {
    const records = await storage.hosts.getByIds(ids.slice(i * PAGE, (i + 1) * PAGE));
    return explainRecordsJson(records, matcher);
  };
  const coldMs: number[] = [];
  let evidencePerPage = 0;
  const count = Math.ceil(ids.length / PAGE);
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const evidence = await explainPage(i);
    coldMs.push(performance.now() - t0);
    if (i === 0)
      evidencePerPage = evidence.reduce((sum, json) => sum + (JSON.parse(json.toString()) as unknown[]).length, 0);
  }
  const warm = await timeRuns(WARM_RUNS, () => explainPage(0));
  return { pages: count, evidencePerPage, coldMs, warmP50Ms: percentile(warm, 0.5) };
}

/**
 * The same pages through a running server (`cidr` selects the records, `contains_cve=true` those
 * with CVEs): timed until the last byte arrives, as every other API figure of the benchmarks (the
 * client's own parse of ~20 MiB is not the server's latency); the first page is parsed once,
 * untimed, to check it holds its 100 records with their evidence.
 */
export async function explainApi(
  baseUrl: string,
  token: string,
  cidr: string,
  pages: number,
): Promise<ExplainApiFigures> {
  let responseBytes = 0;
  const urlOf = (page: number) =>
    `${baseUrl}/v3/index/target-intel?cidr=${encodeURIComponent(cidr)}&contains_cve=true&explain=true&limit=${PAGE}&page=${page}`;
  const ask = async (page: number) => {
    const { status, bytes } = await getBytes(urlOf(page), token);
    if (status !== 200) throw new Error(`explain page ${page}: HTTP ${status}`);
    responseBytes = bytes;
  };
  const coldMs: number[] = [];
  for (let page = 1; page <= pages; page++) {
    const t0 = performance.now();
    await ask(page);
    coldMs.push(performance.now() - t0);
  }
  const warm = await timeRuns(WARM_RUNS, () => ask(1));
  const { status, body } = await getJson(urlOf(1), token);
  const data = (body as { data?: Array<{ cve_evidence?: unknown[] }> }).data ?? [];
  if (status !== 200 || data.length !== PAGE || data.some((record) => !Array.isArray(record.cve_evidence)))
    throw new Error(
      `explain page 1: not 100 records with cve_evidence (HTTP ${status}, ${data.length} records; ${JSON.stringify(body).slice(0, 300)})`,
    );
  return { coldMs, warmP50Ms: percentile(warm, 0.5), warmP99Ms: percentile(warm, 0.99), responseBytes };
}

/** GET with node:http (no connection left open): status and the body's size, the body read and dropped. */
function getBytes(url: string, token: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}
