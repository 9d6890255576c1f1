/**
 * `vulnscope sync FEED`: downloads the feed's configured URL (conditionally: an unchanged source
 * is not downloaded again) and replaces the feed with it. A local path as the source is loaded
 * directly.
 */
import { invalidInput } from '../../core/errors.js';
import type { Storage } from '../../storage/index.js';
import { downloadToTemp } from './download.js';
import { loadFeedSources, type FeedLoadOptions, type FeedLoadSummary } from './load.js';
import type { FeedRegistry } from './registry.js';

export interface SyncOptions extends Omit<FeedLoadOptions, 'source' | 'mode'> {
  /** Download even when the server says the source is unchanged. */
  force?: boolean;
  onDownload?: (bytes: number, total: number | undefined) => void;
}

export type SyncResult =
  | { feed: string; source: string; notModified: true }
  | ({ feed: string; source: string; notModified: false; bytes?: number } & FeedLoadSummary);

const isUrl = (source: string) => /^https?:\/\//i.test(source);

export async function syncFeed(storage: Storage, registry: FeedRegistry, name: string, options: SyncOptions = {}): Promise<SyncResult> {
  const feed = registry.get(name);
  if (!feed) throw invalidInput(`unknown feed "${name}" (feeds: ${registry.list().map((f) => f.name).join(', ')})`);
  const source = feed.source;
  if (!source) {
    throw invalidInput(`feed "${name}" has no source; give it one in VULNSCOPE_FEEDS_FILE, or load files with "vulnscope ingest advisories --feed ${name} FILE…"`);
  }
  if (!isUrl(source)) {
    const summary = await loadFeedSources(storage, feed, [source], { ...options, mode: 'replace' });
    return { feed: name, source, notModified: false, ...summary };
  }
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
