import type { Config } from '../../config.js';
import { confirmingMatcher } from '../../services/matching/source.js';
import { VulnscopeError } from '../../core/errors.js';
import { counted } from '../../core/load-guard.js';
import type { ReadItem } from '../../core/observation.js';
import { ClassificationResolver } from '../../ingest/classifications/resolver.js';
import { openGeoEnricher } from '../../ingest/enrich/geo.js';
import { runIngest, type IngestSummary } from '../../ingest/pipeline.js';
import { readNmapServiceProbes } from '../../ingest/product-names/nmap-probes.js';
import { readScanFile, type ScanFormat } from '../../ingest/readers/index.js';
import { createStorage } from '../../storage/index.js';
import { printSummary } from '../output.js';
import { Progress } from '../progress.js';

export interface IngestScansOptions {
  format?: ScanFormat;
  strict?: boolean;
  batchSize?: number;
}

/**
 * The items of every file in turn. A file that cannot be read or decoded, or from which nothing
 * could be read (empty, of another kind), ends with one error naming it: reported (`onUnreadable`)
 * in one line, and the next file is read; what was read before it in that file stays read.
 */
async function* allFiles(
  files: string[],
  format: ScanFormat | undefined,
  onUnreadable: (message: string) => void,
): AsyncIterable<ReadItem> {
  for (const file of files) {
    try {
      yield* readScanFile(file, { format });
    } catch (error) {
      if (!(error instanceof VulnscopeError && error.code === 'unreadable_input')) throw error;
      onUnreadable(error.message);
    }
  }
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
  let unreadable = 0;
  const onUnreadable = (message: string) => {
    unreadable++;
    progress.print(`vulnscope: ${message}`);
  };
  try {
    const classifier = new ClassificationResolver(await storage.classificationLists.allEntries());
    const productNames = config.nmapServiceProbes ? await readNmapServiceProbes(config.nmapServiceProbes) : undefined;
    summary = await runIngest(
      storage,
      allFiles(files, options.format, onUnreadable),
      { geo, classifier, matcher: confirmingMatcher(storage), ...(productNames ? { productNames } : {}) },
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
  // When no input gave anything, the line per input that said why is the whole report.
  if (unreadable === 0 || summary.read > 0) printIngestSummary(summary);
  if (summary.expired > 0) process.stderr.write(`${droppedAsOld(summary.expired, config.retentionDays)}\n`);
  if (unreadable > 0) return 1;
  return options.strict && summary.rejected > 0 ? 1 : 0;
}

/** Observations dropped for their age, the window, and what changes it (old samples otherwise look like a failure). */
function droppedAsOld(count: number, retentionDays: number): string {
  const were = count === 1 ? 'was' : 'were';
  return `${counted(count, 'observation')} ${were} older than the ${retentionDays}-day retention window and ${were} not stored (--retention-days N before the command, or VULNSCOPE_RETENTION_DAYS, sets the window; 0 keeps everything)`;
}

function printIngestSummary(summary: IngestSummary): void {
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
}
