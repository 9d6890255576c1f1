/**
 * Knowledge is derived from the advisory store: a CVE's current records in `nist-nvd2` and
 * `mitre-cvelist-v5` (the generation each feed serves). This module reads them and finds which
 * CVEs a load changed; `refreshCves` re-derives a batch in one transaction, skipping CVEs whose
 * input (derivation version + the records' content hashes) is what knowledge was built from.
 */
import type { Database, Sql, SqlValue } from '../database.js';
import { chunks, placeholders } from '../advisories/sql-lists.js';
import { visibleAt, visibleAtFoundRows } from '../advisories/where.js';
import { contentHashes, replaceKnowledge, type KnowledgeWrite } from './criteria.js';
import { lockKnowledge } from './meta.js';
import {
  KNOWLEDGE_FEEDS,
  type DerivedKnowledge,
  type KnowledgeChange,
  type KnowledgeDeriver,
  type KnowledgeSources,
} from './types.js';

type KnowledgeFeed = (typeof KNOWLEDGE_FEEDS)[number];

/** The generation each knowledge feed serves (0: never loaded). */
export async function servedGenerations(db: Sql): Promise<Record<KnowledgeFeed, number>> {
  const rows = await db.all<{ name: string; generation: number }>(
    `SELECT name, generation FROM advisory_feeds WHERE name IN (${placeholders(KNOWLEDGE_FEEDS.length)})`,
    [...KNOWLEDGE_FEEDS],
  );
  const out = { 'nist-nvd2': 0, 'mitre-cvelist-v5': 0 } as Record<KnowledgeFeed, number>;
  for (const row of rows) out[row.name as KnowledgeFeed] = Number(row.generation);
  return out;
}

interface CurrentRow {
  id: number;
  cve_id: string;
  record_id: string;
  content_hash: string;
}

/** The current row of each CVE in a feed (several records of one CVE: the one named after it, else the first). */
async function currentRows(
  db: Sql,
  feed: KnowledgeFeed,
  generation: number,
  cveIds: readonly string[],
): Promise<Map<string, CurrentRow>> {
  const result = new Map<string, CurrentRow>();
  if (generation === 0) return result;
  const visible = visibleAtFoundRows(generation);
  for (const ids of chunks(cveIds)) {
    const rows = await db.all<CurrentRow>(
      `SELECT id, cve_id, record_id, content_hash FROM advisories
       WHERE feed = ? AND cve_id IN (${placeholders(ids.length)}) AND ${visible.sql} ORDER BY cve_id, record_id`,
      [feed, ...ids, ...visible.params],
    );
    for (const row of rows) {
      const previous = result.get(row.cve_id);
      if (!previous || (previous.record_id !== row.cve_id && row.record_id === row.cve_id)) result.set(row.cve_id, row);
    }
  }
  return result;
}

async function recordsById(db: Sql, ids: number[]): Promise<Map<number, unknown>> {
  const result = new Map<number, unknown>();
  for (const chunk of chunks(ids)) {
    const rows = await db.all<{ id: number; record: string }>(
      `SELECT id, record FROM advisories WHERE id IN (${placeholders(chunk.length)})`,
      chunk,
    );
    for (const row of rows) result.set(Number(row.id), JSON.parse(row.record));
  }
  return result;
}

/** What knowledge of a CVE is built from: the derivation version and its records' content hashes. */
export const inputHash = (version: string, nvd: string | undefined, cve5: string | undefined) =>
  `${version}:${nvd ?? '-'}:${cve5 ?? '-'}`;

/**
 * Re-derives the knowledge of a batch of CVEs in one transaction (keep batches to a few hundred).
 * CVEs whose input is unchanged are skipped unless `force`; CVEs with no record left lose their knowledge.
 */
export async function refreshCves(
  db: Database,
  cveIds: readonly string[],
  deriver: KnowledgeDeriver,
  options: { force?: boolean } = {},
): Promise<KnowledgeChange> {
  const ids = [...new Set(cveIds)].sort();
  if (ids.length === 0) return { cvesChanged: 0, criteria: 0, touchedProducts: [] };
  return db.transaction(async (tx) => {
    await lockKnowledge(tx);
    const generations = await servedGenerations(tx);
    const nvd = await currentRows(tx, 'nist-nvd2', generations['nist-nvd2'], ids);
    const cve5 = await currentRows(tx, 'mitre-cvelist-v5', generations['mitre-cvelist-v5'], ids);
    const stored = await contentHashes(tx, ids);
    const stale: string[] = [];
    for (const id of ids) {
      const n = nvd.get(id);
      const c = cve5.get(id);
      if (!n && !c) {
        if (stored.has(id)) stale.push(id);
        continue;
      }
      if (options.force || stored.get(id) !== inputHash(deriver.version, n?.content_hash, c?.content_hash))
        stale.push(id);
    }
    if (stale.length === 0) return { cvesChanged: 0, criteria: 0, touchedProducts: [] };
    const rowIds: number[] = [];
    for (const id of stale) {
      const n = nvd.get(id);
      const c = cve5.get(id);
      if (n) rowIds.push(Number(n.id));
      if (c) rowIds.push(Number(c.id));
    }
    const records = await recordsById(tx, rowIds);
    const previous = options.force ? new Map<string, string>() : await storedApplicability(tx, stale);
    const writes: KnowledgeWrite[] = [];
    const rehashed: Array<[string, string]> = [];
    const replaced: string[] = [];
    const failed: Array<{ cveId: string; reason: string }> = [];
    for (const id of stale) {
      const n = nvd.get(id);
      const c = cve5.get(id);
      const contentHash = n || c ? inputHash(deriver.version, n?.content_hash, c?.content_hash) : undefined;
      const sources: KnowledgeSources = { cveId: id };
      if (n) sources.nvd = { recordId: n.record_id, contentHash: n.content_hash, record: records.get(Number(n.id)) };
      if (c) sources.cve5 = { recordId: c.record_id, contentHash: c.content_hash, record: records.get(Number(c.id)) };
      let derived: DerivedKnowledge | undefined;
      try {
        derived = contentHash === undefined ? undefined : deriver.derive(sources);
      } catch (error) {
        // One odd record must not stop the rest: its knowledge stays as it was.
        failed.push({ cveId: id, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      const before = previous.get(id);
      // New records saying the same (NVD re-publishes for CVSS or references): only the hash moves.
      if (
        derived &&
        before !== undefined &&
        sameVersion(stored.get(id), deriver.version) &&
        JSON.stringify(derived.applicability) === before
      ) {
        rehashed.push([id, contentHash!]);
        continue;
      }
      replaced.push(id);
      if (derived) writes.push({ ...derived, contentHash: contentHash! });
    }
    for (const [id, hash] of rehashed)
      await tx.run(`UPDATE knowledge_cves SET content_hash = ? WHERE cve_id = ?`, [hash, id]);
    const change = await replaceKnowledge(tx, replaced, writes);
    return failed.length > 0 ? { ...change, failed } : change;
  });
}

/** True when a stored content hash was made by this derivation version. */
const sameVersion = (hash: string | undefined, version: string) => hash?.startsWith(`${version}:`);

async function storedApplicability(db: Sql, cveIds: readonly string[]): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  for (const ids of chunks(cveIds)) {
    const rows = await db.all<{ cve_id: string; applicability: string }>(
      `SELECT cve_id, applicability FROM knowledge_cves WHERE cve_id IN (${placeholders(ids.length)})`,
      ids,
    );
    for (const row of rows) result.set(row.cve_id, row.applicability);
  }
  return result;
}

/** CVEs with a row of `feed` written after generation `after` that `upto` still serves (i.e. added or changed since). */
export async function changedSince(db: Sql, feed: string, after: number, upto: number): Promise<string[]> {
  const visible = visibleAt(upto);
  const rows = await db.all<{ cve_id: string }>(
    `SELECT DISTINCT cve_id FROM advisories WHERE feed = ? AND gen_from > ? AND ${visible.sql}`,
    [feed, after, ...visible.params],
  );
  return rows.map((row) => row.cve_id).sort();
}

/** CVEs with knowledge but no record `feed` serves: where a removal from the feed may matter. */
export async function knowledgeWithoutRecord(db: Sql, feed: string): Promise<string[]> {
  const generation =
    (await db.get<{ generation: number }>(`SELECT generation FROM advisory_feeds WHERE name = ?`, [feed]))
      ?.generation ?? 0;
  const visible = visibleAtFoundRows(Number(generation), 'a');
  const rows = await db.all<{ cve_id: string }>(
    `SELECT k.cve_id FROM knowledge_cves k WHERE NOT EXISTS (
       SELECT 1 FROM advisories a WHERE a.cve_id = k.cve_id AND a.feed = ? AND ${visible.sql})
     ORDER BY k.cve_id`,
    [feed, ...visible.params],
  );
  return rows.map((row) => row.cve_id);
}

/** Distinct CVE ids of the knowledge feeds' rows after `after`, in order (keyset pages for a rebuild). */
export async function sourceCvePage(db: Sql, after: string, limit: number): Promise<string[]> {
  const params: SqlValue[] = [...KNOWLEDGE_FEEDS, after, limit];
  const rows = await db.all<{ cve_id: string }>(
    `SELECT DISTINCT cve_id FROM advisories WHERE feed IN (${placeholders(KNOWLEDGE_FEEDS.length)}) AND cve_id > ?
     ORDER BY cve_id LIMIT ?`,
    params,
  );
  return rows.map((row) => row.cve_id);
}

/** Knowledge CVE ids after `after`, in order, of which those with no row in either knowledge feed. */
export async function orphanPage(db: Sql, after: string, limit: number): Promise<{ last?: string; orphans: string[] }> {
  const ids = (
    await db.all<{ cve_id: string }>(`SELECT cve_id FROM knowledge_cves WHERE cve_id > ? ORDER BY cve_id LIMIT ?`, [
      after,
      limit,
    ])
  ).map((row) => row.cve_id);
  if (ids.length === 0) return { orphans: [] };
  const present = new Set(
    (
      await db.all<{ cve_id: string }>(
        `SELECT DISTINCT cve_id FROM advisories WHERE feed IN (${placeholders(KNOWLEDGE_FEEDS.length)}) AND cve_id IN (${placeholders(ids.length)})`,
        [...KNOWLEDGE_FEEDS, ...ids],
      )
    ).map((row) => row.cve_id),
  );
  return { last: ids[ids.length - 1], orphans: ids.filter((id) => !present.has(id)) };
}
