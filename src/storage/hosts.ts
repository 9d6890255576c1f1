import type { HostChange, HostMatchInput, HostRecord, HostWrite, IndexEntry, PageRecord } from '../core/host-record.js';
import { announce, type Database, type ListenHandlers, type Listening, type Sql } from './database.js';
import { applyBatch, logChanges } from './host-upsert.js';
import { chunks } from './advisories/sql-lists.js';

export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  superseded: number;
}

interface HostRow {
  id: number;
  ip: string;
  ip_key: string;
  port: number;
  protocol: string;
  fp_key: string;
  hostname: string;
  observed_at: number;
  date_added: number;
  asn: string | null;
  as_name: string | null;
  as_domain: string | null;
  country: string | null;
  country_code: string | null;
  fingerprints: string;
  os_cpes: string;
  scanner_cves: string;
  knowledge_cves: string | null;
  cves: string;
  observed_classifications: string;
  classifications: string;
}

const COLUMNS = `id, ip, ip_key, port, protocol, fp_key, hostname, observed_at, date_added, asn, as_name, as_domain,
  country, country_code, fingerprints, os_cpes, scanner_cves, knowledge_cves, cves, observed_classifications, classifications`;

const PAGE_COLUMNS = `id, ip, port, protocol, hostname, observed_at, date_added, asn, as_name, as_domain, country, country_code,
  fingerprints, cves, classifications`;

type PageRow = Pick<
  HostRow,
  | 'id'
  | 'ip'
  | 'port'
  | 'protocol'
  | 'hostname'
  | 'observed_at'
  | 'date_added'
  | 'asn'
  | 'as_name'
  | 'as_domain'
  | 'country'
  | 'country_code'
  | 'fingerprints'
  | 'cves'
  | 'classifications'
>;

function toPageRecord(row: PageRow): PageRecord {
  return {
    id: row.id,
    ip: row.ip,
    port: row.port,
    protocol: row.protocol,
    hostname: row.hostname,
    observedAt: row.observed_at,
    dateAdded: row.date_added,
    asn: optional(row.asn),
    asName: optional(row.as_name),
    asDomain: optional(row.as_domain),
    country: optional(row.country),
    countryCode: optional(row.country_code),
    fingerprints: JSON.parse(row.fingerprints),
    cves: JSON.parse(row.cves),
    classifications: JSON.parse(row.classifications),
  };
}

const INDEX_COLUMNS = `id, ip, port, protocol, hostname, observed_at, date_added, asn, as_name, country, country_code, fingerprints, cves,
  CASE WHEN knowledge_cves IS NOT NULL AND knowledge_cves <> '[]' THEN 1 ELSE 0 END AS confirmed, classifications`;

interface IndexRow {
  id: number;
  ip: string;
  port: number;
  protocol: string;
  hostname: string;
  observed_at: number;
  date_added: number;
  asn: string | null;
  as_name: string | null;
  country: string | null;
  country_code: string | null;
  fingerprints: string;
  cves: string;
  confirmed: number;
  classifications: string;
}

function toIndexEntry(row: IndexRow): IndexEntry {
  return {
    id: row.id,
    ip: row.ip,
    port: row.port,
    protocol: row.protocol,
    hostname: row.hostname,
    observedAt: row.observed_at,
    dateAdded: row.date_added,
    asn: optional(row.asn),
    asName: optional(row.as_name),
    country: optional(row.country),
    countryCode: optional(row.country_code),
    fingerprintsJson: row.fingerprints,
    cvesJson: row.cves,
    confirmed: Number(row.confirmed) === 1,
    classificationsJson: row.classifications,
  };
}

const optional = (value: string | null) => (value === null ? undefined : value);

function toRecord(row: HostRow): HostRecord {
  return {
    ...toPageRecord(row),
    ipKey: row.ip_key,
    fpKey: row.fp_key,
    osCpes: JSON.parse(row.os_cpes),
    scannerCves: JSON.parse(row.scanner_cves),
    knowledgeCves: row.knowledge_cves === null ? [] : JSON.parse(row.knowledge_cves),
    observedClassifications: JSON.parse(row.observed_classifications),
  };
}

/**
 * The target-intel records. Every write also appends to `host_changes`, the change log the
 * servers' in-memory indexes tail.
 */
export class HostRepository {
  constructor(private readonly db: Database) {}

  /**
   * Applies a batch of observations in one transaction, in order, with the record rules:
   * - same key (ip, port, protocol, fingerprint key): updated only when the observation is newer;
   *   `date_added` keeps the first time the key was seen;
   * - a fingerprinted observation supersedes (deletes) older records of the same port with another
   *   key; an observation older than a fingerprinted record of another key on that port is itself
   *   superseded on arrival; an observation with no fingerprint supersedes nothing.
   */
  // `date_added` is the observation time of the first observation of a key that was stored.
  async upsertBatch(writes: HostWrite[], now = Date.now()): Promise<UpsertCounts> {
    if (writes.length === 0) return { inserted: 0, updated: 0, unchanged: 0, superseded: 0 };
    return this.db.transaction(async (tx) => {
      await lockChangeLog(tx);
      return applyBatch(tx, writes, now);
    });
  }

  async getByIds(ids: number[]): Promise<HostRecord[]> {
    return (await this.rowsByIds<HostRow>(COLUMNS, ids)).map(toRecord);
  }

  /**
   * What an API page shows of the records that exist among `ids`: six fewer columns than
   * getByIds, four of them JSON, which a page fetch would otherwise read and parse for nothing.
   */
  async getPageRecords(ids: number[]): Promise<PageRecord[]> {
    return (await this.rowsByIds<PageRow>(PAGE_COLUMNS, ids)).map(toPageRecord);
  }

  /** `columns` of the records that exist among `ids`, 500 ids per statement. */
  private async rowsByIds<Row>(columns: string, ids: number[]): Promise<Row[]> {
    const rows: Row[] = [];
    for (let start = 0; start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500);
      rows.push(
        ...(await this.db.all<Row>(
          `SELECT ${columns} FROM hosts WHERE id IN (${chunk.map(() => '?').join(',')})`,
          chunk,
        )),
      );
    }
    return rows;
  }

  /** Records in id order after `afterId`, for building an index or exporting. */
  async scan(afterId: number, limit: number): Promise<HostRecord[]> {
    const rows = await this.db.all<HostRow>(`SELECT ${COLUMNS} FROM hosts WHERE id > ? ORDER BY id LIMIT ?`, [
      afterId,
      limit,
    ]);
    return rows.map(toRecord);
  }

  /** Index entries in id order after `afterId` (building an index). */
  async scanIndexEntries(afterId: number, limit: number): Promise<IndexEntry[]> {
    const rows = await this.db.all<IndexRow>(`SELECT ${INDEX_COLUMNS} FROM hosts WHERE id > ? ORDER BY id LIMIT ?`, [
      afterId,
      limit,
    ]);
    return rows.map(toIndexEntry);
  }

  /** Index entries of the records that exist among `ids` (applying the change log). */
  async indexEntriesByIds(ids: number[]): Promise<IndexEntry[]> {
    return (await this.rowsByIds<IndexRow>(INDEX_COLUMNS, ids)).map(toIndexEntry);
  }

  async count(): Promise<number> {
    return (await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM hosts`))!.n;
  }

  async latestChangeSeq(): Promise<number> {
    return (await this.db.get<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM host_changes`))!.seq ?? 0;
  }

  async oldestChangeSeq(): Promise<number | undefined> {
    return (await this.db.get<{ seq: number | null }>(`SELECT MIN(seq) AS seq FROM host_changes`))!.seq ?? undefined;
  }

  async changesSince(seq: number, limit: number): Promise<HostChange[]> {
    const rows = await this.db.all<{ seq: number; host_id: number; deleted: number; observed_at: number | null }>(
      `SELECT seq, host_id, deleted, observed_at FROM host_changes WHERE seq > ? ORDER BY seq LIMIT ?`,
      [seq, limit],
    );
    return rows.map((row) => {
      const change: HostChange = { seq: row.seq, hostId: row.host_id, deleted: row.deleted === 1 };
      if (row.observed_at !== null) change.observedAt = row.observed_at;
      return change;
    });
  }

  /**
   * Ids of the records observed before `before`, ascending: one pass over the table in id order.
   * There is no index on the observation time on purpose: every upsert moves a record's time, and
   * keeping such an index would slow every upsert; a server asks its in-memory index instead.
   */
  async idsObservedBefore(before: number, chunk = 50_000): Promise<number[]> {
    const ids: number[] = [];
    let after = 0;
    for (;;) {
      const rows = await this.db.all<{ id: number; observed_at: number }>(
        `SELECT id, observed_at FROM hosts WHERE id > ? ORDER BY id LIMIT ?`,
        [after, chunk],
      );
      for (const row of rows) if (row.observed_at < before) ids.push(row.id);
      if (rows.length < chunk) return ids;
      after = rows[rows.length - 1]!.id;
    }
  }

  /**
   * Deletes those of `ids` still observed before `before` (a record observed again meanwhile
   * stays), in id order and in batches, each with its change-log entries; returns how many.
   * Expired records lie all over the table and its key index, so nearly every page a batch touches
   * is written whole: larger batches write a page once for more of its rows. A batch of the
   * default size holds the write lock for about two seconds, well inside the writers' busy timeout.
   */
  async expire(
    ids: number[],
    before: number,
    batchSize = 50_000,
    onBatch?: (progress: { examined: number; expired: number }) => void,
  ): Promise<number> {
    const sorted = [...ids].sort((a, b) => a - b);
    // Times are whole milliseconds (and PostgreSQL will not compare a BIGINT with a fraction).
    const bound = Math.ceil(before);
    let total = 0;
    for (let start = 0; start < sorted.length; start += batchSize) {
      const batch = sorted.slice(start, start + batchSize);
      total += await this.db.transaction(async (tx) => {
        await lockChangeLog(tx);
        const deleted: number[] = [];
        for (let i = 0; i < batch.length; i += 500) {
          const chunk = batch.slice(i, i + 500);
          const rows = await tx.all<{ id: number }>(
            `DELETE FROM hosts WHERE id IN (${chunk.map(() => '?').join(',')}) AND observed_at < ? RETURNING id`,
            [...chunk, bound],
          );
          for (const row of rows) deleted.push(row.id);
        }
        await logChanges(tx, deleted, true, Date.now());
        return deleted.length;
      });
      onBatch?.({ examined: start + batch.length, expired: total });
    }
    return total;
  }

  /**
   * Calls `handlers.notified` after each commit that wrote the change log, from any process, where
   * the engine announces commits (PostgreSQL); undefined where it does not (SQLite: asking the log
   * is a local read).
   */
  async watchChanges(handlers: ListenHandlers): Promise<Listening | undefined> {
    return this.db.listen?.(CHANGES_CHANNEL, handlers);
  }

  /** Change-log entries older than `before` are no longer needed by any running index. */
  async pruneChanges(before: number): Promise<number> {
    return (await this.db.run(`DELETE FROM host_changes WHERE changed_at < ?`, [before])).changes;
  }

  /** Ids of records whose IP lies in [firstKey, lastKey] (ip_key order). */
  async idsInIpKeyRange(firstKey: string, lastKey: string): Promise<number[]> {
    const rows = await this.db.all<{ id: number }>(
      `SELECT id FROM hosts WHERE ip_key >= ? AND ip_key <= ? ORDER BY id`,
      [firstKey, lastKey],
    );
    return rows.map((row) => row.id);
  }

  /** The fields CVE matching reads, in id order after `afterId` (re-mapping scans with this). */
  async scanMatchInputs(afterId: number, limit: number): Promise<HostMatchInput[]> {
    const rows = await this.db.all<MatchInputRow>(
      `SELECT ${MATCH_INPUT_COLUMNS} FROM hosts WHERE id > ? ORDER BY id LIMIT ?`,
      [afterId, limit],
    );
    return rows.map(matchInputOf);
  }

  /** The match inputs of the given records (those still stored), in id order. */
  async matchInputsOf(ids: readonly number[]): Promise<HostMatchInput[]> {
    const inputs: HostMatchInput[] = [];
    for (const chunk of chunks(
      [...ids].sort((a, b) => a - b),
      500,
    )) {
      const rows = await this.db.all<MatchInputRow>(
        `SELECT ${MATCH_INPUT_COLUMNS} FROM hosts WHERE id IN (${chunk.map(() => '?').join(', ')}) ORDER BY id`,
        chunk,
      );
      for (const row of rows) inputs.push(matchInputOf(row));
    }
    return inputs;
  }

  /** Sets records' knowledge-confirmed CVEs (and `cves` = scanner ∪ confirmed) in one transaction, logging each change. */
  async updateKnowledgeCves(updates: KnowledgeCvesUpdate[]): Promise<number> {
    if (updates.length === 0) return 0;
    const changed: number[] = [];
    // Records of one context share their lists: each is serialised once.
    const texts = new Map<readonly string[], string>();
    const json = (list: readonly string[]) => {
      const text = texts.get(list) ?? JSON.stringify(list);
      texts.set(list, text);
      return text;
    };
    await this.db.transaction(async (tx) => {
      await lockChangeLog(tx);
      // A record upserted since it was read was matched on ingest: the stale result must not replace it.
      const basisOf = ({ basis }: KnowledgeCvesUpdate): [string | null, string | null] =>
        basis ? [JSON.stringify(basis.scannerCves), JSON.stringify(basis.osCpes)] : [null, null];
      if (tx.engine === 'postgres') {
        // One statement per chunk: a round trip per record made re-maps wait on the network.
        for (const chunk of chunks(updates, KNOWLEDGE_UPDATE_CHUNK)) {
          const rows = await tx.all<{ id: number | string }>(
            `UPDATE hosts SET knowledge_cves = v.column2, cves = v.column3
             FROM (VALUES ${chunk.map(() => '(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT))').join(', ')}) AS v
             WHERE hosts.id = v.column1
               AND (v.column4 IS NULL OR (hosts.scanner_cves = v.column4 AND hosts.os_cpes = v.column5))
             RETURNING hosts.id`,
            chunk.flatMap((update) => [
              update.id,
              update.knowledgeCves.length > 0 ? json(update.knowledgeCves) : null,
              json(update.cves),
              ...basisOf(update),
            ]),
          );
          for (const row of rows) changed.push(Number(row.id));
        }
      } else {
        // SQLite has no round trip, and its UPDATE … FROM VALUES was 45% slower than a statement per record.
        for (const update of updates) {
          const [scannerCves, osCpes] = basisOf(update);
          const { changes } = await tx.run(
            `UPDATE hosts SET knowledge_cves = ?, cves = ? WHERE id = ? AND (? IS NULL OR (scanner_cves = ? AND os_cpes = ?))`,
            [
              update.knowledgeCves.length > 0 ? json(update.knowledgeCves) : null,
              json(update.cves),
              update.id,
              scannerCves,
              scannerCves,
              osCpes,
            ],
          );
          if (changes > 0) changed.push(update.id);
        }
      }
      await logChanges(tx, changed, false, Date.now());
    });
    return changed.length;
  }

  /** Sets the effective classifications of records; logs a change only where they differ. */
  async updateClassifications(updates: Array<{ id: number; classifications: string[] }>): Promise<number> {
    const changed: number[] = [];
    await this.db.transaction(async (tx) => {
      await lockChangeLog(tx);
      for (const { id, classifications } of updates) {
        const value = JSON.stringify(classifications);
        const { changes } = await tx.run(`UPDATE hosts SET classifications = ? WHERE id = ? AND classifications <> ?`, [
          value,
          id,
          value,
        ]);
        if (changes > 0) changed.push(id);
      }
      await logChanges(tx, changed, false, Date.now());
    });
    return changed.length;
  }
}

const CHANGES_CHANNEL = 'vulnscope_host_changes';
/** Records per knowledge-CVE update statement (five parameters each). */
const KNOWLEDGE_UPDATE_CHUNK = 100;

/**
 * Every writer of the change log starts with this. On PostgreSQL, concurrent writers could commit
 * change-log sequence numbers out of order, and a tailing index would skip the late one: writers
 * take this lock so commits follow sequence order. And the commit is announced to the listening
 * servers (see `watchChanges`), so they need not ask the log before every query.
 */
async function lockChangeLog(tx: Sql): Promise<void> {
  if (tx.engine !== 'postgres') return;
  await tx.run(`LOCK TABLE host_changes IN SHARE ROW EXCLUSIVE MODE`);
  await announce(tx, CHANGES_CHANNEL);
}

interface MatchInputRow {
  id: number;
  fingerprints: string;
  os_cpes: string;
  scanner_cves: string;
  knowledge_cves: string | null;
}

const MATCH_INPUT_COLUMNS = 'id, fingerprints, os_cpes, scanner_cves, knowledge_cves';

const matchInputOf = (row: MatchInputRow): HostMatchInput => ({
  id: Number(row.id),
  fingerprints: JSON.parse(row.fingerprints),
  osCpes: JSON.parse(row.os_cpes),
  scannerCves: JSON.parse(row.scanner_cves),
  knowledgeCves: row.knowledge_cves === null ? [] : JSON.parse(row.knowledge_cves),
});

/** New knowledge CVEs for a record; `basis`: what they were computed from, written only if the record still has it. */
export interface KnowledgeCvesUpdate {
  id: number;
  knowledgeCves: string[];
  cves: string[];
  basis?: Pick<HostMatchInput, 'scannerCves' | 'osCpes'>;
}
