/**
 * PostgreSQL plans the derivation's lookups by CVE id from the statistics ANALYZE last took. While
 * a load grows the knowledge tables from nothing, autovacuum's statistics lag far behind and those
 * lookups become table scans (a batch of 500 CVEs: 3 ms with fresh statistics, 110 ms without), so
 * statistics are taken again whenever the rows written since the last time reach the rows written
 * before it (a few times per load, each a sample of the table).
 */
import type { Sql } from '../database.js';
import type { KnowledgeChange } from './types.js';

/** Rows written before the first ANALYZE of a process. */
const FIRST_ANALYZE_AFTER = 10_000;

export class KnowledgeStatistics {
  private written = 0;
  private before = 0;

  constructor(private readonly db: Sql) {}

  async wrote(change: KnowledgeChange): Promise<void> {
    if (this.db.engine !== 'postgres') return;
    this.written += change.cvesChanged + change.criteria;
    if (this.written < Math.max(FIRST_ANALYZE_AFTER, this.before)) return;
    this.before += this.written;
    this.written = 0;
    await this.db.run('ANALYZE knowledge_criteria');
    await this.db.run('ANALYZE knowledge_cves');
  }
}
