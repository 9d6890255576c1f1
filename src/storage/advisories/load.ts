/**
 * Loading a feed as a new generation. Rows are versions of records with a validity range of
 * generations (gen_from <= g < gen_to). A load writes new and changed records as rows of
 * generation N (closing the old versions at N), leaves unchanged records alone, and — replacing
 * the whole feed — closes records the source no longer has. Queries read generation N-1 until one
 * transaction switches the feed's pointer to N: they see the old feed or the new one, never a half.
 * Then the versions no generation can see any more are purged.
 */
import { createHash } from 'node:crypto';
import { advisoryFacts } from '../../core/advisory/facts.js';
import { conflict } from '../../core/errors.js';
import { counted, guardFailure, LoadRefused, type LoadGuard } from '../../core/load-guard.js';
import { announce, type Database, type Sql, type SqlValue } from '../database.js';
import { ADVISORY_FEEDS_CHANNEL, ensureFeed, heartbeat } from './feeds.js';
import { chunks, placeholders } from './sql-lists.js';
import { visibleAt } from './where.js';

/** A load whose heartbeat is older than this is considered dead and may be taken over. */
export const STALE_LOAD_MS = 10 * 60_000;

export interface AdvisoryWrite {
  /** The source's id (CVE id, OSV id, …); with the feed, the record's key. */
  recordId: string;
  /** The record in the served CVE-record shape. */
  record: unknown;
}

export interface LoadOptions {
  feed: string;
  description: string;
  adapter: string;
  /** Shown in `token list`-style reports and kept with the feed. */
  source?: string;
  /** `replace`: the load is the feed's whole content (records it lacks are removed); `merge`: add and update only. */
  mode: 'replace' | 'merge';
  /**
   * When `finish` refuses the load (and changes nothing): no valid record, or more than a share of
   * the input rejected. The same in both modes: a merge of the wrong file is refused too.
   */
  guard?: LoadGuard;
}

/** What the loader could not turn into records, told to `finish` for the guard. */
export interface LoadInput {
  /** Input items rejected before they reached `put`. */
  rejected: number;
}

export interface LoadCounts {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  /** Records the feed holds after the switch. */
  records: number;
  generation: number;
}

interface ExistingRow {
  id: number;
  record_id: string;
  gen_from: number;
  content_hash: string;
}

interface PreparedRow {
  recordId: string;
  cveId: string;
  dateUpdated: number | null;
  hash: string;
  json: string;
  matchData: string;
  terms: Array<[number, string]>;
}

const PURGE_CHUNK = 2000;

/** What tells a stored record's content from another's: a load skips records whose hash is unchanged. */
export const contentHash = (json: string) => createHash('sha256').update(json).digest('base64url').slice(0, 32);

function prepare(write: AdvisoryWrite): PreparedRow {
  const json = JSON.stringify(write.record);
  const facts = advisoryFacts(write.record);
  return {
    recordId: write.recordId,
    cveId: facts.cveId || write.recordId.toUpperCase(),
    // The date_updated column holds the update time the filters use, with its fallbacks.
    dateUpdated: facts.updatedAt ?? null,
    hash: contentHash(json),
    json,
    matchData: JSON.stringify(facts.matchData),
    terms: facts.terms,
  };
}

async function deleteRows(tx: Sql, ids: number[]): Promise<void> {
  for (const chunk of chunks(ids)) {
    await tx.run(`DELETE FROM advisory_terms WHERE advisory_id IN (${placeholders(chunk.length)})`, chunk);
    await tx.run(`DELETE FROM advisories WHERE id IN (${placeholders(chunk.length)})`, chunk);
  }
}

export class AdvisoryLoad {
  private readonly seen = new Set<string>();
  private readonly counts = { added: 0, updated: 0, unchanged: 0, removed: 0 };
  /** Records passed to `put` (a repeated record counts each time, as the input items do). */
  private written = 0;
  private done = false;

  private constructor(
    private readonly db: Database,
    private readonly options: LoadOptions,
    /** The generation queries see while this load runs. */
    readonly current: number,
    /** The generation this load writes. */
    readonly generation: number,
  ) {}

  /** Takes the feed's load lock (409 while another live load holds it) and cleans up after a dead load. */
  static async begin(db: Database, options: LoadOptions): Promise<AdvisoryLoad> {
    const { feed } = options;
    const { current, generation } = await db.transaction(async (tx) => {
      await ensureFeed(tx, feed, options.description, options.adapter);
      const lock = tx.engine === 'postgres' ? ' FOR UPDATE' : '';
      const row = (await tx.get<{
        generation: number;
        loading_generation: number | null;
        loading_heartbeat: number | null;
      }>(`SELECT generation, loading_generation, loading_heartbeat FROM advisory_feeds WHERE name = ?${lock}`, [
        feed,
      ]))!;
      const now = Date.now();
      if (row.loading_generation !== null && (row.loading_heartbeat ?? 0) > now - STALE_LOAD_MS) {
        throw conflict(
          `feed "${feed}" is being loaded by another process (last active ${new Date(row.loading_heartbeat!).toISOString()}); try again later`,
        );
      }
      const next = Math.max(row.generation, row.loading_generation ?? 0) + 1;
      await tx.run(`UPDATE advisory_feeds SET loading_generation = ?, loading_heartbeat = ? WHERE name = ?`, [
        next,
        now,
        feed,
      ]);
      // What a dead load left behind: its rows, and the versions it had closed.
      const orphans = await tx.all<{ id: number }>(`SELECT id FROM advisories WHERE feed = ? AND gen_from > ?`, [
        feed,
        row.generation,
      ]);
      await deleteRows(
        tx,
        orphans.map((o) => o.id),
      );
      await tx.run(`UPDATE advisories SET gen_to = NULL WHERE feed = ? AND gen_to > ?`, [feed, row.generation]);
      return { current: row.generation, generation: next };
    });
    return new AdvisoryLoad(db, options, current, generation);
  }

  private async ownLock(tx: Sql): Promise<void> {
    if (!(await heartbeat(tx, this.options.feed, this.generation))) {
      throw conflict(`the load of feed "${this.options.feed}" was taken over by another process`);
    }
  }

  /** Writes a batch of records (a record repeated in the load: the last one wins). */
  async put(writes: readonly AdvisoryWrite[]): Promise<void> {
    this.written += writes.length;
    const byId = new Map<string, PreparedRow>();
    for (const write of writes) byId.set(write.recordId, prepare(write));
    if (byId.size === 0) return;
    const { feed } = this.options;
    const counts = { added: 0, updated: 0, unchanged: 0 };
    await this.db.transaction(async (tx) => {
      await this.ownLock(tx);
      const existing = new Map<string, ExistingRow>();
      for (const ids of chunks([...byId.keys()])) {
        const rows = await tx.all<ExistingRow>(
          `SELECT id, record_id, gen_from, content_hash FROM advisories
           WHERE feed = ? AND gen_to IS NULL AND record_id IN (${placeholders(ids.length)})`,
          [feed, ...ids],
        );
        for (const row of rows) existing.set(row.record_id, row);
      }
      const inserts: PreparedRow[] = [];
      const closed: number[] = [];
      const replacedInLoad: number[] = [];
      for (const row of byId.values()) {
        const previous = existing.get(row.recordId);
        const repeated = this.seen.has(row.recordId);
        this.seen.add(row.recordId);
        if (previous && previous.content_hash === row.hash) {
          if (!repeated) counts.unchanged++;
          continue;
        }
        if (previous && previous.gen_from === this.generation) replacedInLoad.push(previous.id);
        else if (previous) {
          closed.push(previous.id);
          counts.updated++;
        } else if (!repeated) counts.added++;
        inserts.push(row);
      }
      await deleteRows(tx, replacedInLoad);
      for (const ids of chunks(closed)) {
        await tx.run(`UPDATE advisories SET gen_to = ? WHERE id IN (${placeholders(ids.length)})`, [
          this.generation,
          ...ids,
        ]);
      }
      await this.insert(tx, inserts);
    });
    this.counts.added += counts.added;
    this.counts.updated += counts.updated;
    this.counts.unchanged += counts.unchanged;
  }

  private async insert(tx: Sql, rows: PreparedRow[]): Promise<void> {
    const { feed } = this.options;
    for (const chunk of chunks(rows)) {
      const params: SqlValue[] = [];
      for (const row of chunk) {
        params.push(feed, row.recordId, row.cveId, this.generation, row.dateUpdated, row.hash, row.json, row.matchData);
      }
      const inserted = await tx.all<{ id: number; record_id: string }>(
        `INSERT INTO advisories (feed, record_id, cve_id, gen_from, date_updated, content_hash, record, match_data)
         VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} RETURNING id, record_id`,
        params,
      );
      const idOf = new Map(inserted.map((row) => [row.record_id, row.id]));
      const terms: SqlValue[][] = [];
      for (const row of chunk)
        for (const [kind, value] of row.terms) terms.push([kind, value, idOf.get(row.recordId)!]);
      for (const termChunk of chunks(terms, 2000)) {
        await tx.run(
          `INSERT INTO advisory_terms (kind, value, advisory_id) VALUES ${termChunk.map(() => '(?, ?, ?)').join(', ')}`,
          termChunk.flat(),
        );
      }
    }
  }

  /** Closes the records of the current generation that this (replacing) load did not see. */
  private async closeUnseen(): Promise<void> {
    const { feed } = this.options;
    let after = '';
    for (;;) {
      const rows = await this.db.all<{ record_id: string }>(
        `SELECT record_id FROM advisories WHERE feed = ? AND gen_to IS NULL AND gen_from <= ? AND record_id > ?
         ORDER BY record_id LIMIT 5000`,
        [feed, this.current, after],
      );
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.record_id;
      const unseen = rows.map((row) => row.record_id).filter((id) => !this.seen.has(id));
      if (unseen.length === 0) continue;
      await this.db.transaction(async (tx) => {
        await this.ownLock(tx);
        for (const ids of chunks(unseen)) {
          const { changes } = await tx.run(
            `UPDATE advisories SET gen_to = ? WHERE feed = ? AND gen_to IS NULL AND gen_from <= ? AND record_id IN (${placeholders(ids.length)})`,
            [this.generation, feed, this.current, ...ids],
          );
          this.counts.removed += changes;
        }
      });
    }
  }

  /**
   * Makes the new generation the one queries see (one transaction), then purges what nobody sees.
   * A load its guard refuses is aborted instead (the feed keeps its generation) and LoadRefused thrown.
   */
  async finish(input: LoadInput = { rejected: 0 }): Promise<LoadCounts> {
    const { feed } = this.options;
    await this.checkGuard(input);
    if (this.options.mode === 'replace') await this.closeUnseen();
    const records = await this.db.transaction(async (tx) => {
      await this.ownLock(tx);
      const visible = visibleAt(this.generation);
      const count = await tx.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM advisories WHERE feed = ? AND ${visible.sql}`,
        [feed, ...visible.params],
      );
      const n = Number(count?.n ?? 0);
      await tx.run(
        `UPDATE advisory_feeds SET generation = ?, record_count = ?, loaded_at = ?, description = ?, adapter = ?,
           source = COALESCE(?, source), loading_generation = NULL, loading_heartbeat = NULL
         WHERE name = ? AND loading_generation = ?`,
        [
          this.generation,
          n,
          Date.now(),
          this.options.description,
          this.options.adapter,
          this.options.source ?? null,
          feed,
          this.generation,
        ],
      );
      // Servers listening (PostgreSQL) read the feed pointers again at their next query.
      await announce(tx, ADVISORY_FEEDS_CHANNEL);
      return n;
    });
    this.done = true;
    await this.purge();
    const changed = this.counts.added + this.counts.updated + this.counts.removed;
    if (this.db.engine === 'postgres' && changed > 0) {
      // Fresh statistics right away: autovacuum may take minutes, and plans over unanalysed term tables are poor.
      await this.db.run(`ANALYZE advisories`);
      await this.db.run(`ANALYZE advisory_terms`);
    }
    return { ...this.counts, records, generation: this.generation };
  }

  private async checkGuard(input: LoadInput): Promise<void> {
    const { feed, mode, source } = this.options;
    const failure = guardFailure({ accepted: this.written, rejected: input.rejected }, this.options.guard, {
      ...(source ? { from: source } : {}),
    });
    if (!failure) return;
    await this.abort();
    const stored = await this.db.get<{ record_count: number }>(
      `SELECT record_count FROM advisory_feeds WHERE name = ?`,
      [feed],
    );
    const kept = counted(Number(stored?.record_count ?? 0), 'record');
    throw new LoadRefused(
      !stored
        ? `feed ${feed} not loaded: ${failure.reason}`
        : mode === 'replace'
          ? `feed ${feed} not replaced: ${failure.reason}; it keeps its ${kept}`
          : `feed ${feed} not merged: ${failure.reason}; nothing was added or updated`,
      failure.overrides,
    );
  }

  private async purge(): Promise<void> {
    for (;;) {
      const rows = await this.db.all<{ id: number }>(
        `SELECT id FROM advisories WHERE feed = ? AND gen_to IS NOT NULL AND gen_to <= ? LIMIT ${PURGE_CHUNK}`,
        [this.options.feed, this.generation],
      );
      if (rows.length === 0) return;
      await this.db.transaction((tx) =>
        deleteRows(
          tx,
          rows.map((row) => row.id),
        ),
      );
    }
  }

  /** Undoes the load (best effort): its rows go, closed versions reopen, the lock is released. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    const { feed } = this.options;
    await this.db.transaction(async (tx) => {
      if (!(await heartbeat(tx, feed, this.generation))) return;
      const rows = await tx.all<{ id: number }>(`SELECT id FROM advisories WHERE feed = ? AND gen_from = ?`, [
        feed,
        this.generation,
      ]);
      await deleteRows(
        tx,
        rows.map((row) => row.id),
      );
      await tx.run(`UPDATE advisories SET gen_to = NULL WHERE feed = ? AND gen_to = ?`, [feed, this.generation]);
      await tx.run(`UPDATE advisory_feeds SET loading_generation = NULL, loading_heartbeat = NULL WHERE name = ?`, [
        feed,
      ]);
      await tx.run(`DELETE FROM advisory_feeds WHERE name = ? AND generation = 0`, [feed]);
    });
  }
}
