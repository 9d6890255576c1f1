import type { Config } from '../../config.js';
import { normaliseClassification } from '../../core/classification.js';
import { loadClassificationList } from '../../ingest/classifications/apply.js';
import { readTagMap } from '../../ingest/classifications/read-list.js';
import { createStorage } from '../../storage/index.js';
import { printSummary } from '../output.js';

export interface IngestClassificationsOptions {
  as?: string;
  ipColumn?: string;
  tagColumn?: string;
  map?: string;
  name?: string;
  strict?: boolean;
}

/** `vulnscope ingest classifications FILE`: returns the process exit code. */
export async function ingestClassifications(
  config: Config,
  file: string,
  options: IngestClassificationsOptions,
): Promise<number> {
  if (options.as) normaliseClassification(options.as);
  const map = options.map ? await readTagMap(options.map) : undefined;
  const storage = await createStorage(config.database);
  try {
    const summary = await loadClassificationList(storage, file, {
      as: options.as,
      ipColumn: options.ipColumn,
      tagColumn: options.tagColumn,
      map,
      name: options.name,
      onRejected: (rejection) =>
        process.stderr.write(`rejected ${rejection.file}:${rejection.line}: ${rejection.reason}\n`),
    });
    printSummary(`classification list "${summary.list}"`, {
      entries: summary.entries,
      rejected: summary.rejected,
      'records checked': summary.recordsChecked,
      'records changed': summary.recordsChanged,
      seconds: (summary.durationMs / 1000).toFixed(2),
    });
    return options.strict && summary.rejected > 0 ? 1 : 0;
  } finally {
    await storage.close();
  }
}
