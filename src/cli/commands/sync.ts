import type { Config } from '../../config.js';
import { invalidInput } from '../../core/errors.js';
import { FeedRegistry } from '../../ingest/feeds/registry.js';
import { syncFeed } from '../../ingest/feeds/sync.js';
import { createStorage } from '../../storage/index.js';
import { Progress } from '../progress.js';
import { printLoadSummary, reportRejection } from './ingest-advisories.js';

export interface SyncCommandOptions {
  all?: boolean;
  force?: boolean;
  strict?: boolean;
}

/** `vulnscope sync FEED…|--all`: downloads each feed's source and replaces the feed; returns the exit code. */
export async function syncFeeds(config: Config, names: string[], options: SyncCommandOptions): Promise<number> {
  const registry = new FeedRegistry(config.feeds);
  const feeds = options.all ? registry.list().filter((feed) => feed.source).map((feed) => feed.name) : names;
  if (feeds.length === 0) {
    throw invalidInput(options.all ? 'no feed has a source configured (VULNSCOPE_FEEDS_FILE)' : 'name a feed to sync, or use --all');
  }
  const storage = await createStorage(config.database);
  let rejected = 0;
  try {
    for (const name of feeds) {
      const download = new Progress(`downloading ${name}`);
      const progress = new Progress(`loading ${name}`);
      try {
        const result = await syncFeed(storage, registry, name, {
          force: options.force,
          onDownload: (bytes) => download.update(bytes, 'bytes'),
          onRejected: reportRejection,
          onProgress: (p) => {
            download.finish();
            progress.update(p.read, `${p.rejected} rejected`);
          },
        });
        if (result.notModified) {
          process.stderr.write(`feed ${name}: ${result.source} is unchanged since the last sync\n`);
          continue;
        }
        rejected += result.rejected;
        printLoadSummary(name, result);
      } finally {
        download.finish();
        progress.finish();
      }
    }
  } finally {
    await storage.close();
  }
  return options.strict && rejected > 0 ? 1 : 0;
}
