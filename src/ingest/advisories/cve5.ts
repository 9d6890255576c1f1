/**
 * `mitre-cvelist-v5`: CVE Records (5.x, and CVE JSON 4.0 converted to 5.0) from NDJSON(.gz), a
 * single JSON file (one record, or an array of records), a cvelistV5-style directory tree
 * (`cves/<year>/<n>xxx/CVE-*.json`; other JSON such as `delta.json` is ignored), or a zip of such a
 * tree (including the nested `cves.zip` of cvelistV5 release zips).
 */
import { baseName, LINES_NAME, runAdapter, str } from './common.js';
import { convertCve4 } from './cve4.js';
import { finalizeRecord } from './normalize.js';
import { ConversionError, isObject, type AdvisoryItem, type AdvisoryRecord } from './types.js';

const CVE_FILE = /^CVE-\d{4}-\d{4,}\.json(\.gz)?$/i;

export const acceptCveFile = (path: string) => CVE_FILE.test(baseName(path)) || LINES_NAME.test(path);

export function cveIdOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  if (isObject(value.cveMetadata)) return str(value.cveMetadata.cveId);
  if (isObject(value.CVE_data_meta)) return str(value.CVE_data_meta.ID);
  return undefined;
}

/** One CVE Record 5.x or CVE JSON 4.0 value → a servable record. */
export function convertCveRecord(value: unknown): AdvisoryRecord {
  if (!isObject(value)) throw new ConversionError('not a JSON object');
  if (value.data_type === 'CVE' || isObject(value.CVE_data_meta)) return finalizeRecord(convertCve4(value));
  if (isObject(value.cveMetadata) || isObject(value.containers)) {
    if (value.dataType !== undefined && value.dataType !== 'CVE_RECORD') {
      throw new ConversionError(`dataType is ${JSON.stringify(value.dataType)}, not CVE_RECORD`);
    }
    return finalizeRecord(value);
  }
  throw new ConversionError('not a CVE record (no cveMetadata, no CVE_data_meta)');
}

export function mitreCvelistV5(source: string, feed: string): AsyncIterable<AdvisoryItem> {
  return runAdapter(source, feed, acceptCveFile, [], cveIdOf, (value) => {
    const record = convertCveRecord(value);
    return [{ kind: 'record', record, sourceId: record.cveMetadata.cveId }];
  });
}
