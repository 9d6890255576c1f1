import type { Config } from '../../config.js';
import { FeedRegistry } from '../../services/feed-registry.js';
import { createStorage } from '../../storage/index.js';
import { printTable } from '../output.js';

/** `vulnscope feeds`: registered and loaded feeds with their record counts. */
export async function listFeeds(config: Config, json: boolean): Promise<void> {
  const registry = new FeedRegistry(config.feeds);
  const storage = await createStorage(config.database);
  try {
    const stored = new Map((await storage.advisories.feeds()).map((feed) => [feed.name, feed]));
    const names = [...new Set([...registry.list().map((feed) => feed.name), ...stored.keys()])].sort();
    const rows = names.map((name) => {
      const registered = registry.get(name);
      const loaded = stored.get(name);
      return {
        name,
        adapter: loaded?.adapter ?? registered?.adapter ?? '',
        records: loaded?.recordCount ?? 0,
        loaded: loaded?.loadedAt ? new Date(loaded.loadedAt).toISOString() : 'never',
        source: registered?.source ?? loaded?.source ?? '',
      };
    });
    if (json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else printTable(rows, { name: 'NAME', adapter: 'ADAPTER', records: 'RECORDS', loaded: 'LOADED', source: 'SOURCE' });
  } finally {
    await storage.close();
  }
}
