/**
 * The v3 index backups whose records need more than storage: `cpecve`, every CPE name with the
 * CVEs linked to it as `/v3/search/cpe` lists them (default `isVulnerable=false`), in the search's
 * ascending order. Each record is a search data item (`cpe`, `cpe_struct`, `cves`) plus the flat
 * columns the official CLI's offline import reads (`vendor` … `other` as WFN values, `cpe23Uri`).
 * The backup worker thread loads this module by its URL (INDEX_SOURCE_MODULE) to build its source.
 */
import { CPE_ATTRIBUTES, cpeStruct, parseCpe } from '../core/cpe.js';
import type { BackupSource } from '../backup/sources.js';
import { V3_INDEXES } from '../backup/sources.js';
import { CpeCveIndex } from '../search/cpe-cves/cpe-cve-index.js';
import type { Storage } from '../storage/index.js';

const PAGE = 500;
/** Criteria rows the writer's own product structures may hold: bounded memory, whatever the data. */
const WRITER_ROWS = 500_000;

export const INDEX_SOURCE_MODULE = import.meta.url;

export async function* cpeCveRecords(storage: Storage): AsyncIterable<unknown> {
  const index = new CpeCveIndex(storage.knowledge, { maxRows: WRITER_ROWS });
  let after: string | undefined;
  for (;;) {
    const names = await storage.knowledge.cpeNamePage(after, PAGE);
    if (names.length === 0) return;
    const cpes = names.map((name) => name.cpe);
    const cves = await index.cvesOfNames(cpes, false);
    for (let i = 0; i < cpes.length; i++) {
      const cpe = cpes[i]!;
      const struct = cpeStruct(parseCpe(cpe));
      yield { cpe, cpe_struct: struct, cves: cves[i] ?? [], ...flatColumns(struct), cpe23Uri: cpe };
    }
    if (names.length < PAGE) return;
    after = names[names.length - 1]!.id;
  }
}

const FLAT = CPE_ATTRIBUTES.filter((attribute) => attribute !== 'part');

const flatColumns = (struct: Record<string, string>) =>
  Object.fromEntries(FLAT.map((attribute) => [attribute, struct[attribute]]));

export function cpeCveSource(storage: Storage): BackupSource {
  const description = V3_INDEXES.find((index) => index.name === 'cpecve')!.description;
  return {
    kind: 'v3',
    name: 'cpecve',
    description,
    async version() {
      const generation = await storage.knowledge.generation();
      return generation > 0 ? String(generation) : undefined;
    },
    records: () => cpeCveRecords(storage),
    // Like target-intel, not a point-in-time snapshot: a newer generation is written at the next check.
    stillValid: async () => true,
  };
}

/** The index sources defined above the backup layer, by name (the worker's entry point). */
export function indexSource(storage: Storage, name: string): BackupSource | undefined {
  return name === 'cpecve' ? cpeCveSource(storage) : undefined;
}

export const indexSources = (storage: Storage): BackupSource[] => [cpeCveSource(storage)];
