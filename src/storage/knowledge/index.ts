import { parseCpe } from '../../core/cpe.js';
import type { CveApplicability } from '../../core/applicability/types.js';
import type { Database, Listening, ListenHandlers } from '../database.js';
import { KNOWLEDGE_CHANGES_CHANNEL } from './channel.js';
import { aliasesOf, allAliases, upsertAliases } from './aliases.js';
import { applicabilityOf, candidateCves, criteriaOfNames, replaceKnowledge, type KnowledgeWrite } from './criteria.js';
import { bumpGeneration, knowledgeGeneration, lockKnowledge, setSyncedGeneration, syncedGeneration } from './meta.js';
import { knowledgeNameOf, searchNames, upsertNames } from './names.js';
import { latestNameChange, nameChangesSince, nameRowPage, namesByIds, oldestNameChange } from './name-changes.js';
import { logProductChanges, productChangesSince, type ProductChanges } from './product-changes.js';
import {
  productCounts,
  productCountsPage,
  productCriteria,
  type ProductCounts,
  type ProductCriterion,
  type ProductIdentity,
} from './product-criteria.js';
import {
  changedSince,
  knowledgeWithoutRecord,
  orphanPage,
  refreshCves,
  servedGenerations,
  sourceCvePage,
} from './sources.js';
import { KnowledgeStatistics } from './statistics.js';
import type {
  CpeAlias,
  CpeNameChange,
  CpeNameEntry,
  CpeNameRow,
  CpeNameSearch,
  CpeNameSearchResult,
  KnowledgeChange,
  KnowledgeDeriver,
  KnowledgeName,
  NameCriteria,
} from './types.js';

export type * from './types.js';
export { KNOWLEDGE_FEEDS } from './types.js';
export type { KnowledgeWrite } from './criteria.js';
export type { ProductChanges } from './product-changes.js';
export { type CriterionKeys, criterionMayMatch, keysOf, NO_UPPER_LIMIT, scanKeyOf } from './criteria.js';
export { concreteName, knowledgeNameOf, parseProductKey, productKey } from './names.js';
export { inputHash } from './sources.js';

/** Row counts of the knowledge tables, for reports. */
export interface KnowledgeCounts {
  cves: number;
  criteria: number;
  names: number;
  dictionaryNames: number;
  aliases: number;
}

/**
 * Vulnerability knowledge: each CVE's applicability (derived from its advisory records), the
 * criteria index over it, the searchable CPE names and the product renames. Every change moves
 * `generation()`. docs/knowledge.md describes the tables and the index contract.
 */
export class KnowledgeRepository {
  private readonly statistics: KnowledgeStatistics;

  constructor(private readonly db: Database) {
    this.statistics = new KnowledgeStatistics(db);
  }

  /** Moves whenever applicability, names or aliases change. */
  generation(): Promise<number> {
    return knowledgeGeneration(this.db);
  }

  /** Same as {@link generation}. */
  knowledgeGeneration(): Promise<number> {
    return knowledgeGeneration(this.db);
  }

  // --- applicability and criteria ----------------------------------------------------------

  /**
   * Replaces the knowledge of a batch of CVEs (each write: the CVE's applicability, criteria and
   * content hash) in one transaction. Returns the product keys of old and new criteria.
   */
  replace(writes: readonly KnowledgeWrite[]): Promise<KnowledgeChange> {
    return this.kept(
      this.db.transaction(async (tx) => {
        await lockKnowledge(tx);
        return replaceKnowledge(
          tx,
          writes.map((w) => w.applicability.cveId),
          writes,
        );
      }),
    );
  }

  /** Removes the knowledge of these CVEs. */
  remove(cveIds: readonly string[]): Promise<KnowledgeChange> {
    return this.kept(
      this.db.transaction(async (tx) => {
        await lockKnowledge(tx);
        return replaceKnowledge(tx, cveIds, []);
      }),
    );
  }

  /**
   * Re-derives a batch of CVEs (a few hundred) from their current advisory records in one
   * transaction; unchanged inputs are skipped unless `force`.
   */
  refresh(
    cveIds: readonly string[],
    deriver: KnowledgeDeriver,
    options: { force?: boolean } = {},
  ): Promise<KnowledgeChange> {
    return this.kept(refreshCves(this.db, cveIds, deriver, options));
  }

  /** The change, once the planner's statistics have followed it. */
  private async kept(writing: Promise<KnowledgeChange>): Promise<KnowledgeChange> {
    const change = await writing;
    await this.statistics.wrote(change);
    return change;
  }

  /** CVE ids (sorted) with a criterion that may match one of the names, per the index contract. */
  candidateCves(names: readonly KnowledgeName[]): Promise<string[]> {
    return candidateCves(this.db, names);
  }

  /**
   * Every criteria row that can apply to names of a concrete product (its own and the wildcard
   * rows), in pages: 500 rows on SQLite (a page is one synchronous statement, ~5 ms), 10,000 on
   * PostgreSQL (rows arrive asynchronously; each page re-sorts the rest of the range there).
   */
  productCriteria(
    product: ProductIdentity,
    options: { pageSize?: number; keys?: readonly ProductIdentity[] } = {},
  ): AsyncIterable<ProductCriterion[]> {
    const pageSize = options.pageSize ?? (this.db.engine === 'postgres' ? 10_000 : 500);
    return productCriteria(this.db, product, pageSize, options.keys);
  }

  /**
   * Where storage announces commits (PostgreSQL): calls `handlers.notified` after each commit that
   * changed CPE names or product criteria; undefined where it cannot (SQLite).
   */
  async watchChanges(handlers: ListenHandlers): Promise<Listening | undefined> {
    return this.db.listen?.(KNOWLEDGE_CHANGES_CHANNEL, handlers);
  }

  /** The products whose criteria changed after generation `after` (see product-changes.ts). */
  productChangesSince(after: number, limit?: number): Promise<ProductChanges> {
    return productChangesSince(this.db, after, limit);
  }

  /** The stored applicability of these CVEs (those with knowledge), by CVE id. */
  applicability(cveIds: readonly string[]): Promise<CveApplicability[]> {
    return applicabilityOf(this.db, cveIds);
  }

  /** Per criteria row key (part, vendor, product, each may be `*`) after `after`: its rows and decided rows. */
  productCountsPage(after: ProductIdentity | undefined, limit: number): Promise<ProductCounts[]> {
    return productCountsPage(this.db, after, limit);
  }

  /** One row key's rows and decided rows. */
  productCounts(key: ProductIdentity): Promise<ProductCounts> {
    return productCounts(this.db, key);
  }

  /**
   * For each CPE name (a page of the CPE search, ≤ 100), its candidate criteria; with the
   * applicability of every CVE involved. Names that are not concrete get no criteria.
   */
  async criteriaForNames(
    cpes: readonly string[],
  ): Promise<{ names: NameCriteria[]; applicability: Map<string, CveApplicability> }> {
    const lookups: KnowledgeName[] = [];
    const positions: number[] = [];
    cpes.forEach((cpe, i) => {
      let name: KnowledgeName | undefined;
      try {
        name = knowledgeNameOf(parseCpe(cpe));
      } catch {
        name = undefined;
      }
      if (name) {
        lookups.push(name);
        positions.push(i);
      }
    });
    const found = await criteriaOfNames(this.db, lookups);
    const names: NameCriteria[] = cpes.map((cpe) => ({ cpe, criteria: [] }));
    for (let j = 0; j < found.length; j++) names[positions[j]!]!.criteria = found[j]!;
    const cveIds = [...new Set(found.flat().map((c) => c.cveId))];
    const applicability = new Map((await applicabilityOf(this.db, cveIds)).map((app) => [app.cveId, app]));
    return { names, applicability };
  }

  // --- names and aliases -------------------------------------------------------------------

  /** Writes CPE dictionary entries; returns how many names were written and the entries that are not concrete names. */
  upsertCpeNames(entries: readonly CpeNameEntry[]): Promise<{ written: number; rejected: CpeNameEntry[] }> {
    return this.db.transaction(async (tx) => {
      await lockKnowledge(tx);
      const result = await upsertNames(tx, entries);
      if (result.written > 0) await bumpGeneration(tx);
      return result;
    });
  }

  /** Adds product renames (known ones stay); returns how many were new and the product keys at both ends of those. */
  upsertAliases(aliases: readonly CpeAlias[]): Promise<{ added: number; touchedProducts: string[] }> {
    return this.db.transaction(async (tx) => {
      await lockKnowledge(tx);
      const result = await upsertAliases(tx, aliases);
      if (result.added > 0) {
        await bumpGeneration(tx);
        // Records naming either end may match differently now: host re-mapping follows this log.
        await logProductChanges(tx, await knowledgeGeneration(tx), result.touchedProducts);
      }
      return result;
    });
  }

  /** For each `part:vendor:product`, the product keys linked to it by renames (both directions, transitively), itself excluded. */
  aliasesOf(productKeys: readonly string[]): Promise<Map<string, string[]>> {
    return aliasesOf(this.db, productKeys);
  }

  /** Every rename as a pair of `part:vendor:product` keys. */
  allAliases(): Promise<Array<[string, string]>> {
    return allAliases(this.db);
  }

  searchCpeNames(search: CpeNameSearch): Promise<CpeNameSearchResult> {
    return searchNames(this.db, search);
  }

  // --- the name change log (read by the in-memory name index, src/search/cpe-names) ---------

  /** The newest entry of the name change log (0: none). */
  latestCpeNameChange(): Promise<number> {
    return latestNameChange(this.db);
  }

  /** The oldest entry the log still keeps (undefined: empty). */
  oldestCpeNameChange(): Promise<number | undefined> {
    return oldestNameChange(this.db);
  }

  /** Log entries after `after`, oldest first. */
  cpeNameChangesSince(after: number, limit: number): Promise<CpeNameChange[]> {
    return nameChangesSince(this.db, after, limit);
  }

  /** The names among `ids` that exist now. */
  cpeNamesByIds(ids: readonly string[]): Promise<CpeNameRow[]> {
    return namesByIds(this.db, ids);
  }

  /** Names after `after` (undefined: from the first) in id order. */
  cpeNamePage(after: string | undefined, limit: number): Promise<CpeNameRow[]> {
    return nameRowPage(this.db, after, limit);
  }

  // --- derivation bookkeeping (used by src/ingest/knowledge) -------------------------------

  servedGenerations(): Promise<Record<'nist-nvd2' | 'mitre-cvelist-v5', number>> {
    return servedGenerations(this.db);
  }

  /** The feed generation knowledge was last refreshed from (0: never). */
  syncedGeneration(feed: string): Promise<number> {
    return syncedGeneration(this.db, feed);
  }

  setSyncedGeneration(feed: string, generation: number): Promise<void> {
    return setSyncedGeneration(this.db, feed, generation);
  }

  /** CVEs whose record in `feed` was added or changed after generation `after` (up to the served `upto`). */
  changedSince(feed: string, after: number, upto: number): Promise<string[]> {
    return changedSince(this.db, feed, after, upto);
  }

  /** CVEs with knowledge and no record `feed` serves (candidates after removals from the feed). */
  withoutRecord(feed: string): Promise<string[]> {
    return knowledgeWithoutRecord(this.db, feed);
  }

  /** A page of the CVE ids the knowledge feeds hold, after `after` (rebuild). */
  sourceCvePage(after: string, limit: number): Promise<string[]> {
    return sourceCvePage(this.db, after, limit);
  }

  /** A page of knowledge CVE ids after `after`, and those of them no knowledge feed has any more. */
  orphanPage(after: string, limit: number): Promise<{ last?: string; orphans: string[] }> {
    return orphanPage(this.db, after, limit);
  }

  /** Counts for reports. */
  async counts(): Promise<KnowledgeCounts> {
    const n = async (sql: string) => Number((await this.db.get<{ n: number }>(sql))?.n ?? 0);
    return {
      cves: await n(`SELECT COUNT(*) AS n FROM knowledge_cves`),
      criteria: await n(`SELECT COUNT(*) AS n FROM knowledge_criteria`),
      names: await n(`SELECT COUNT(*) AS n FROM cpe_names`),
      dictionaryNames: await n(`SELECT COUNT(*) AS n FROM cpe_names WHERE from_dictionary = 1`),
      aliases: await n(`SELECT COUNT(*) AS n FROM cpe_aliases`),
    };
  }
}
