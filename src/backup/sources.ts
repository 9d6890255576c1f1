/**
 * What gets archived: each advisory feed (v4, records of the generation queries see, in the served
 * order) and each v3 index (`target-intel` here; `cpecve`, whose records need the search layer, is
 * defined in services/index-backups.ts and passed in). A source has a version — the feed
 * generation, the hosts change-log sequence, the knowledge generation — so the scheduler can tell
 * whether it changed since its last archive.
 */
import { toTargetIntel } from '../core/target-intel-record.js';
import type { AdvisoryPosition, Storage } from '../storage/index.js';
import type { BackupKind } from './store.js';

const PAGE = 1000;

export interface BackupSource {
  kind: BackupKind;
  name: string;
  description: string;
  /** The current version, or undefined when there is nothing to archive (a feed never loaded). */
  version(): Promise<string | undefined>;
  /** The records of `version` (advisory feeds) or of now (target-intel). */
  records(version: string): AsyncIterable<unknown>;
  /** Whether `version` is still current (checked before an archive is published). */
  stillValid(version: string): Promise<boolean>;
  /** Archives written before this time (epoch ms) are stale whatever their version: records rewritten by an upgrade. */
  staleBefore?(): Promise<number | undefined>;
}

/** The v3 indexes with backups. */
export const V3_INDEXES: ReadonlyArray<{ name: string; description: string; listedBeforeArchive: boolean }> = [
  {
    name: 'target-intel',
    description: 'Target intelligence: observed hosts, services and fingerprints with their CVEs',
    listedBeforeArchive: true,
  },
  {
    name: 'cpecve',
    description: 'CPE names with the CVEs linked to each (as /v3/search/cpe lists them), for offline CPE lookup',
    // Offered once written: a server without CPE names or vulnerability knowledge has nothing to offer.
    listedBeforeArchive: false,
  },
];

export async function* advisoryRecords(storage: Storage, feed: string, generation: number): AsyncIterable<unknown> {
  let after: AdvisoryPosition | undefined;
  for (;;) {
    const page = await storage.advisories.generationPage(feed, generation, after, PAGE);
    for (const hit of page) yield hit.record;
    if (page.length < PAGE) return;
    after = page[page.length - 1];
  }
}

export async function* targetIntelRecords(storage: Storage): AsyncIterable<unknown> {
  let afterId = 0;
  for (;;) {
    const rows = await storage.hosts.scan(afterId, PAGE);
    for (const row of rows) yield toTargetIntel(row);
    if (rows.length < PAGE) return;
    afterId = rows[rows.length - 1]!.id;
  }
}

export function feedSource(storage: Storage, name: string, description: string): BackupSource {
  const generation = async () => (await storage.advisories.feed(name))?.generation ?? 0;
  return {
    kind: 'v4',
    name,
    description,
    async version() {
      const g = await generation();
      return g > 0 ? String(g) : undefined;
    },
    records: (version) => advisoryRecords(storage, name, Number(version)),
    async stillValid(version) {
      return String(await generation()) === version;
    },
    staleBefore: () => storage.advisories.rewrittenAt(),
  };
}

export function targetIntelSource(storage: Storage): BackupSource {
  return {
    kind: 'v3',
    name: 'target-intel',
    description: V3_INDEXES[0]!.description,
    async version() {
      const seq = await storage.hosts.latestChangeSeq();
      return seq > 0 ? String(seq) : undefined;
    },
    records: () => targetIntelRecords(storage),
    // Not a point-in-time snapshot: records changed during the write may or may not be in it, and the
    // next check sees the newer sequence and writes again.
    stillValid: async () => true,
  };
}

/** An advisory feed as the feed registry lists it. */
export interface FeedDescription {
  name: string;
  description: string;
}

/**
 * Every advisory feed (registered or loaded) and every v3 index: target-intel, then `indexes`
 * (the sources defined above this layer, e.g. services/index-backups.ts).
 */
export async function allSources(
  storage: Storage,
  registered: readonly FeedDescription[],
  indexes: readonly BackupSource[] = [],
): Promise<BackupSource[]> {
  const names = new Map<string, string>();
  for (const feed of registered) names.set(feed.name, feed.description);
  for (const feed of await storage.advisories.feeds())
    if (!names.has(feed.name)) names.set(feed.name, feed.description);
  const feeds = [...names]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, description]) => feedSource(storage, name, description));
  return [...feeds, targetIntelSource(storage), ...indexes];
}
