import path from 'node:path';
import { formatIp, ipSortKey, type IpRange } from '../../core/ip.js';
import type { StoredClassificationEntry } from '../../core/classification.js';
import { counted, guardFailure, LoadRefused, type LoadGuard } from '../../core/load-guard.js';
import type { Storage } from '../../storage/index.js';
import type { Rejection } from '../pipeline.js';
import { readClassificationList, type ListOptions } from './read-list.js';
import { ClassificationResolver } from './resolver.js';

export interface ListLoadSummary {
  list: string;
  entries: number;
  rejected: number;
  recordsChecked: number;
  recordsChanged: number;
  durationMs: number;
}

const BATCH = 500;

/** How far a list load is: lines read, then records re-classified of those the ranges hold. */
export type ListLoadProgress = { phase: 'reading'; done: number } | { phase: 'applying'; done: number; total: number };

export interface ListProgressOption {
  onProgress?: (progress: ListLoadProgress) => void;
}

type ListLoadOptions = ListOptions & ListProgressOption;

export function rangeKeys(range: IpRange): { firstKey: string; lastKey: string } {
  const first = ipSortKey({ version: range.version, value: range.first, text: formatIp(range.version, range.first) });
  const last = ipSortKey({ version: range.version, value: range.last, text: formatIp(range.version, range.last) });
  return { firstKey: first, lastKey: last };
}

/**
 * Loads (or replaces) a named classification list, then re-applies classifications to every
 * record inside the ranges of the old or the new list, so records always reflect current lists.
 * A file with no valid entry, or with more than 1 % of its lines rejected, replaces nothing
 * (LoadRefused) unless `guard` lets it through.
 */
export async function loadClassificationList(
  storage: Storage,
  file: string,
  options: ListLoadOptions & { name?: string; onRejected?: (rejection: Rejection) => void; guard?: LoadGuard },
): Promise<ListLoadSummary> {
  const started = performance.now();
  const name = options.name ?? path.basename(file);
  const entries: StoredClassificationEntry[] = [];
  let rejected = 0;
  let read = 0;
  for await (const item of readClassificationList(file, options)) {
    if (++read % 1000 === 0) options.onProgress?.({ phase: 'reading', done: read });
    if (item.kind === 'rejected') {
      rejected += 1;
      options.onRejected?.({ ...item.at, reason: item.reason });
      continue;
    }
    entries.push({ ...rangeKeys(item.entry.range), classification: item.entry.classification });
  }
  const failure = guardFailure({ accepted: entries.length, rejected }, options.guard, { noun: 'line', from: file });
  if (failure) {
    const stored = (await storage.classificationLists.list()).find((list) => list.name === name);
    throw new LoadRefused(
      stored
        ? `classification list "${name}" not replaced: ${failure.reason}; it keeps its ${counted(stored.entryCount, 'entry', 'entries')}`
        : `classification list "${name}" not loaded: ${failure.reason}`,
      failure.overrides,
    );
  }
  const previous = await storage.classificationLists.replace(name, entries);
  const { checked, changed } = await reapplyClassifications(storage, [...previous, ...entries], options.onProgress);
  return {
    list: name,
    entries: entries.length,
    rejected,
    recordsChecked: checked,
    recordsChanged: changed,
    durationMs: performance.now() - started,
  };
}

/** Recomputes the effective classifications of the records inside `ranges`. */
export async function reapplyClassifications(
  storage: Storage,
  ranges: Array<{ firstKey: string; lastKey: string }>,
  onProgress?: ListProgressOption['onProgress'],
): Promise<{ checked: number; changed: number }> {
  const resolver = new ClassificationResolver(await storage.classificationLists.allEntries());
  const ids = new Set<number>();
  for (const range of mergeRanges(ranges)) {
    for (const id of await storage.hosts.idsInIpKeyRange(range.firstKey, range.lastKey)) ids.add(id);
  }
  const all = [...ids];
  let changed = 0;
  for (let start = 0; start < all.length; start += BATCH) {
    const records = await storage.hosts.getByIds(all.slice(start, start + BATCH));
    const updates = records.map((record) => ({
      id: record.id,
      classifications: resolver.effective(record.observedClassifications, record.fingerprints, record.ipKey),
    }));
    changed += await storage.hosts.updateClassifications(updates);
    onProgress?.({ phase: 'applying', done: Math.min(start + BATCH, all.length), total: all.length });
  }
  return { checked: all.length, changed };
}

/** Overlapping or adjacent key ranges merged, so each record is looked up once. */
function mergeRanges(ranges: Array<{ firstKey: string; lastKey: string }>) {
  const sorted = [...ranges].sort((a, b) => (a.firstKey < b.firstKey ? -1 : a.firstKey > b.firstKey ? 1 : 0));
  const merged: Array<{ firstKey: string; lastKey: string }> = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.firstKey <= last.lastKey) {
      if (range.lastKey > last.lastKey) last.lastKey = range.lastKey;
    } else {
      merged.push({ ...range });
    }
  }
  return merged;
}
