import { ipSortKey, parseIp } from '../core/ip.js';
import type { Observation, ReadItem, SourcePosition } from '../core/observation.js';
import type { HostWrite } from '../core/host-record.js';
import type { Storage } from '../storage/index.js';
import type { ClassificationResolver } from './classifications/resolver.js';
import type { GeoEnricher } from './enrich/geo.js';
import { applyKnowledge } from './match.js';
import type { CveMatcher } from '../core/matching.js';
import { prepareFingerprints } from './prepared-fingerprints.js';
import type { ProductNameTable } from './product-names/table.js';

export interface IngestSummary {
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  superseded: number;
  expired: number;
  rejected: number;
  durationMs: number;
}

export interface Rejection extends SourcePosition {
  reason: string;
}

export interface PipelineOptions {
  retentionDays: number;
  /** Observations per transaction. */
  batchSize?: number;
  /** A pending batch is committed at least this often, so a slow stream stays visible. */
  flushIntervalMs?: number;
  onRejected?: (rejection: Rejection) => void;
  /** Called after each committed batch. */
  onProgress?: (summary: IngestSummary) => void;
  now?: () => number;
}

export interface PipelineStages {
  geo?: GeoEnricher;
  classifier: ClassificationResolver;
  /** Fingerprint → CVE matching (the services layer's `confirmingMatcher(storage)` in the product). */
  matcher: CveMatcher;
  /** Scanner product names → CPEs, for fingerprints that carry none. */
  productNames?: ProductNameTable;
}

const DAY_MS = 86_400_000;
const TIMED_OUT = Symbol('timed out');
const WRITES_IN_FLIGHT = 2;
/**
 * Reading and preparing items from a buffered input never waits for I/O, so without a pause the
 * replies of the database (and of the writer thread) would wait until a whole input chunk was
 * prepared, leaving the database idle between the statements of a batch.
 */
const YIELD_EVERY_MS = 1;

export const emptySummary = (): IngestSummary => ({
  read: 0,
  inserted: 0,
  updated: 0,
  unchanged: 0,
  superseded: 0,
  expired: 0,
  rejected: 0,
  durationMs: 0,
});

/**
 * read → normalise → enrich → match → batched upsert. Bad items are reported and skipped; the rest
 * goes in. Memory is bounded by the batch size whatever the input size.
 */
export async function runIngest(
  storage: Storage,
  items: AsyncIterable<ReadItem>,
  stages: PipelineStages,
  options: PipelineOptions,
): Promise<IngestSummary> {
  const started = performance.now();
  const summary = emptySummary();
  const batchSize = options.batchSize ?? 1000;
  const flushIntervalMs = options.flushIntervalMs ?? 1000;
  const now = options.now ?? Date.now;
  let batch: HostWrite[] = [];
  let batchDeadline: Promise<typeof TIMED_OUT> | undefined;
  let batchStartedAt = 0;
  const { matcher } = stages;
  const writer = storage.openHostWriter();
  // Up to WRITES_IN_FLIGHT batches are queued for the writer while the next is read and prepared:
  // memory stays bounded, batches commit in input order, and neither side waits on the other's
  // batch-to-batch jitter.
  const writing: Array<Promise<void>> = [];

  const reject = (at: SourcePosition, reason: string) => {
    summary.rejected += 1;
    options.onRejected?.({ ...at, reason });
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const writes = batch;
    batch = [];
    batchDeadline = undefined;
    await applyKnowledge(writes, matcher);
    if (writing.length >= WRITES_IN_FLIGHT) await writing.shift();
    const written = writer.write(writes).then((counts) => {
      summary.inserted += counts.inserted;
      summary.updated += counts.updated;
      summary.unchanged += counts.unchanged;
      summary.superseded += counts.superseded;
      summary.durationMs = performance.now() - started;
      options.onProgress?.({ ...summary });
    });
    // A failed write surfaces when it is awaited; until then it must not count as unhandled.
    written.catch(() => {});
    writing.push(written);
  };

  const iterator = items[Symbol.asyncIterator]();
  let next = iterator.next();
  try {
    await readAll();
    await flush();
    for (const written of writing) await written;
  } catch (error) {
    // The next item is requested before the current one is written: when a write fails first,
    // that request is still pending, and a failure of the reader must not become unhandled.
    next.catch(() => {});
    throw error;
  } finally {
    await Promise.allSettled(writing);
    await writer.close();
  }
  summary.durationMs = performance.now() - started;
  return summary;

  async function readAll(): Promise<void> {
    let yieldedAt = performance.now();
    for (;;) {
      if (performance.now() - yieldedAt >= YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        yieldedAt = performance.now();
      }
      const result = batchDeadline !== undefined ? await Promise.race([next, batchDeadline]) : await next;
      if (result === TIMED_OUT) {
        await flush();
        continue;
      }
      if (result.done) break;
      next = iterator.next();
      const item = result.value;
      summary.read += 1;
      if (item.kind === 'rejected') {
        reject(item.at, item.reason);
        continue;
      }
      const retentionStart = options.retentionDays > 0 ? now() - options.retentionDays * DAY_MS : -Infinity;
      if (item.observation.timestamp < retentionStart) {
        summary.expired += 1;
        continue;
      }
      let write: HostWrite;
      try {
        write = prepare(item.observation, stages);
      } catch (error) {
        reject(item.at, (error as Error).message);
        continue;
      }
      if (batch.length === 0) {
        batchStartedAt = Date.now();
        batchDeadline = deadline(flushIntervalMs);
      }
      batch.push(write);
      if (batch.length >= batchSize || Date.now() - batchStartedAt >= flushIntervalMs) await flush();
    }
  }
}

/** Normalise, enrich and match one observation into the record it becomes. */
export function prepare(
  observation: Observation,
  stages: Pick<PipelineStages, 'geo' | 'classifier' | 'productNames'>,
): HostWrite {
  const ip = parseIp(observation.ip);
  const ipKey = ipSortKey(ip);
  const names = stages.productNames;
  const { fingerprints, fpKey, implied } = prepareFingerprints(
    names ? observation.fingerprints.map((fingerprint) => names.identify(fingerprint)) : observation.fingerprints,
  );
  const geo = stages.geo?.lookup(ip.text) ?? {};
  const scannerCves = [...new Set(observation.cves.map((cve) => cve.toUpperCase()))].sort();
  return {
    ip: ip.text,
    ipKey,
    port: observation.port,
    protocol: observation.protocol,
    fpKey,
    hostname: observation.hostnames[0] ?? '',
    observedAt: observation.timestamp,
    asn: geo.asn ?? observation.asn,
    asName: geo.as_name ?? observation.asName,
    asDomain: geo.as_domain,
    country: geo.country ?? observation.country,
    countryCode: geo.country_code ?? observation.countryCode,
    fingerprints,
    osCpes: observation.osCpes,
    scannerCves,
    knowledgeCves: [],
    cves: scannerCves,
    observedClassifications: observation.classifications,
    classifications: stages.classifier.combine(observation.classifications, implied, ipKey),
  };
}

/** Resolves to TIMED_OUT after `ms`, without keeping the process alive: one timer per batch. */
function deadline(ms: number): Promise<typeof TIMED_OUT> {
  return new Promise((resolve) => setTimeout(() => resolve(TIMED_OUT), ms).unref());
}
