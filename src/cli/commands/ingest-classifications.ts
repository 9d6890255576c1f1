import path from 'node:path';
import type { Config } from '../../config.js';
import { normaliseClassification } from '../../core/classification.js';
import { loadClassificationList } from '../../ingest/classifications/apply.js';
import { readTagMap } from '../../ingest/classifications/read-list.js';
import { createStorage } from '../../storage/index.js';
import { loadGuardOf, type GuardOptions } from '../guard.js';
import { printSummary } from '../output.js';
import { Progress } from '../progress.js';

export interface IngestClassificationsOptions extends GuardOptions {
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
  const reading = new Progress(`reading ${path.basename(file)}`, { unit: 'lines' });
  const applying = new Progress('re-applying classifications', { unit: 'records' });
  try {
    const summary = await loadClassificationList(storage, file, {
      as: options.as,
      ipColumn: options.ipColumn,
      tagColumn: options.tagColumn,
      map,
      name: options.name,
      onProgress: (p) => {
        if (p.phase === 'reading') return reading.update(p.done);
        reading.finish();
        applying.setTotal(p.total);
        applying.update(p.done);
      },
      guard: loadGuardOf(options),
      onRejected: (rejection) => reading.print(`rejected ${rejection.file}:${rejection.line}: ${rejection.reason}`),
    });
    reading.finish();
    applying.finish();
    printSummary(`classification list "${summary.list}"`, {
      entries: summary.entries,
      rejected: summary.rejected,
      'records checked': summary.recordsChecked,
      'records changed': summary.recordsChanged,
      seconds: (summary.durationMs / 1000).toFixed(2),
    });
    return options.strict && summary.rejected > 0 ? 1 : 0;
  } finally {
    reading.finish();
    applying.finish();
    await storage.close();
  }
}
