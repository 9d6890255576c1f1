/**
 * `vulnscope sync cpe-dictionary`: the NVD CPE API 2.0 (`products`, up to 10,000 per page) and
 * the Match Criteria API 2.0 (`matchStrings`, up to 500 per page), each paged on the same
 * schedule as the CVE sync (full listing first, then last-modified windows of at most 120 days,
 * resumable page by page; nvd-sync.ts), every page written by `ingestCpeDictionary` at once.
 */
import type { Storage } from '../../storage/index.js';
import { ingestCpeDictionary, type CpeDictionaryOptions, type CpeDictionarySummary } from '../knowledge/dictionary.js';
import { NVD_PATHS, NvdApiClient, type NvdClientOptions, type NvdPage } from './nvd-api.js';
import { runNvdSync, type NvdApiSyncSummary, type NvdCollection, type PageContext } from './nvd-sync.js';
import { syncStateStore } from './sync-state.js';

/** The name `vulnscope sync` knows it by (not an advisory feed). */
export const CPE_DICTIONARY = 'cpe-dictionary';
/** NVD's maximum page sizes. */
export const CPE_RESULTS_PER_PAGE = 10_000;
export const MATCH_RESULTS_PER_PAGE = 500;

export type CpeCollectionName = 'products' | 'matchStrings';

export interface CpeDictionarySyncOptions extends Omit<CpeDictionaryOptions, 'onProgress'> {
  api: NvdClientOptions | NvdApiClient;
  productsPerPage?: number;
  matchStringsPerPage?: number;
  /** Load everything again, ignoring the sync points and unfinished runs. */
  full?: boolean;
  now?: () => number;
  overlapMs?: number;
  onPage?: (
    collection: CpeCollectionName,
    page: NvdPage,
    context: PageContext,
    totals: { read: number; rejected: number },
  ) => void;
}

export interface CpeDictionarySyncResult extends Omit<CpeDictionarySummary, 'durationMs'> {
  durationMs: number;
  requests: number;
  /** The schedule of each collection. */
  collections: Record<CpeCollectionName, Omit<NvdApiSyncSummary, 'requests'>>;
}

export async function syncCpeDictionary(
  storage: Storage,
  options: CpeDictionarySyncOptions,
): Promise<CpeDictionarySyncResult> {
  const started = Date.now();
  const client = options.api instanceof NvdApiClient ? options.api : new NvdApiClient(options.api);
  const totals = { read: 0, products: 0, matchStrings: 0, names: 0, deprecated: 0, aliases: 0, rejected: 0 };
  const touched = new Set<string>();
  const collections: Array<[CpeCollectionName, NvdCollection]> = [
    [
      'products',
      { path: NVD_PATHS.cpes, listKey: 'products', resultsPerPage: options.productsPerPage ?? CPE_RESULTS_PER_PAGE },
    ],
    [
      'matchStrings',
      {
        path: NVD_PATHS.cpematch,
        listKey: 'matchStrings',
        resultsPerPage: options.matchStringsPerPage ?? MATCH_RESULTS_PER_PAGE,
      },
    ],
  ];
  const schedules = {} as CpeDictionarySyncResult['collections'];
  try {
    for (const [name, collection] of collections) {
      const { items: _items, ...schedule } = await runNvdSync({
        client,
        state: syncStateStore(storage, `${CPE_DICTIONARY}.${name}`),
        collection,
        ...(options.full ? { full: true } : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(options.overlapMs !== undefined ? { overlapMs: options.overlapMs } : {}),
        onPage: async (page, context) => {
          if (page.items.length > 0) {
            const inputs = page.items.map((value, i) => ({ at: `${page.url}#/${collection.listKey}/${i}`, value }));
            const summary = await ingestCpeDictionary(storage, inputs, {
              ...(options.batchSize ? { batchSize: options.batchSize } : {}),
              ...(options.onRejected ? { onRejected: options.onRejected } : {}),
            });
            for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += summary[key];
            for (const product of summary.touchedProducts) touched.add(product);
          }
          options.onPage?.(name, page, context, { read: totals.read, rejected: totals.rejected });
        },
      });
      schedules[name] = schedule;
    }
  } finally {
    // Renames stored so far take effect even when a later page failed (the next sync resumes after them).
    if (touched.size > 0) await options.onKnowledgeChanged?.([...touched].sort());
  }
  return {
    ...totals,
    touchedProducts: [...touched].sort(),
    durationMs: Date.now() - started,
    requests: client.requests,
    collections: schedules,
  };
}
