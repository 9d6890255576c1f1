import type { Config } from '../../config.js';
import { confirmingMatcher } from '../../services/matching/source.js';
import { ClassificationResolver } from '../../ingest/classifications/resolver.js';
import { demoObservationStream } from '../../ingest/demo/generate.js';
import { runIngest } from '../../ingest/pipeline.js';
import { SCAN_READERS } from '../../ingest/readers/index.js';
import { createStorage } from '../../storage/index.js';
import { serve } from './serve.js';

/**
 * `vulnscope demo`: fills an empty database with the generated demo dataset (through the real
 * NDJSON reader and ingest pipeline), creates a demo token, prints a ready-to-paste curl, serves.
 */
export async function demo(config: Config, options: { records: number; serve: boolean }): Promise<void> {
  const storage = await createStorage(config.database);
  let token: string;
  try {
    if ((await storage.hosts.count()) === 0) {
      process.stderr.write(
        `generating ${options.records.toLocaleString('en-US')} demo observations into ${storage.db.description}\n`,
      );
      const classifier = new ClassificationResolver(await storage.classificationLists.allEntries());
      const items = SCAN_READERS.ndjson(
        demoObservationStream({ count: options.records, now: Date.now() }),
        'demo.ndjson',
      );
      const summary = await runIngest(
        storage,
        items,
        { classifier, matcher: confirmingMatcher(storage) },
        { retentionDays: config.retentionDays },
      );
      process.stderr.write(
        `demo dataset: ${summary.inserted} records (${summary.superseded} superseded by newer scans of the same port)\n`,
      );
    } else {
      process.stderr.write(`${storage.db.description} already has data; not generating the demo dataset\n`);
    }
    token = (await storage.tokens.create('demo')).token;
  } finally {
    await storage.close();
  }
  if (!options.serve) {
    process.stdout.write(`${token}\n`);
    return;
  }
  await serve(config, (server) => {
    const url = `${config.publicUrl}/v3/index/target-intel?contains_cve=true&limit=5`;
    process.stdout.write(
      `\nVulnscope demo is serving on ${server.url}\n` +
        `demo token: ${token}\n\n` +
        `  curl -H 'Authorization: Bearer ${token}' '${url}'\n\n` +
        `Stop with Ctrl-C.\n`,
    );
  });
}
