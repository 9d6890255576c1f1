import type { Config } from '../../config.js';
import { invalidInput } from '../../core/errors.js';
import {
  ingestCpeDictionary,
  readCpeDictionarySources,
  type CpeDictionaryRejection,
  type CpeDictionarySummary,
} from '../../ingest/knowledge/dictionary.js';
import { rebuildKnowledge, type KnowledgeRefreshSummary } from '../../ingest/knowledge/refresh.js';
import { remapChangedKnowledgeByWalk } from '../../services/matching/knowledge-remap.js';
import { knowledgeChangeReport } from '../../services/matching/remap.js';
import { confirmingMatcher } from '../../services/matching/source.js';
import { createStorage } from '../../storage/index.js';
import type { KnowledgeCounts } from '../../storage/index.js';
import { printSummary } from '../output.js';
import { Progress } from '../progress.js';

export interface IngestCpeDictionaryOptions {
  strict?: boolean;
  batchSize?: number;
}

const rejectionLine = (rejection: CpeDictionaryRejection) => `rejected at ${rejection.at}: ${rejection.reason}`;

/** `vulnscope ingest cpe-dictionary SOURCE…`: returns the process exit code. */
export async function ingestCpeDictionaryCommand(
  config: Config,
  sources: string[],
  options: IngestCpeDictionaryOptions,
): Promise<number> {
  if (sources.length === 0) throw invalidInput('no source given: name CPE dictionary files, directories or zips');
  const storage = await createStorage(config.database);
  const progress = new Progress('loading CPE dictionary', { unit: 'items' });
  const remap = knowledgeChangeReport();
  let summary: CpeDictionarySummary;
  try {
    summary = await ingestCpeDictionary(storage, readCpeDictionarySources(sources), {
      ...(options.batchSize ? { batchSize: options.batchSize } : {}),
      onRejected: (rejection) => progress.print(rejectionLine(rejection)),
      onProgress: (p) => progress.update(p.read, `${p.names.toLocaleString('en-US')} names, ${p.rejected} rejected`),
      onKnowledgeChanged: remap.hook,
    });
  } finally {
    progress.finish();
    await storage.close();
  }
  printSummary('cpe dictionary', {
    read: summary.read,
    products: summary.products,
    'match criteria': summary.matchStrings,
    'names written': summary.names,
    deprecated: summary.deprecated,
    'new renames': summary.aliases,
    rejected: summary.rejected,
    ...remap.summary(),
    seconds: (summary.durationMs / 1000).toFixed(2),
  });
  return options.strict && summary.rejected > 0 ? 1 : 0;
}

/** `vulnscope knowledge rebuild`: re-derives knowledge from the stored advisory feeds. */
export async function knowledgeRebuild(
  config: Config,
  options: { force?: boolean; batchSize?: number },
): Promise<number> {
  const storage = await createStorage(config.database);
  const progress = new Progress('rebuilding knowledge', { unit: 'CVEs' });
  const remap = knowledgeChangeReport();
  let summary: KnowledgeRefreshSummary;
  let counts: KnowledgeCounts;
  try {
    summary = await rebuildKnowledge(storage, {
      ...(options.force ? { force: true } : {}),
      ...(options.batchSize ? { batchSize: options.batchSize } : {}),
      onProgress: (p) => progress.update(p.examined, `${p.cvesChanged.toLocaleString('en-US')} changed`),
      onKnowledgeChanged: remap.hook,
    });
    counts = await storage.knowledge.counts();
  } finally {
    progress.finish();
    await storage.close();
  }
  for (const failure of summary.failed)
    process.stderr.write(`knowledge of ${failure.cveId} not derived: ${failure.reason}\n`);
  printSummary('knowledge rebuild', {
    'CVEs changed': summary.cvesChanged,
    'criteria written': summary.criteria,
    'products touched': summary.touchedProducts.length,
    ...(summary.failed.length > 0 ? { failures: summary.failed.length } : {}),
    'CVEs known': counts.cves,
    criteria: counts.criteria,
    'CPE names': counts.names,
    ...remap.summary(),
    seconds: (summary.durationMs / 1000).toFixed(2),
  });
  return summary.failed.length > 0 ? 1 : 0;
}

/** `vulnscope knowledge remap`: the records of the products changed since the last re-map, matched again. */
export async function knowledgeRemap(config: Config): Promise<number> {
  const storage = await createStorage(config.database);
  const started = performance.now();
  try {
    const summary = await remapChangedKnowledgeByWalk(storage, confirmingMatcher(storage));
    printSummary('knowledge remap', {
      'knowledge generation': summary?.generation ?? (await storage.knowledge.generation()),
      'products changed': summary?.products ?? 0,
      'records re-mapped': summary?.examined ?? 0,
      'records changed': summary?.changed ?? 0,
      ...(summary?.fullWalk ? { 'every record walked': 'yes' } : {}),
      seconds: ((performance.now() - started) / 1000).toFixed(2),
    });
  } finally {
    await storage.close();
  }
  return 0;
}
