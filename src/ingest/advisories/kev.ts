/**
 * `cisa-kev`: the CISA Known Exploited Vulnerabilities catalog (`{title, catalogVersion,
 * dateReleased, count, vulnerabilities: [...]}`, plain or gzipped; `vulnerabilities` is streamed),
 * or JSON Lines of catalog entries. One record per entry. Mapping: docs/advisory-feeds.md#cisa-kev.
 */
import { JSON_NAME, LINES_NAME, runAdapter, str, strings } from './common.js';
import { CVE_ID, finalizeRecord, utcTimestamp } from './normalize.js';
import { ConversionError, isObject, type AdvisoryItem, type AdvisoryRecord, type JsonObject } from './types.js';

/** Catalog files in a directory or zip (the catalog's JSON Schema file is not one). */
export const acceptKevFile = (path: string) => (JSON_NAME.test(path) || LINES_NAME.test(path)) && !/schema/i.test(path);

export const kevIdOf = (value: unknown) => (isObject(value) ? str(value.cveID) : undefined);

/** URLs in the free-text `notes` (separated by ` ; `), trailing punctuation trimmed, de-duplicated. */
export function urlsInNotes(notes: string): string[] {
  const urls = (notes.match(/https?:\/\/[^\s;]+/g) ?? []).map((u) => u.replace(/[.,)\]]+$/, ''));
  return [...new Set(urls)];
}

const ENTRY_MAPPED = new Set(['cveID', 'vendorProject', 'product', 'shortDescription']);

/** One KEV catalog entry (+ the catalog header read before the array) → a servable record. */
export function convertKevEntry(entry: unknown, header: JsonObject | undefined): AdvisoryRecord {
  if (!isObject(entry)) throw new ConversionError('KEV entry is not an object');
  const cveId = str(entry.cveID)?.trim();
  if (!cveId || !CVE_ID.test(cveId)) throw new ConversionError(`cveID is not a CVE id: ${JSON.stringify(entry.cveID)}`);
  const dateAdded = str(entry.dateAdded);
  const cveMetadata: JsonObject = { cveId, state: 'PUBLISHED' };
  if (dateAdded) cveMetadata.datePublished = utcTimestamp(dateAdded.trim());
  const released = str(header?.dateReleased);
  const updated = released ? utcTimestamp(released.trim()) : (cveMetadata.datePublished as string | undefined);
  if (updated) cveMetadata.dateUpdated = updated;

  // The provider's org id and short name are the feed's (runAdapter): the catalog names no CVE org.
  const cna: JsonObject = { providerMetadata: { ...(updated ? { dateUpdated: updated } : {}) } };
  if (str(entry.vulnerabilityName)) cna.title = entry.vulnerabilityName;
  if (str(entry.shortDescription)) cna.descriptions = [{ lang: 'en', value: entry.shortDescription }];
  if (str(entry.vendorProject) || str(entry.product)) {
    cna.affected = [{ vendor: str(entry.vendorProject) ?? 'n/a', product: str(entry.product) ?? 'n/a' }];
  }
  const notes = typeof entry.notes === 'string' ? entry.notes : '';
  const references = urlsInNotes(notes).map((url) => ({ url }));
  if (references.length > 0) cna.references = references;
  const cwes = strings(entry.cwes).filter((c) => c.trim() !== '');
  if (cwes.length > 0) {
    cna.problemTypes = [
      { descriptions: cwes.map((c) => ({ lang: 'en', type: 'CWE', cweId: c.trim(), description: c.trim() })) },
    ];
  }
  // Everything KEV-specific, verbatim (and any member a newer catalog adds).
  const kev: JsonObject = {};
  for (const [key, value] of Object.entries(entry))
    if (!ENTRY_MAPPED.has(key) || typeof value !== 'string') kev[key] = value;
  if (str(header?.catalogVersion)) kev.catalogVersion = header!.catalogVersion;
  cna.x_kev = kev;
  return finalizeRecord({ dataType: 'CVE_RECORD', dataVersion: '5.0', cveMetadata, containers: { cna } });
}

export function cisaKev(source: string, feed: string): AsyncIterable<AdvisoryItem> {
  return runAdapter(source, feed, acceptKevFile, ['vulnerabilities'], kevIdOf, (value, header) => {
    const record = convertKevEntry(value, header);
    return [{ kind: 'record', record, sourceId: record.cveMetadata.cveId }];
  });
}
