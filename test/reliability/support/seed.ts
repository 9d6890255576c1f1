import type { DatabaseConfig } from '../../../src/config.js';
import { ClassificationResolver } from '../../../src/ingest/classifications/resolver.js';
import { runIngest } from '../../../src/ingest/pipeline.js';
import { confirmingMatcher } from '../../../src/services/matching/source.js';
import { advisory, loadRecords } from '../../advisories/support.js';
import { asItems, observation } from '../../support/app.js';
import { withStorage } from './processes.js';
import { asObservation, scanLines } from './scans.js';

export interface SeedOptions {
  observations: number;
  /** Tokens to create: name → rate limit (a number per window, or 'unlimited'; absent: the server's default). */
  tokens: Record<string, number | 'unlimited' | undefined>;
}

/** Fills a test database through the real pipeline and feed loader, and creates tokens. */
export async function seedDatabase(config: DatabaseConfig, options: SeedOptions): Promise<Record<string, string>> {
  return withStorage(config, async (storage) => {
    const lines = scanLines(7, options.observations).map(asObservation);
    const classifier = new ClassificationResolver([]);
    await runIngest(
      storage,
      asItems(lines.map(observation)),
      { classifier, matcher: confirmingMatcher(storage) },
      { retentionDays: 0 },
    );
    await loadRecords(storage, 'alpha', [advisory('CVE-2024-0001'), advisory('CVE-2024-0002')]);
    const tokens: Record<string, string> = {};
    for (const [name, rateLimit] of Object.entries(options.tokens)) {
      tokens[name] = (await storage.tokens.create(name, rateLimit === undefined ? {} : { rateLimit })).token;
    }
    return tokens;
  });
}
