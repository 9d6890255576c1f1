import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AdvisoryRecord } from '../../src/ingest/advisories/types.js';
import { fixture } from '../support/fixtures.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-knowledge-data-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

export const CPE_DICTIONARY_SAMPLES = fixture('cpe/nvd_cpe_dictionary_api2_samples.jsonl');
export const CPE_MATCH_SAMPLES = fixture('cpe/nvd_cpematch_api2_samples.jsonl');

/** A temporary directory removed when the process exits. */
export const tempDir = (name: string) => fs.mkdtempSync(path.join(tmp, `${name}-`));

/** A CVE record in the served shape with just the parts a test needs. */
export function advisory(cveId: string, cna: Record<string, unknown> = {}): AdvisoryRecord {
  return {
    dataType: 'CVE_RECORD',
    dataVersion: '5.0',
    cveMetadata: { cveId, state: 'PUBLISHED' },
    containers: { cna: { descriptions: [{ lang: 'en', value: `${cveId} test record` }], ...cna } },
  };
}
