/**
 * Re-mapping stored records after knowledge changes, driven by the knowledge change log
 * (`knowledge_product_changes`): the products the new generations touched, and the products
 * renamed to or from them, select through the served host index the records whose fingerprints
 * name them; those are matched again and the ones whose CVEs changed are written, which the host
 * change log carries to every server's index. The generation done is saved after the last batch,
 * so a restart runs an unfinished generation again (writing only what still differs).
 */
import type { CveMatcher } from '../../core/matching.js';
import { takeTurn } from '../../search/loop-turns.js';
import { getSetting, putSetting, type ProductChanges, type Storage } from '../../storage/index.js';
import { changedKnowledgeCves, remapHosts, touchTest } from './remap.js';
import { remapToCurrentRules, requestFullRemap } from './rules-remap.js';

const SETTING = 'knowledge_remap';

/** The records a set of product keys can affect: the served index answers this. */
export interface RecordsByProduct {
  idsNamingProducts(accepts: (productKey: string) => boolean): number[];
}

export interface KnowledgeRemapSummary {
  /** The knowledge generation the records now follow. */
  generation: number;
  /** Products the generations since the last run touched (renames included). */
  products: number;
  /** Records re-matched. */
  examined: number;
  /** Records whose CVEs changed. */
  changed: number;
  /** The change log no longer reached back far enough: every record is re-mapped by the full walk. */
  fullWalk: boolean;
}

export interface KnowledgeRemapOptions {
  batchSize?: number;
  /** Checked between batches: true stops the run (the generation stays to do). */
  stopped?: () => boolean;
}

/** The knowledge generation stored records were last re-mapped to, if any run finished. */
export async function remappedGeneration(storage: Storage): Promise<number | undefined> {
  const text = await getSetting(storage.db, SETTING);
  return text === undefined ? undefined : (JSON.parse(text) as { generation: number }).generation;
}

const saveGeneration = (storage: Storage, generation: number) =>
  putSetting(storage.db, SETTING, JSON.stringify({ generation }));

/**
 * The changes since the last re-map, if any. On the first run, a database without records has
 * nothing to re-map (every record to come is matched on ingest); one with records starts from the
 * beginning of the log, since nothing says which knowledge its records met.
 */
async function pendingChanges(storage: Storage): Promise<ProductChanges | undefined> {
  let done = await remappedGeneration(storage);
  if (done === undefined) {
    if ((await storage.hosts.scanMatchInputs(0, 1)).length === 0) {
      await saveGeneration(storage, await storage.knowledge.generation());
      return undefined;
    }
    done = 0;
  }
  const changes = await storage.knowledge.productChangesSince(done);
  return changes.generation > done ? changes : undefined;
}

/** The changed products and every product renamed to or from one of them. */
async function withRenames(storage: Storage, changes: ProductChanges): Promise<Set<string>> {
  const touched = new Set(changes.changes.keys());
  for (const targets of (await storage.knowledge.aliasesOf([...touched])).values())
    for (const key of targets) touched.add(key);
  return touched;
}

const emptySummary = (changes: ProductChanges): KnowledgeRemapSummary => ({
  generation: changes.generation,
  products: changes.changes.size,
  examined: 0,
  changed: 0,
  fullWalk: !changes.complete,
});

/** Re-maps the records the knowledge changes since the last run can affect; undefined when there were none. */
export async function remapChangedKnowledge(
  storage: Storage,
  records: RecordsByProduct,
  matcher: CveMatcher,
  options: KnowledgeRemapOptions = {},
): Promise<KnowledgeRemapSummary | undefined> {
  const changes = await pendingChanges(storage);
  if (!changes) return undefined;
  const summary = emptySummary(changes);
  if (!changes.complete) {
    await requestFullRemap(storage);
    await saveGeneration(storage, changes.generation);
    return summary;
  }
  const touched = await withRenames(storage, changes);
  summary.products = touched.size;
  const touches = touchTest(touched);
  const ids = records.idsNamingProducts((key) => touches([key]));
  const batchSize = options.batchSize ?? 200;
  for (let start = 0; start < ids.length; start += batchSize) {
    if (options.stopped?.()) return summary;
    await takeTurn();
    const rows = await storage.hosts.matchInputsOf(ids.slice(start, start + batchSize));
    summary.changed += await storage.hosts.updateKnowledgeCves(await changedKnowledgeCves(rows, matcher));
    summary.examined += rows.length;
  }
  await saveGeneration(storage, changes.generation);
  return summary;
}

/**
 * The same re-map without a server's index (`vulnscope knowledge remap`): the records are found by
 * walking the table, and a change log that no longer reaches back re-maps every record at once.
 */
export async function remapChangedKnowledgeByWalk(
  storage: Storage,
  matcher: CveMatcher,
): Promise<KnowledgeRemapSummary | undefined> {
  const changes = await pendingChanges(storage);
  if (!changes) return undefined;
  const summary = emptySummary(changes);
  if (changes.complete) {
    const touched = await withRenames(storage, changes);
    summary.products = touched.size;
    const walk = await remapHosts(storage, matcher, touched);
    summary.examined = walk.examined;
    summary.changed = walk.changed;
  } else {
    await requestFullRemap(storage);
    const walk = await remapToCurrentRules(storage, matcher);
    summary.examined = walk.examined;
    summary.changed = walk.changed;
  }
  await saveGeneration(storage, changes.generation);
  return summary;
}
