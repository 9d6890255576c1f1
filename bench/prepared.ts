import fs from 'node:fs';
import path from 'node:path';
import type { DatasetStats } from './dataset.js';

/**
 * What the slow first half of a run (generate, ingest, raw insert) leaves behind, so later runs
 * can measure queries and upkeep on the same dataset without repeating it (`--prepare-only`,
 * then `--reuse`). At 10M records that half takes over an hour.
 */
export interface PreparedDataset {
  /** When the ingest and raw-insert figures were measured. */
  measuredAt: string;
  records: number;
  now: number;
  stats: DatasetStats;
  datasetBytes: number;
  ingest: { seconds: number; maxRssKb: number };
  raw: { rowsPerSecond: number };
}

const FILE = 'prepared.json';
/** The product database as the ingest left it; each reusing run starts from a copy. */
export const PRISTINE = 'product.pristine.db';

export function savePrepared(work: string, prepared: PreparedDataset): void {
  const json = JSON.stringify(prepared, (_key, value: unknown) =>
    value instanceof Map ? { $map: [...value] } : value,
  );
  fs.writeFileSync(path.join(work, FILE), json);
}

export function loadPrepared(work: string): PreparedDataset | undefined {
  const file = path.join(work, FILE);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8'), (_key, value: unknown) =>
    value && typeof value === 'object' && '$map' in value
      ? new Map((value as { $map: Array<[unknown, unknown]> }).$map)
      : value,
  ) as PreparedDataset;
}
