/**
 * Streams advisory items (from an adapter, or records made elsewhere) into a feed: batched writes
 * into a new generation, rejected items reported with their id and reason, and one atomic switch
 * at the end. Re-running a load with the same content changes nothing (unchanged records are
 * skipped); a failure leaves the feed as it was. So does a load its guard refuses (no valid record,
 * or more than 1 % of the items rejected, unless `guard` says otherwise): LoadRefused is thrown.
 * Every record stored carries the feed's provenance where its source names none.
 */
import { withProvenance } from '../../core/advisory/provenance.js';
import { unreadableInput, VulnscopeError } from '../../core/errors.js';
import { counted, type LoadGuard } from '../../core/load-guard.js';
import type { AdvisoryItem, AdvisoryRecord } from '../advisories/types.js';
import type { LoadCounts } from '../../storage/index.js';
import type { Storage } from '../../storage/index.js';
import {
  refreshKnowledgeAfterLoad,
  type KnowledgeRefreshSummary,
  type OnKnowledgeChanged,
} from '../knowledge/refresh.js';
import { adapterFor, type RegisteredFeed } from '../advisories/index.js';

export interface FeedLoadOptions {
  /** `replace` (default): the items are the feed's whole content; `merge`: add and update only. */
  mode?: 'replace' | 'merge';
  /** What was loaded (paths or URL), kept with the feed when the load succeeds. */
  source?: string;
  /**
   * When the load is refused (nothing changes): by default when no item is a valid record, or more
   * than 1 % of the items are rejected; in both modes.
   */
  guard?: LoadGuard;
  /** Records per write transaction. */
  batchSize?: number;
  onRejected?: (rejection: { sourceId: string; at: string; reason: string }) => void;
  onProgress?: (progress: { read: number; rejected: number }) => void;
  /**
   * After a load of `nist-nvd2` or `mitre-cvelist-v5`, knowledge of the CVEs it changed is
   * re-derived (default); `false` leaves that to a later load or `vulnscope knowledge rebuild`.
   */
  refreshKnowledge?: boolean;
  /** Called with the products whose criteria changed (host re-mapping plugs in here). */
  onKnowledgeChanged?: OnKnowledgeChanged;
}

export interface FeedLoadSummary extends LoadCounts {
  /** Items read from the source(s), records and rejections. */
  read: number;
  rejected: number;
  durationMs: number;
  /** Knowledge refreshed after the load (feeds knowledge is derived from). */
  knowledge?: KnowledgeRefreshSummary;
}

export interface FeedIdentity {
  name: string;
  description: string;
  adapter: string;
}

const DEFAULT_BATCH = 500;

/** Records built elsewhere (tests, the benchmark) as adapter items, keyed by their CVE id. */
export async function* recordsAsItems(
  records: Iterable<AdvisoryRecord> | AsyncIterable<AdvisoryRecord>,
): AsyncIterable<AdvisoryItem> {
  for await (const record of records) yield { kind: 'record', record, sourceId: record.cveMetadata.cveId };
}

export async function loadFeedItems(
  storage: Storage,
  feed: FeedIdentity,
  items: Iterable<AdvisoryItem> | AsyncIterable<AdvisoryItem>,
  options: FeedLoadOptions = {},
): Promise<FeedLoadSummary> {
  const started = Date.now();
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const load = await storage.advisories.startLoad({
    feed: feed.name,
    description: feed.description,
    adapter: feed.adapter,
    mode: options.mode ?? 'replace',
    ...(options.source ? { source: options.source } : {}),
    ...(options.guard ? { guard: options.guard } : {}),
  });
  let read = 0;
  let rejected = 0;
  let batch: Array<{ recordId: string; record: unknown }> = [];
  try {
    for await (const item of items) {
      read++;
      if (item.kind === 'rejected') {
        rejected++;
        options.onRejected?.({ sourceId: item.sourceId, at: item.at, reason: item.reason });
      } else {
        const record = withProvenance(item.record, feed.name);
        batch.push({ recordId: item.sourceId || record.cveMetadata.cveId, record });
        if (batch.length >= batchSize) {
          await load.put(batch);
          batch = [];
        }
      }
      if (read % 100 === 0) options.onProgress?.({ read, rejected });
    }
    await load.put(batch);
    const counts = await load.finish({ rejected });
    options.onProgress?.({ read, rejected });
    // The feed has switched; knowledge follows (a failure here leaves it for the next load or a rebuild).
    const knowledge =
      options.refreshKnowledge === false
        ? undefined
        : await refreshKnowledgeAfterLoad(storage, feed.name, {
            removed: counts.removed,
            ...(options.onKnowledgeChanged ? { onKnowledgeChanged: options.onKnowledgeChanged } : {}),
          });
    return { ...counts, read, rejected, durationMs: Date.now() - started, ...(knowledge ? { knowledge } : {}) };
  } catch (error) {
    await load.abort().catch(() => {});
    if (error instanceof VulnscopeError && error.code === 'unreadable_input') {
      // Say what became of the feed: nothing, like any failed load.
      const stored = await storage.advisories.feed(feed.name).catch(() => undefined);
      const mode = options.mode ?? 'replace';
      throw unreadableInput(
        !stored
          ? `feed ${feed.name} not loaded: ${error.message}`
          : `feed ${feed.name} not ${mode === 'replace' ? 'replaced' : 'merged'}: ${error.message}; it keeps its ${counted(stored.recordCount, 'record')}`,
      );
    }
    throw error;
  }
}

/** Runs the feed's adapter over each source in turn, all into one load. */
export function loadFeedSources(
  storage: Storage,
  feed: RegisteredFeed,
  sources: readonly string[],
  options: FeedLoadOptions = {},
): Promise<FeedLoadSummary> {
  const adapter = adapterFor(feed.adapter);
  async function* all(): AsyncIterable<AdvisoryItem> {
    for (const source of sources) yield* adapter(source, feed.name);
  }
  return loadFeedItems(storage, feed, all(), { source: sources.join(' '), ...options });
}
