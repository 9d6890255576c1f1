/**
 * `vulnscope sync FEED`: brings a feed up to date from where it is published.
 *
 * - A `nist-nvd2` feed without a source, or whose source is an NVD API base URL, is synced from
 *   the NVD CVE API 2.0: incremental, resumable, merged page by page (nvd-cve-sync.ts).
 * - `mitre-cvelist-v5` without a source downloads the latest cvelistV5 release (VULNSCOPE_CVELIST_URL);
 *   a GitHub release API URL as a source is resolved to its complete-list asset (cvelist-release.ts).
 * - Any other URL source is downloaded (conditionally: an unchanged source is not downloaded
 *   again) and replaces the feed; a local path as the source is loaded directly.
 */
import { DEFAULT_NVD_BASE_URL, type NvdApiConfig } from '../../config.js';
import { invalidInput } from '../../core/errors.js';
import type { Storage } from '../../storage/index.js';
import { isReleaseApiUrl, resolveReleaseAsset } from './cvelist-release.js';
import { downloadToTemp } from './download.js';
import { loadFeedSources, type FeedLoadOptions, type FeedLoadSummary } from './load.js';
import { NVD_PATHS, type NvdClientOptions } from './nvd-api.js';
import { syncNvdCves, type NvdCveSyncOptions } from './nvd-cve-sync.js';
import type { NvdApiSyncSummary } from './nvd-sync.js';
import type { FeedLookup, RegisteredFeed } from '../advisories/index.js';

export interface SyncOptions extends Omit<FeedLoadOptions, 'source' | 'mode'> {
  /** Download even when the server says the source is unchanged; for NVD API feeds: load everything again. */
  force?: boolean;
  onDownload?: (bytes: number, total: number | undefined) => void;
  /** The NVD API (config.nvd), with client settings tests may override. */
  nvd?: NvdApiConfig & Partial<NvdClientOptions>;
  /** Where `mitre-cvelist-v5` is downloaded from when the feed has no source (config.cvelistUrl). */
  cvelistUrl?: string;
  /** Progress of NVD API syncs, after each stored page. */
  onPage?: NvdCveSyncOptions['onPage'];
}

export type SyncResult =
  | { feed: string; source: string; notModified: true }
  | ({ feed: string; source: string; notModified: false; bytes?: number; api?: NvdApiSyncSummary } & FeedLoadSummary);

const isUrl = (source: string) => /^https?:\/\//i.test(source);

/** The NVD API base a nist-nvd2 feed is synced from, or undefined when its source is a feed file. */
export function nvdApiBase(feed: RegisteredFeed, defaultBase = DEFAULT_NVD_BASE_URL): string | undefined {
  if (feed.adapter !== 'nist-nvd2') return undefined;
  if (!feed.source) return defaultBase;
  if (!isUrl(feed.source)) return undefined;
  const source = feed.source.replace(/\/+$/, '');
  if (source === defaultBase.replace(/\/+$/, '')) return source;
  const url = new URL(source);
  if (url.search !== '') return undefined;
  if (url.pathname === '' || url.pathname === '/') return url.origin;
  if (url.pathname.endsWith(NVD_PATHS.cves)) return source.slice(0, source.length - NVD_PATHS.cves.length);
  return undefined;
}

export async function syncFeed(
  storage: Storage,
  registry: FeedLookup,
  name: string,
  options: SyncOptions = {},
): Promise<SyncResult> {
  const feed = registry.get(name);
  if (!feed)
    throw invalidInput(
      `unknown feed "${name}" (feeds: ${registry
        .list()
        .map((f) => f.name)
        .join(', ')}, and cpe-dictionary)`,
    );
  const apiBase = nvdApiBase(feed, options.nvd?.baseUrl);
  if (apiBase) {
    const { nvd, onPage, force, onRejected, batchSize, refreshKnowledge, onKnowledgeChanged, guard } = options;
    const result = await syncNvdCves(storage, feed, {
      api: { ...nvd, baseUrl: apiBase },
      ...(force ? { full: true } : {}),
      ...(onPage ? { onPage } : {}),
      ...(onRejected ? { onRejected } : {}),
      ...(batchSize ? { batchSize } : {}),
      ...(refreshKnowledge === false ? { refreshKnowledge } : {}),
      ...(onKnowledgeChanged ? { onKnowledgeChanged } : {}),
      ...(guard ? { guard } : {}),
    });
    const { read, rejected, added, updated, unchanged, removed, records, generation, durationMs, knowledge, ...api } =
      result;
    const summary = {
      read,
      rejected,
      added,
      updated,
      unchanged,
      removed,
      records,
      generation,
      durationMs,
      ...(knowledge ? { knowledge } : {}),
    };
    return { feed: name, source: apiBase, notModified: false, ...summary, api };
  }
  let source = feed.source ?? (feed.name === 'mitre-cvelist-v5' ? options.cvelistUrl : undefined);
  if (!source) {
    throw invalidInput(
      `feed "${name}" has no source; give it one in VULNSCOPE_FEEDS_FILE, or load files with "vulnscope ingest advisories --feed ${name} FILE…"`,
    );
  }
  if (!isUrl(source)) {
    const summary = await loadFeedSources(storage, feed, [source], { ...options, mode: 'replace' });
    return { feed: name, source, notModified: false, ...summary };
  }
  if (isReleaseApiUrl(source)) source = await resolveReleaseAsset(source);
  const stored = await storage.advisories.feed(name);
  const sameSource = stored?.source === source && stored.generation > 0;
  const download = await downloadToTemp(source, {
    ...(sameSource && !options.force ? { etag: stored.etag, lastModified: stored.lastModified } : {}),
    onProgress: options.onDownload,
  });
  if (download.notModified) return { feed: name, source, notModified: true };
  try {
    const summary = await loadFeedSources(storage, feed, [download.file], { ...options, mode: 'replace', source });
    await storage.advisories.setSyncValidators(name, download.etag, download.lastModified);
    return { feed: name, source, notModified: false, bytes: download.bytes, ...summary };
  } finally {
    await download.cleanup();
  }
}
