/**
 * Retroactive re-mapping: when knowledge changes for some products, the stored records that run
 * those products (under any of their names) are matched again, in bounded batches, without a
 * rescan. Only records whose confirmed CVEs differ are written, so the index sees real changes only.
 */
import { parseCpe } from '../../core/cpe.js';
import type { KnowledgeCvesUpdate, Storage } from '../../storage/index.js';
import type { HostMatchInput } from '../../core/host-record.js';
import { contextOf, type CveMatcher } from '../../core/matching.js';
import { productKeyOf } from '../../core/applicability/index-keys.js';

export interface RemapSummary {
  /** Records whose CPEs touch a changed product (re-evaluated). */
  examined: number;
  /** Records whose CVEs changed. */
  changed: number;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((value, i) => value === b[i]);

/** Matches stored records again; the updates of those whose confirmed CVEs differ. */
export async function changedKnowledgeCves(
  rows: HostMatchInput[],
  matcher: CveMatcher,
): Promise<KnowledgeCvesUpdate[]> {
  const matches = await matcher.matchAll(rows.map(contextOf));
  return rows.flatMap((row, i) => {
    const knowledgeCves = matches[i]!.confirmed; // one match per context, in order
    if (sameList(knowledgeCves, row.knowledgeCves)) return [];
    // Most records carry no scanner CVEs: sharing the match's own list lets storage serialise it once per context.
    const cves =
      row.scannerCves.length === 0 ? knowledgeCves : [...new Set([...row.scannerCves, ...knowledgeCves])].sort();
    return [{ id: row.id, knowledgeCves, cves, basis: { scannerCves: row.scannerCves, osCpes: row.osCpes } }];
  });
}

function productKeysOf(cpes: string[]): string[] {
  const keys: string[] = [];
  for (const cpe of cpes) {
    try {
      keys.push(productKeyOf(parseCpe(cpe)));
    } catch {
      // An unreadable CPE matches nothing, before or after.
    }
  }
  return keys;
}

/** Which stored records need re-matching: those naming a touched product; `*` parts widen the net. */
export function touchTest(touched: Set<string>): (keys: string[]) => boolean {
  const wildcard = [...touched].filter((key) => key.includes('*')).map((key) => key.split(':'));
  return (keys) =>
    keys.some(
      (key) =>
        touched.has(key) ||
        wildcard.some((pattern) => {
          const parts = key.split(':');
          return pattern.every(
            (value, i) => value === '*' || value === parts[i] || (i === 2 && parts.slice(2).join(':') === value),
          );
        }),
    );
}

/** Walks every stored record and matches again those whose CPEs name a `touched` product (renames already added). */
export async function remapHosts(storage: Storage, matcher: CveMatcher, touched: Set<string>): Promise<RemapSummary> {
  const summary: RemapSummary = { examined: 0, changed: 0 };
  if (touched.size === 0) return summary;
  const touches = touchTest(touched);
  let afterId = 0;
  for (;;) {
    const rows = await storage.hosts.scanMatchInputs(afterId, 1000);
    if (rows.length === 0) break;
    afterId = rows[rows.length - 1]!.id;
    const affected = rows.filter((row) => touches(productKeysOf([...contextOf(row).fingerprintCpes, ...row.osCpes])));
    if (affected.length === 0) continue;
    summary.examined += affected.length;
    summary.changed += await storage.hosts.updateKnowledgeCves(await changedKnowledgeCves(affected, matcher));
  }
  return summary;
}

/**
 * The `onKnowledgeChanged` hook commands pass to loads, syncs and rebuilds. Records are not walked
 * here: the change is in the knowledge change log, which a running server follows
 * (knowledge-remap.ts) and `vulnscope knowledge remap` applies without one.
 */
export function knowledgeChangeReport() {
  const touched = new Set<string>();
  return {
    hook: async (touchedProducts: string[]): Promise<void> => {
      for (const key of touchedProducts) touched.add(key);
    },
    /** `pending` once knowledge changed: a running server re-maps, or `vulnscope knowledge remap` without one. */
    summary: (): Record<string, string | number> => (touched.size > 0 ? { 'records re-mapped': 'pending' } : {}),
  };
}
