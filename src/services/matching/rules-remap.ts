/**
 * Brings stored records up to the current matching rules (MATCHING_RULES_VERSION) in the
 * background: records are re-matched in id order, batch by batch, and the position is saved after
 * each batch, so a restarted server continues where the last one stopped. New records are matched
 * by the current rules as they are ingested, so the walk ends at the last record it finds.
 */
import { MATCHING_RULES_VERSION, type CveMatcher } from '../../core/matching.js';
import { changedKnowledgeCves } from './remap.js';
import { takeTurn } from '../../search/loop-turns.js';
import { getSetting, putSetting, type Storage } from '../../storage/index.js';

const SETTING = 'matching_rules';

/** The rules the stored records were matched by; `afterId` is set while a re-map to `version` is under way. */
export interface RulesState {
  version: number;
  afterId?: number;
}

export interface RulesRemapSummary {
  /** Records re-matched by this run. */
  examined: number;
  /** Records whose CVEs changed. */
  changed: number;
  /** The last record id done (saved). */
  afterId: number;
  /** Whether every record now follows the current rules. */
  complete: boolean;
}

export interface RulesRemapOptions {
  batchSize?: number;
  /** Checked between batches: true stops the run (its position is saved). */
  stopped?: () => boolean;
  onProgress?: (summary: RulesRemapSummary) => void;
}

export async function readRulesState(storage: Storage): Promise<RulesState | undefined> {
  const text = await getSetting(storage.db, SETTING);
  return text === undefined ? undefined : (JSON.parse(text) as RulesState);
}

const writeRulesState = (storage: Storage, state: RulesState) => putSetting(storage.db, SETTING, JSON.stringify(state));

/** Makes the next run walk every record again (the knowledge change log no longer reaches back far enough). */
export const requestFullRemap = (storage: Storage) =>
  writeRulesState(storage, { version: MATCHING_RULES_VERSION, afterId: 0 });

/** Where a run starts: undefined when the records already follow the current rules. */
async function startingPoint(storage: Storage): Promise<number | undefined> {
  const state = await readRulesState(storage);
  if (state?.version === MATCHING_RULES_VERSION) return state.afterId;
  if (state === undefined && (await storage.hosts.scanMatchInputs(0, 1)).length === 0) {
    // A database without records has nothing matched by older rules.
    await writeRulesState(storage, { version: MATCHING_RULES_VERSION });
    return undefined;
  }
  await writeRulesState(storage, { version: MATCHING_RULES_VERSION, afterId: 0 });
  return 0;
}

export async function remapToCurrentRules(
  storage: Storage,
  matcher: CveMatcher,
  options: RulesRemapOptions = {},
): Promise<RulesRemapSummary> {
  const start = await startingPoint(storage);
  const summary: RulesRemapSummary = { examined: 0, changed: 0, afterId: start ?? 0, complete: start === undefined };
  if (start === undefined) return summary;
  const batchSize = options.batchSize ?? 200;
  for (;;) {
    if (options.stopped?.()) return summary;
    await takeTurn();
    const rows = await storage.hosts.scanMatchInputs(summary.afterId, batchSize);
    if (rows.length === 0) break;
    summary.changed += await storage.hosts.updateKnowledgeCves(await changedKnowledgeCves(rows, matcher));
    summary.examined += rows.length;
    summary.afterId = rows[rows.length - 1]!.id;
    await writeRulesState(storage, { version: MATCHING_RULES_VERSION, afterId: summary.afterId });
    options.onProgress?.({ ...summary });
  }
  await writeRulesState(storage, { version: MATCHING_RULES_VERSION });
  summary.complete = true;
  return summary;
}
