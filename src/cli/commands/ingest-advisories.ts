import type { Config } from '../../config.js';
import { invalidInput } from '../../core/errors.js';
import { loadFeedSources, type FeedLoadSummary } from '../../ingest/feeds/load.js';
import { knowledgeChangeReport } from '../../services/matching/remap.js';
import { checkAdapterName, type RegisteredFeed } from '../../ingest/advisories/index.js';
import { FeedRegistry } from '../../services/feed-registry.js';
import { checkFeedName } from '../../core/entitlements.js';
import { createStorage } from '../../storage/index.js';
import { loadGuardOf, type GuardOptions } from '../guard.js';
import { printSummary } from '../output.js';
import { Progress } from '../progress.js';

export interface IngestAdvisoriesOptions extends GuardOptions {
  feed: string;
  adapter?: string;
  description?: string;
  merge?: boolean;
  strict?: boolean;
  batchSize?: number;
}

/** The feed as registered, or an ad-hoc one when `--adapter` names how to read it. */
export function resolveFeed(registry: FeedRegistry, options: IngestAdvisoriesOptions): RegisteredFeed {
  const name = checkFeedName(options.feed.trim().toLowerCase());
  const registered = registry.get(name);
  if (!registered && !options.adapter) {
    throw invalidInput(
      `unknown feed "${name}": use a registered feed (${registry
        .list()
        .map((f) => f.name)
        .join(', ')}) or name its adapter with --adapter`,
    );
  }
  return {
    name,
    adapter: options.adapter ? checkAdapterName(options.adapter, '--adapter') : registered!.adapter,
    description: options.description ?? registered?.description ?? `${name} (${options.adapter})`,
    ...(registered?.source ? { source: registered.source } : {}),
  };
}

export function printLoadSummary(
  feed: string,
  summary: FeedLoadSummary,
  remap?: ReturnType<typeof knowledgeChangeReport>,
): void {
  for (const failure of summary.knowledge?.failed ?? []) {
    process.stderr.write(
      `knowledge of ${failure.cveId} not derived (left as it was; "vulnscope knowledge rebuild" retries): ${failure.reason}\n`,
    );
  }
  printSummary(`feed ${feed}`, {
    read: summary.read,
    added: summary.added,
    updated: summary.updated,
    unchanged: summary.unchanged,
    removed: summary.removed,
    rejected: summary.rejected,
    records: summary.records,
    ...(summary.knowledge
      ? {
          'knowledge CVEs changed': summary.knowledge.cvesChanged,
          'knowledge criteria written': summary.knowledge.criteria,
          'products touched': summary.knowledge.touchedProducts.length,
          ...(summary.knowledge.failed.length > 0 ? { 'knowledge failures': summary.knowledge.failed.length } : {}),
          'knowledge seconds': (summary.knowledge.durationMs / 1000).toFixed(2),
        }
      : {}),
    ...remap?.summary(),
    seconds: (summary.durationMs / 1000).toFixed(2),
  });
}

export const reportRejection = (rejection: { sourceId: string; at: string; reason: string }) =>
  process.stderr.write(`rejected ${rejection.sourceId || '(no id)'} at ${rejection.at}: ${rejection.reason}\n`);

/** `vulnscope ingest advisories --feed NAME [SOURCE…]`: returns the process exit code. */
export async function ingestAdvisories(
  config: Config,
  sources: string[],
  options: IngestAdvisoriesOptions,
): Promise<number> {
  const registry = new FeedRegistry(config.feeds);
  const feed = resolveFeed(registry, options);
  const inputs = sources.length > 0 ? sources : feed.source && !/^https?:/i.test(feed.source) ? [feed.source] : [];
  if (inputs.length === 0) {
    throw invalidInput(
      `no source given for feed "${feed.name}" (a URL source is loaded with "vulnscope sync ${feed.name}")`,
    );
  }
  const storage = await createStorage(config.database);
  const progress = new Progress(`loading ${feed.name}`);
  const remap = knowledgeChangeReport();
  let summary: FeedLoadSummary;
  try {
    summary = await loadFeedSources(storage, feed, inputs, {
      mode: options.merge ? 'merge' : 'replace',
      batchSize: options.batchSize,
      guard: loadGuardOf(options),
      onRejected: reportRejection,
      onProgress: (p) => progress.update(p.read, `${p.rejected} rejected`),
      onKnowledgeChanged: remap.hook,
    });
  } finally {
    progress.finish();
    await storage.close();
  }
  printLoadSummary(feed.name, summary, remap);
  return options.strict && summary.rejected > 0 ? 1 : 0;
}
