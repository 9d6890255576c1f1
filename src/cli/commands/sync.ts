import { knowledgeChangeReport } from '../../services/matching/remap.js';
import type { Config } from '../../config.js';
import { invalidInput } from '../../core/errors.js';
import { CPE_DICTIONARY, syncCpeDictionary } from '../../ingest/feeds/cpe-dictionary-sync.js';
import type { NvdApiSyncSummary } from '../../ingest/feeds/nvd-sync.js';
import { FeedRegistry } from '../../services/feed-registry.js';
import { syncFeed } from '../../ingest/feeds/sync.js';
import { createStorage, type Storage } from '../../storage/index.js';
import { printSummary } from '../output.js';
import { Progress } from '../progress.js';
import { loadGuardOf, type GuardOptions } from '../guard.js';
import { printLoadSummary, reportRejection } from './ingest-advisories.js';

export interface SyncCommandOptions extends GuardOptions {
  all?: boolean;
  force?: boolean;
  strict?: boolean;
}

/** How an NVD API sync went: which runs (full listing / changed-since windows), pages, requests. */
function printApiSummary(title: string, api: Omit<NvdApiSyncSummary, 'requests'> & { requests?: number }): void {
  printSummary(title, {
    runs: api.runs.map((run) => `${run.kind}${run.resumed ? ' (resumed)' : ''}`).join(', then '),
    windows: api.windows,
    pages: api.pages,
    ...(api.requests !== undefined ? { requests: api.requests } : {}),
    'synced until': new Date(api.syncedUntil).toISOString(),
  });
}

/** `vulnscope sync FEED…|--all`: brings each feed up to date from its source; returns the exit code. */
export async function syncFeeds(config: Config, names: string[], options: SyncCommandOptions): Promise<number> {
  const registry = new FeedRegistry(config.feeds);
  const feeds = options.all
    ? registry
        .list()
        .filter((feed) => feed.source)
        .map((feed) => feed.name)
    : names;
  if (feeds.length === 0) {
    throw invalidInput(
      options.all ? 'no feed has a source configured (VULNSCOPE_FEEDS_FILE)' : 'name a feed to sync, or use --all',
    );
  }
  const storage = await createStorage(config.database);
  let rejected = 0;
  try {
    for (const name of feeds) rejected += await syncOne(config, storage, registry, name, options);
  } finally {
    await storage.close();
  }
  return options.strict && rejected > 0 ? 1 : 0;
}

/** `sync cpe-dictionary`: the NVD CPE and Match Criteria APIs into the CPE dictionary; returns the rejections. */
async function syncDictionary(config: Config, storage: Storage, options: SyncCommandOptions): Promise<number> {
  const progress = new Progress(`loading ${CPE_DICTIONARY}`);
  const remap = knowledgeChangeReport();
  try {
    const result = await syncCpeDictionary(storage, {
      api: config.nvd,
      ...(options.force ? { full: true } : {}),
      onRejected: (r) => process.stderr.write(`rejected at ${r.at}: ${r.reason}\n`),
      onKnowledgeChanged: remap.hook,
      onPage: (collection, page, _context, totals) =>
        progress.update(
          totals.read,
          `${collection} ${page.next.toLocaleString('en-US')} of ${page.totalResults.toLocaleString('en-US')}`,
        ),
    });
    progress.finish();
    for (const [collection, schedule] of Object.entries(result.collections))
      printApiSummary(`sync ${CPE_DICTIONARY} ${collection}`, schedule);
    printSummary(CPE_DICTIONARY, {
      read: result.read,
      products: result.products,
      'match criteria': result.matchStrings,
      names: result.names,
      deprecated: result.deprecated,
      renames: result.aliases,
      rejected: result.rejected,
      requests: result.requests,
      ...remap.summary(),
      seconds: (result.durationMs / 1000).toFixed(2),
    });
    return result.rejected;
  } finally {
    progress.finish();
  }
}

async function syncOne(
  config: Config,
  storage: Storage,
  registry: FeedRegistry,
  name: string,
  options: SyncCommandOptions,
): Promise<number> {
  if (name === CPE_DICTIONARY) return syncDictionary(config, storage, options);
  const download = new Progress(`downloading ${name}`);
  const progress = new Progress(`loading ${name}`);
  const remap = knowledgeChangeReport();
  try {
    const result = await syncFeed(storage, registry, name, {
      onKnowledgeChanged: remap.hook,
      force: options.force,
      guard: loadGuardOf(options),
      nvd: config.nvd,
      cvelistUrl: config.cvelistUrl,
      onDownload: (bytes) => download.update(bytes, 'bytes'),
      onRejected: reportRejection,
      onProgress: (p) => {
        download.finish();
        progress.update(p.read, `${p.rejected} rejected`);
      },
      onPage: (page, _context, totals) =>
        progress.update(
          totals.read,
          `${page.next.toLocaleString('en-US')} of ${page.totalResults.toLocaleString('en-US')} in this window`,
        ),
    });
    if (result.notModified) {
      process.stderr.write(`feed ${name}: ${result.source} is unchanged since the last sync\n`);
      return 0;
    }
    download.finish();
    progress.finish();
    if (result.api) printApiSummary(`sync ${name}`, result.api);
    printLoadSummary(name, result, remap);
    return result.rejected;
  } finally {
    download.finish();
    progress.finish();
  }
}
