/**
 * Keeping knowledge current: after a load of `nist-nvd2` or `mitre-cvelist-v5`, exactly the CVEs
 * whose record the load added, changed or removed are re-derived, in bounded batches (one
 * transaction each). A full rebuild walks every CVE of both feeds. Both report the products whose
 * criteria changed, which is what host re-mapping needs (`onKnowledgeChanged`).
 */
import type { Storage } from '../../storage/index.js';
import { KNOWLEDGE_FEEDS, type KnowledgeChange, type KnowledgeDeriver } from '../../storage/index.js';
import { KNOWLEDGE_DERIVER } from './derive.js';

export interface KnowledgeRefreshSummary {
  /** CVEs whose knowledge was written or removed. */
  cvesChanged: number;
  /** Criteria rows written. */
  criteria: number;
  /** `part:vendor:product` of every criterion removed or written (sorted; `*` for ANY). */
  touchedProducts: string[];
  /** CVEs whose derivation failed (their knowledge was left as it was; a rebuild retries them). */
  failed: Array<{ cveId: string; reason: string }>;
  durationMs: number;
}

/**
 * Called once after knowledge changed, with the products whose criteria changed. Host
 * re-mapping (matching stored records again) plugs in here.
 */
export type OnKnowledgeChanged = (touchedProducts: string[]) => Promise<unknown>;

export interface KnowledgeRefreshOptions {
  /** CVEs per transaction (default 500). */
  batchSize?: number;
  /** Re-derive even CVEs whose records are unchanged (after a derivation change). */
  force?: boolean;
  onProgress?: (progress: { examined: number; cvesChanged: number }) => void;
  onKnowledgeChanged?: OnKnowledgeChanged;
  /** For tests and the benchmark: another derivation. */
  deriver?: KnowledgeDeriver;
}

export const DEFAULT_KNOWLEDGE_BATCH = 500;

export const isKnowledgeFeed = (feed: string): feed is (typeof KNOWLEDGE_FEEDS)[number] =>
  (KNOWLEDGE_FEEDS as readonly string[]).includes(feed);

class Accumulator {
  examined = 0;
  cvesChanged = 0;
  criteria = 0;
  readonly touched = new Set<string>();
  readonly failed: Array<{ cveId: string; reason: string }> = [];
  readonly started = Date.now();

  constructor(private readonly options: KnowledgeRefreshOptions) {}

  add(change: KnowledgeChange, examined: number): void {
    this.examined += examined;
    this.cvesChanged += change.cvesChanged;
    this.criteria += change.criteria;
    for (const key of change.touchedProducts) this.touched.add(key);
    if (change.failed) this.failed.push(...change.failed);
    this.options.onProgress?.({ examined: this.examined, cvesChanged: this.cvesChanged });
  }

  async finish(): Promise<KnowledgeRefreshSummary> {
    const touchedProducts = [...this.touched].sort();
    if (touchedProducts.length > 0) await this.options.onKnowledgeChanged?.(touchedProducts);
    return {
      cvesChanged: this.cvesChanged,
      criteria: this.criteria,
      touchedProducts,
      failed: this.failed,
      durationMs: Date.now() - this.started,
    };
  }
}

async function refreshInBatches(
  storage: Storage,
  cveIds: readonly string[],
  options: KnowledgeRefreshOptions,
  into: Accumulator,
): Promise<void> {
  const size = options.batchSize ?? DEFAULT_KNOWLEDGE_BATCH;
  const deriver = options.deriver ?? KNOWLEDGE_DERIVER;
  for (let i = 0; i < cveIds.length; i += size) {
    const batch = cveIds.slice(i, i + size);
    into.add(await storage.knowledge.refresh(batch, deriver, { force: options.force }), batch.length);
  }
}

/** Re-derives these CVEs from their current records (unchanged ones are skipped unless `force`). */
export async function refreshKnowledgeCves(
  storage: Storage,
  cveIds: readonly string[],
  options: KnowledgeRefreshOptions = {},
): Promise<KnowledgeRefreshSummary> {
  const acc = new Accumulator(options);
  await refreshInBatches(storage, [...new Set(cveIds)].sort(), options, acc);
  return acc.finish();
}

/**
 * After a load of `feed` switched generations: re-derives the CVEs whose record in it was added or
 * changed since knowledge last followed the feed (normally: in this load), and — when the load
 * removed records, or an earlier refresh was missed — the CVEs the feed no longer serves.
 * Undefined for feeds knowledge does not read.
 */
export async function refreshKnowledgeAfterLoad(
  storage: Storage,
  feed: string,
  options: KnowledgeRefreshOptions & { removed?: number } = {},
): Promise<KnowledgeRefreshSummary | undefined> {
  if (!isKnowledgeFeed(feed)) return undefined;
  const acc = new Accumulator(options);
  const served = (await storage.knowledge.servedGenerations())[feed];
  const synced = await storage.knowledge.syncedGeneration(feed);
  if (served > synced) {
    const ids = new Set(await storage.knowledge.changedSince(feed, synced, served));
    if (options.removed === undefined || options.removed > 0 || synced !== served - 1) {
      for (const id of await storage.knowledge.withoutRecord(feed)) ids.add(id);
    }
    await refreshInBatches(storage, [...ids].sort(), options, acc);
    await storage.knowledge.setSyncedGeneration(feed, served);
  }
  return acc.finish();
}

/**
 * Re-derives knowledge for every CVE of both feeds (skipping CVEs whose records and derivation
 * are unchanged unless `force`) and removes knowledge of CVEs neither feed has any more.
 */
export async function rebuildKnowledge(
  storage: Storage,
  options: KnowledgeRefreshOptions = {},
): Promise<KnowledgeRefreshSummary> {
  const acc = new Accumulator(options);
  const size = options.batchSize ?? DEFAULT_KNOWLEDGE_BATCH;
  const served = await storage.knowledge.servedGenerations();
  for (let after = ''; ; ) {
    const ids = await storage.knowledge.sourceCvePage(after, size);
    if (ids.length === 0) break;
    await refreshInBatches(storage, ids, options, acc);
    after = ids[ids.length - 1]!;
  }
  for (let after = ''; ; ) {
    const page = await storage.knowledge.orphanPage(after, size);
    if (page.last === undefined) break;
    if (page.orphans.length > 0) await refreshInBatches(storage, page.orphans, options, acc);
    after = page.last;
  }
  for (const feed of KNOWLEDGE_FEEDS) await storage.knowledge.setSyncedGeneration(feed, served[feed]);
  return acc.finish();
}
