import type { Config } from '../../config.js';
import { confirmingMatcher } from '../../services/matching/source.js';
import type { ReadItem } from '../../core/observation.js';
import { ClassificationResolver } from '../../ingest/classifications/resolver.js';
import { openGeoEnricher } from '../../ingest/enrich/geo.js';
import { runIngest, type IngestSummary } from '../../ingest/pipeline.js';
import { readScanFile, type ScanFormat } from '../../ingest/readers/index.js';
import { createStorage } from '../../storage/index.js';
import { printSummary } from '../output.js';
import { Progress } from '../progress.js';

export interface IngestScansOptions {
  format?: ScanFormat;
  strict?: boolean;
  batchSize?: number;
}

async function* allFiles(files: string[], format: ScanFormat | undefined): AsyncIterable<ReadItem> {
  for (const file of files) yield* readScanFile(file, { format });
}

/** `vulnscope ingest scans FILE…|-`: returns the process exit code. */
export async function ingestScans(config: Config, files: string[], options: IngestScansOptions): Promise<number> {
  const storage = await createStorage(config.database);
  const geo =
    config.asnMmdb || config.countryMmdb || config.asDomainCsv
      ? await openGeoEnricher({
          asnMmdb: config.asnMmdb,
          countryMmdb: config.countryMmdb,
          asDomainCsv: config.asDomainCsv,
          onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
        })
      : undefined;
  const progress = new Progress('ingesting', { unit: 'observations' });
  let summary: IngestSummary;
  try {
    const classifier = new ClassificationResolver(await storage.classificationLists.allEntries());
    summary = await runIngest(
      storage,
      allFiles(files, options.format),
      { geo, classifier, matcher: confirmingMatcher(storage) },
      {
        retentionDays: config.retentionDays,
        batchSize: options.batchSize,
        onRejected: (rejection) => progress.print(`rejected ${rejection.file}:${rejection.line}: ${rejection.reason}`),
        onProgress: (s) => progress.update(s.read, `${s.inserted} new, ${s.updated} updated, ${s.rejected} rejected`),
      },
    );
  } finally {
    progress.finish();
    geo?.close();
    await storage.close();
  }
  printSummary('ingest summary', {
    read: summary.read,
    inserted: summary.inserted,
    updated: summary.updated,
    unchanged: summary.unchanged,
    superseded: summary.superseded,
    expired: summary.expired,
    rejected: summary.rejected,
    seconds: (summary.durationMs / 1000).toFixed(2),
  });
  return options.strict && summary.rejected > 0 ? 1 : 0;
}
