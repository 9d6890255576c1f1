import type { DatabaseConfig } from '../config.js';
import { AdvisoryRepository } from './advisories/index.js';
import { ClassificationListRepository } from './classification-lists.js';
import { openDatabase, type Database } from './database.js';
import { ExportLeaseRepository } from './export-leases.js';
import { HostRepository } from './hosts.js';
import { openHostWriter, type HostBatchWriter } from './host-writer.js';
import { openJobLock, type JobLock } from './job-lock.js';
import { KnowledgeRepository } from './knowledge/index.js';
import { migrate } from './migrations.js';
import { serverSecret } from './settings.js';
import { TokenRepository } from './tokens.js';

export type { Database } from './database.js';
export type { BreakerStatus } from './pg-breaker.js';

/** Everything storage offers, over one connection (pool). */
export interface Storage {
  db: Database;
  hosts: HostRepository;
  tokens: TokenRepository;
  exportLeases: ExportLeaseRepository;
  classificationLists: ClassificationListRepository;
  advisories: AdvisoryRepository;
  knowledge: KnowledgeRepository;
  /** Where an ingest writes its batches (see host-writer.ts); close it when done. */
  openHostWriter(): HostBatchWriter;
  /** The lock on the periodic jobs among every instance on this database (see job-lock.ts); `holder` names this process. */
  openJobLock(holder: string): Promise<JobLock>;
  secret(): Promise<string>;
  close(): Promise<void>;
}

export async function createStorage(config: DatabaseConfig, options: { migrate?: boolean } = {}): Promise<Storage> {
  const db = await openDatabase(config);
  try {
    if (options.migrate !== false) await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const hosts = new HostRepository(db);
  return {
    db,
    hosts,
    tokens: new TokenRepository(db),
    exportLeases: new ExportLeaseRepository(db),
    classificationLists: new ClassificationListRepository(db),
    advisories: new AdvisoryRepository(db),
    knowledge: new KnowledgeRepository(db),
    openHostWriter: () => openHostWriter(config, hosts),
    openJobLock: (holder) => openJobLock(config, db, holder),
    secret: () => serverSecret(db),
    close: () => db.close(),
  };
}

export type {
  AdvisoryIndexRow,
  AdvisoryHit,
  AdvisoryPaging,
  AdvisoryPosition,
  IndexRowPosition,
  LoadCounts,
  StoredFeed,
  VisibleRecord,
} from './advisories/index.js';
export { openDatabase, type ListenHandlers, type Listening } from './database.js';
export type { AdvisoryRepository } from './advisories/index.js';
export type { KnowledgeRepository } from './knowledge/index.js';
export type { HostRepository, KnowledgeCvesUpdate } from './hosts.js';
export {
  concreteName,
  type CriterionKeys,
  criterionMayMatch,
  keysOf,
  KNOWLEDGE_FEEDS,
  NO_UPPER_LIMIT,
  scanKeyOf,
  parseProductKey,
  type CpeAlias,
  type CpeNameEntry,
  type CpeNameRow,
  type CpeNameSearch,
  type CpeNameSearchResult,
  type DerivedKnowledge,
  type KnowledgeChange,
  type KnowledgeCounts,
  type KnowledgeDeriver,
  type KnowledgeSources,
  type ProductChanges,
} from './knowledge/index.js';
export {
  identityCombinations,
  type ProductCounts,
  type ProductIdentity,
} from './knowledge/product-criteria.js';
export { JOB_LEASE_MS, type JobLock } from './job-lock.js';
export { migrate, SCHEMA_VERSION } from './migrations.js';
export { deleteSetting, getSetting, putSetting } from './settings.js';
export type { TokenRepository } from './tokens.js';
export type { ExportLeaseRepository } from './export-leases.js';
