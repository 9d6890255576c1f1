import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import type { AdvisoryRecord } from '../../src/ingest/advisories/types.js';
import { SHARED_DATA } from '../support/cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-knowledge-data-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

export const CPE_DICTIONARY_SAMPLES = path.join(SHARED_DATA, 'cpe/nvd_cpe_dictionary_api2_samples.jsonl');
export const CPE_MATCH_SAMPLES = path.join(SHARED_DATA, 'cpe/nvd_cpematch_api2_samples.jsonl');

/** A temporary directory removed when the process exits. */
export const tempDir = (name: string) => fs.mkdtempSync(path.join(tmp, `${name}-`));

/** The first `count` lines of a gzipped JSON Lines file of the shared data, as a temporary file. */
export async function firstLines(relative: string, count: number): Promise<string> {
  const target = path.join(tmp, `${path.basename(relative).replace(/\.(jsonl|ndjson)\.gz$/, '')}-${count}.jsonl`);
  if (fs.existsSync(target)) return target;
  const input = fs.createReadStream(path.join(SHARED_DATA, relative)).pipe(zlib.createGunzip());
  const lines: string[] = [];
  const reader = readline.createInterface({ input, crlfDelay: Infinity });
  for await (const line of reader) {
    if (line.trim() !== '') lines.push(line);
    if (lines.length >= count) break;
  }
  reader.close();
  input.destroy();
  fs.writeFileSync(target, `${lines.join('\n')}\n`);
  return target;
}

/** A CVE record in the served shape with just the parts a test needs. */
export function advisory(cveId: string, cna: Record<string, unknown> = {}): AdvisoryRecord {
  return {
    dataType: 'CVE_RECORD',
    dataVersion: '5.0',
    cveMetadata: { cveId, state: 'PUBLISHED' },
    containers: { cna: { descriptions: [{ lang: 'en', value: `${cveId} test record` }], ...cna } },
  };
}
