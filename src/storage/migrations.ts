import { advisoryUpdateTime } from '../core/advisory/facts.js';
import { decidedByOwnHit } from '../core/applicability/evaluate.js';
import type { CveApplicability } from '../core/applicability/types.js';
import { MATCHING_RULES_VERSION } from '../core/matching.js';
import { fillAdvisoryProvenance } from './advisories/provenance-fill.js';
import type { Database, Engine, Sql } from './database.js';

/**
 * Ordered schema migrations. A landed migration is frozen: change the schema by appending a new
 * one. A fresh database is created by running them all.
 */
interface Migration {
  id: number;
  name: string;
  statements(engine: Engine): string[];
  /** A data step, run after the statements in the same transaction, for what SQL cannot compute. */
  run?(tx: Sql): Promise<void>;
}

/** Bytewise ordering of a text column (SQLite's default BINARY collation already is). */
const bytewise = (engine: Engine) => (engine === 'postgres' ? 'COLLATE "C"' : '');

const id = (engine: Engine) =>
  engine === 'sqlite' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY';

/** The criteria columns the lookup index carries besides its keys (decided first: counts sum it). */
const CRITERIA_CARRIED =
  'decided, cve_id, vulnerable, source, criterion, exact_key, start_key, start_incl, end_key, end_incl, unbounded, always_check';

export const MIGRATIONS: Migration[] = [
  {
    id: 1,
    name: 'target-intel hosts, change log, tokens, settings, classification lists',
    statements: (engine) => [
      `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      `CREATE TABLE hosts (
        id ${id(engine)},
        ip TEXT NOT NULL,
        ip_key TEXT NOT NULL,
        port INTEGER NOT NULL,
        protocol TEXT NOT NULL,
        fp_key TEXT NOT NULL,
        hostname TEXT NOT NULL,
        observed_at BIGINT NOT NULL,
        date_added BIGINT NOT NULL,
        asn TEXT,
        as_name TEXT,
        as_domain TEXT,
        country TEXT,
        country_code TEXT,
        fingerprints TEXT NOT NULL,
        os_cpes TEXT NOT NULL,
        scanner_cves TEXT NOT NULL,
        cves TEXT NOT NULL,
        observed_classifications TEXT NOT NULL,
        classifications TEXT NOT NULL
      )`,
      `CREATE UNIQUE INDEX hosts_key ON hosts (ip, port, protocol, fp_key)`,
      `CREATE INDEX hosts_observed_at ON hosts (observed_at)`,
      `CREATE INDEX hosts_ip_key ON hosts (ip_key)`,
      `CREATE TABLE host_changes (
        seq ${id(engine)},
        host_id BIGINT NOT NULL,
        deleted INTEGER NOT NULL,
        changed_at BIGINT NOT NULL
      )`,
      `CREATE INDEX host_changes_changed_at ON host_changes (changed_at)`,
      `CREATE TABLE tokens (
        id ${id(engine)},
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      )`,
      `CREATE TABLE classification_lists (
        id ${id(engine)},
        name TEXT NOT NULL UNIQUE,
        loaded_at BIGINT NOT NULL,
        entry_count INTEGER NOT NULL
      )`,
      `CREATE TABLE classification_entries (
        list_id BIGINT NOT NULL REFERENCES classification_lists (id) ON DELETE CASCADE,
        first_key TEXT NOT NULL,
        last_key TEXT NOT NULL,
        classification TEXT NOT NULL
      )`,
      `CREATE INDEX classification_entries_list ON classification_entries (list_id)`,
    ],
  },
  {
    id: 2,
    name: 'advisory feeds and records (generations), token feed entitlements and rate limits',
    statements: (engine) => [
      // generation: the one queries see; loading_*: the load in progress (a lock with a heartbeat).
      `CREATE TABLE advisory_feeds (
        name TEXT PRIMARY KEY,
        description TEXT NOT NULL,
        adapter TEXT NOT NULL,
        generation BIGINT NOT NULL,
        record_count BIGINT NOT NULL,
        loaded_at BIGINT,
        source TEXT,
        etag TEXT,
        last_modified TEXT,
        loading_generation BIGINT,
        loading_heartbeat BIGINT
      )`,
      // A row is one version of a record, visible to generations gen_from <= g < gen_to. Keys
      // compare bytewise on both engines (whatever the PostgreSQL database collation), so the
      // served order (feed, cve_id, record_id) and cursor positions agree everywhere.
      `CREATE TABLE advisories (
        id ${id(engine)},
        feed TEXT ${bytewise(engine)} NOT NULL,
        record_id TEXT ${bytewise(engine)} NOT NULL,
        cve_id TEXT ${bytewise(engine)} NOT NULL,
        gen_from BIGINT NOT NULL,
        gen_to BIGINT,
        date_updated BIGINT,
        content_hash TEXT NOT NULL,
        record TEXT NOT NULL,
        match_data TEXT NOT NULL
      )`,
      `CREATE UNIQUE INDEX advisories_version ON advisories (feed, record_id, gen_from)`,
      `CREATE INDEX advisories_order ON advisories (feed, cve_id, record_id)`,
      `CREATE INDEX advisories_cve ON advisories (cve_id)`,
      `CREATE INDEX advisories_updated ON advisories (feed, date_updated)`,
      engine === 'sqlite'
        ? `CREATE TABLE advisory_terms (
            kind INTEGER NOT NULL,
            value TEXT NOT NULL,
            advisory_id INTEGER NOT NULL,
            PRIMARY KEY (kind, value, advisory_id)
          ) WITHOUT ROWID`
        : `CREATE TABLE advisory_terms (
            kind SMALLINT NOT NULL,
            value TEXT NOT NULL,
            advisory_id BIGINT NOT NULL,
            PRIMARY KEY (kind, value, advisory_id)
          )`,
      `CREATE INDEX advisory_terms_advisory ON advisory_terms (advisory_id)`,
      // NULL feeds: the server's VULNSCOPE_DEFAULT_FEEDS; NULL rate_limit: VULNSCOPE_RATE_LIMIT, -1: unlimited.
      `ALTER TABLE tokens ADD COLUMN feeds TEXT`,
      `ALTER TABLE tokens ADD COLUMN rate_limit INTEGER`,
    ],
  },
  {
    id: 3,
    name: 'vulnerability knowledge: applicability per CVE, criteria index, CPE names and aliases; host CVE evidence',
    statements: (engine) => [
      // generation: moves on every knowledge change (matchers drop caches); synced:<feed>: the
      // feed generation knowledge was last refreshed from. Writers lock the generation row first.
      `CREATE TABLE knowledge_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)`,
      `INSERT INTO knowledge_meta (name, value) VALUES ('generation', 0)`,
      // content_hash: derivation version and the content hashes of the advisory records it read.
      `CREATE TABLE knowledge_cves (
        cve_id TEXT ${bytewise(engine)} PRIMARY KEY,
        origin TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        applicability TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      // One row per criterion (NVD cpeMatch, CVE 5 cpeApplicability or affected CPE). part, vendor
      // and product are unquoted lower-case values or '*'. Version keys are versionSortKey()
      // strings compared bytewise; scan_key is the row's highest matching key ('~' = no upper
      // limit), so "criteria for a name with key K" is the range (part, vendor, product, scan_key >= K).
      // name_id: the cpe_names id when the criterion is itself a concrete name.
      `CREATE TABLE knowledge_criteria (
        id ${id(engine)},
        cve_id TEXT ${bytewise(engine)} NOT NULL,
        part TEXT ${bytewise(engine)} NOT NULL,
        vendor TEXT ${bytewise(engine)} NOT NULL,
        product TEXT ${bytewise(engine)} NOT NULL,
        vulnerable INTEGER NOT NULL,
        source TEXT NOT NULL,
        criterion TEXT NOT NULL,
        exact_key TEXT ${bytewise(engine)},
        start_key TEXT ${bytewise(engine)},
        start_incl INTEGER,
        end_key TEXT ${bytewise(engine)},
        end_incl INTEGER,
        unbounded INTEGER NOT NULL,
        always_check INTEGER NOT NULL,
        scan_key TEXT ${bytewise(engine)} NOT NULL,
        name_id TEXT ${bytewise(engine)}
      )`,
      `CREATE INDEX knowledge_criteria_lookup ON knowledge_criteria (part, vendor, product, scan_key)`,
      `CREATE INDEX knowledge_criteria_cve ON knowledge_criteria (cve_id)`,
      // Searchable CPE names: the NVD dictionary's, plus every concrete name a criterion names
      // (criteria_refs counts those criteria; a name with none that is not in the dictionary goes).
      // id: the lower-cased CPE 2.3 string; part … version: unquoted lower-case values.
      `CREATE TABLE cpe_names (
        id TEXT ${bytewise(engine)} PRIMARY KEY,
        cpe TEXT NOT NULL,
        part TEXT ${bytewise(engine)} NOT NULL,
        vendor TEXT ${bytewise(engine)} NOT NULL,
        product TEXT ${bytewise(engine)} NOT NULL,
        version TEXT ${bytewise(engine)} NOT NULL,
        from_dictionary INTEGER NOT NULL,
        criteria_refs INTEGER NOT NULL,
        deprecated INTEGER NOT NULL,
        deprecated_by TEXT,
        title TEXT,
        last_modified TEXT
      )`,
      `CREATE INDEX cpe_names_vendor ON cpe_names (vendor, product, version)`,
      `CREATE INDEX cpe_names_product ON cpe_names (product, version)`,
      // Product renames from dictionary deprecations (igor_sysoev:nginx → nginx:nginx).
      `CREATE TABLE cpe_aliases (
        part TEXT ${bytewise(engine)} NOT NULL,
        vendor TEXT ${bytewise(engine)} NOT NULL,
        product TEXT ${bytewise(engine)} NOT NULL,
        to_part TEXT ${bytewise(engine)} NOT NULL,
        to_vendor TEXT ${bytewise(engine)} NOT NULL,
        to_product TEXT ${bytewise(engine)} NOT NULL,
        source TEXT NOT NULL,
        PRIMARY KEY (part, vendor, product, to_part, to_vendor, to_product)
      )`,
      `CREATE INDEX cpe_aliases_to ON cpe_aliases (to_part, to_vendor, to_product)`,
      // Which records a feed load added or changed: knowledge refreshes exactly those CVEs.
      `CREATE INDEX advisories_generation ON advisories (feed, gen_from)`,
      // A JSON array filled by the matcher: the knowledge-confirmed CVEs (NULL: none). Evidence is
      // computed on request (explain=true) from knowledge as it stands, so it is not stored.
      `ALTER TABLE hosts ADD COLUMN knowledge_cves TEXT`,
    ],
  },
  {
    id: 4,
    name: 'hosts: no index on the observation time',
    // Every upsert moves a record's observation time, so that index cost a quarter of the upsert
    // time; expiry finds its records through the server's in-memory index or one table pass.
    statements: () => [`DROP INDEX IF EXISTS hosts_observed_at`],
  },
  {
    id: 5,
    name: 'hosts: one key index, led by ip_key',
    // ip and ip_key are one-to-one, so a key led by ip_key both identifies a record and serves IP
    // ranges, and each key index costs one random page write per inserted or deleted record.
    statements: () => [
      `CREATE UNIQUE INDEX hosts_identity ON hosts (ip_key, port, protocol, fp_key)`,
      `DROP INDEX IF EXISTS hosts_key`,
      `DROP INDEX IF EXISTS hosts_ip_key`,
    ],
  },
  {
    id: 6,
    name: 'host_changes: the new time of a record observed again unchanged',
    // Most upserts of a continuous scan only move a record's observation time. Such a change
    // carries that time, so a tailing index applies it without reading the record back.
    statements: () => [`ALTER TABLE host_changes ADD COLUMN observed_at BIGINT`],
  },
  {
    id: 7,
    name: 'advisories: update time falls back to datePublished, then dateReserved',
    // date_updated held cveMetadata.dateUpdated only, so records without one (a CVE record never
    // updated since it was published, a source without modification times) matched no
    // updatedAfter or updatedBefore query. Loads now store the fallback; rows already stored get it here (a load
    // skips unchanged records, so it would never rewrite them). Dates are parsed in code, as at load.
    statements: () => [],
    run: fillAdvisoryUpdateTimes,
  },
  {
    id: 8,
    name: 'knowledge_product_changes: which products each knowledge generation touched',
    // Written in the knowledge writer's transaction, so every process (not only the writer) learns
    // which products' prepared CVE structures a new generation made stale.
    statements: (engine) => [
      `CREATE TABLE knowledge_product_changes (
        generation BIGINT NOT NULL,
        product_key TEXT ${bytewise(engine)} NOT NULL
      )`,
      `CREATE INDEX knowledge_product_changes_generation ON knowledge_product_changes (generation)`,
    ],
  },
  {
    id: 9,
    name: 'cpe_name_changes: the CPE names each knowledge write touched',
    // Each server's in-memory CPE name index reads this log past the last entry it applied and
    // re-reads those names, so a search sees every committed write without re-reading the table.
    statements: (engine) => [
      `CREATE TABLE cpe_name_changes (
        seq ${id(engine)},
        name_id TEXT ${bytewise(engine)} NOT NULL
      )`,
    ],
  },
  {
    id: 10,
    name: 'knowledge_criteria.decided: whether a hit of a key-decided criterion confirms its CVE by itself',
    // On each criteria row, which host matching reads with a product's rows anyway. Written by
    // derivation; rows derived before get it here, and a row still NULL is worked out when read.
    statements: () => [`ALTER TABLE knowledge_criteria ADD COLUMN decided SMALLINT`],
    run: fillDecidedFlags,
  },
  {
    id: 11,
    name: 'settings.matching_rules: a database created without records follows the current rules',
    // Records are matched by the current rules on ingest, so only records stored before this
    // migration can follow older ones (services/matching/rules-remap.ts walks those).
    statements: () => [],
    run: markRulesOfEmptyDatabase,
  },
  {
    id: 12,
    name: 'knowledge_criteria_lookup holds decided: per-product counts read from the index alone',
    // Host matching's product catalog (search/cpe-cves/product-catalog.ts) sums decided per
    // product: 2.1 s reading the table at 848k rows, 265 ms from the index. id stays before
    // decided so product pages ordered by (scan_key, id) still follow the index without a sort.
    statements: () => [
      `DROP INDEX knowledge_criteria_lookup`,
      `CREATE INDEX knowledge_criteria_lookup ON knowledge_criteria (part, vendor, product, scan_key, id, decided)`,
    ],
  },
  {
    id: 13,
    name: 'knowledge_criteria_lookup covers what preparing a product reads',
    // A product's rows were fetched from a table ordered by CVE, one random read each (2.9 µs per
    // row at 848k rows); read from the index alone they cost 1.1 µs. PostgreSQL keeps the order
    // columns as keys and carries the rest (INCLUDE); SQLite has no INCLUDE, so they trail the key.
    statements: (engine) => [
      `DROP INDEX knowledge_criteria_lookup`,
      engine === 'postgres'
        ? `CREATE INDEX knowledge_criteria_lookup ON knowledge_criteria (part, vendor, product, scan_key, id) INCLUDE (${CRITERIA_CARRIED})`
        : `CREATE INDEX knowledge_criteria_lookup ON knowledge_criteria (part, vendor, product, scan_key, id, ${CRITERIA_CARRIED})`,
    ],
  },
  {
    id: 14,
    name: 'advisories: stored records carry their provenance (assignerOrgId, provider orgId and shortName)',
    // Loads now store it, but a load skips unchanged records, so rows stored before would never get
    // it. Rewritten in place (and hashed as a load would) before any server reads them; feed archives
    // written before are then stale (settings.advisories_rewritten_at), whatever their generation.
    statements: () => [],
    run: fillAdvisoryProvenance,
  },
  {
    id: 15,
    name: 'export_leases: the token running an export, shared by every process on the database',
    statements: () => [
      `CREATE TABLE export_leases (
        token_id BIGINT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    id: 16,
    name: 'tokens: admin flag and the token that created each (parent_id)',
    // Admin tokens manage every token over HTTP; a token created by another over HTTP records it, so
    // authentication reads the parent with the token (one join) and a parent finds its children.
    statements: () => [
      `ALTER TABLE tokens ADD COLUMN admin SMALLINT NOT NULL DEFAULT 0`,
      `ALTER TABLE tokens ADD COLUMN parent_id BIGINT`,
      `CREATE INDEX tokens_parent ON tokens (parent_id)`,
    ],
  },
];

/** The migration a database opened by this code is at (what snapshots of derived data are tied to). */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.id;

async function markRulesOfEmptyDatabase(tx: Sql): Promise<void> {
  if (await tx.get(`SELECT id FROM hosts LIMIT 1`)) return;
  await tx.run(`INSERT INTO settings (key, value) VALUES ('matching_rules', ?) ON CONFLICT (key) DO NOTHING`, [
    JSON.stringify({ version: MATCHING_RULES_VERSION }),
  ]);
}

/** Migration 10's data step: each stored CVE's decided flag, from its applicability, in batches. */
async function fillDecidedFlags(tx: Sql): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await tx.all<{ cve_id: string; applicability: string }>(
      `SELECT cve_id, applicability FROM knowledge_cves WHERE cve_id > ? ORDER BY cve_id LIMIT 2000`,
      [after],
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.cve_id;
    for (const row of rows) {
      const decided = decidedByOwnHit(JSON.parse(row.applicability) as CveApplicability) ? 1 : 0;
      await tx.run(`UPDATE knowledge_criteria SET decided = ? WHERE cve_id = ?`, [decided, row.cve_id]);
    }
  }
}

/** Migration 7's data step: rows without an update time get one from their record, in batches. */
async function fillAdvisoryUpdateTimes(tx: Sql): Promise<void> {
  const BATCH = 500;
  let after = 0;
  for (;;) {
    const rows = await tx.all<{ id: number | string; record: string }>(
      `SELECT id, record FROM advisories WHERE date_updated IS NULL AND id > ? ORDER BY id LIMIT ${BATCH}`,
      [after],
    );
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.id);
    const updates: Array<[number, number]> = [];
    for (const row of rows) {
      let time: number | undefined;
      try {
        time = advisoryUpdateTime(JSON.parse(row.record));
      } catch {
        time = undefined;
      }
      if (time !== undefined) updates.push([Number(row.id), time]);
    }
    if (updates.length === 0) continue;
    // One statement per batch; CAST keeps PostgreSQL from typing the parameters as text.
    await tx.run(
      `UPDATE advisories SET date_updated = CASE id ${updates.map(() => 'WHEN ? THEN CAST(? AS BIGINT)').join(' ')} END
       WHERE id IN (${updates.map(() => '?').join(', ')})`,
      [...updates.flat(), ...updates.map(([id]) => id)],
    );
  }
}

/** Applies the pending migrations in order (`through`: stop after that one, to test an upgrade). */
export async function migrate(db: Database, options: { through?: number } = {}): Promise<{ applied: number[] }> {
  await db.transaction(async (tx) => {
    // Instances opening a new schema together: PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against itself.
    if (tx.engine === 'postgres')
      await tx.run(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':schema_migrations'))`);
    await tx.run(
      `CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
    );
  });
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    if (options.through !== undefined && migration.id > options.through) break;
    const done = await db.transaction(async (tx) => {
      if (tx.engine === 'postgres') {
        // Two instances starting together must not both apply a migration.
        await tx.run(`LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE`);
      }
      const existing = await tx.get(`SELECT id FROM schema_migrations WHERE id = ?`, [migration.id]);
      if (existing) return false;
      for (const statement of migration.statements(tx.engine)) await tx.run(statement);
      await migration.run?.(tx);
      await tx.run(`INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)`, [
        migration.id,
        migration.name,
        Date.now(),
      ]);
      return true;
    });
    if (done) applied.push(migration.id);
  }
  return { applied };
}
