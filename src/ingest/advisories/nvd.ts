/**
 * `nist-nvd2`: NVD CVE API 2.0 records — an API page (`{resultsPerPage, …, vulnerabilities:
 * [{cve}]}`, possibly gzipped; `vulnerabilities` is streamed), a feed file of the same shape, JSON
 * Lines of `{cve}` or `cve` objects, or a directory/zip of files holding one `cve` object each.
 * Mapping: docs/advisory-feeds.md#nist-nvd2.
 */
import { parseCpe, unquoteWfnValue, ANY, NA, type Wfn } from '../../core/cpe.js';
import { UUID_PATTERN } from '../../core/uuid.js';
import { extensionKey, JSON_NAME, LINES_NAME, list, runAdapter, str, strings, type Convert } from './common.js';
import { NVD_CVSS_KEYS } from './cvss.js';
import { finalizeRecord, utcTimestamp } from './normalize.js';
import { ConversionError, isObject, type AdvisoryItem, type AdvisoryRecord, type JsonObject } from './types.js';

/** NVD reference tags → the CVE 5 reference tag vocabulary (others: lower-cased, spaces → `-`). */
const REFERENCE_TAGS: Record<string, string> = {
  'Broken Link': 'broken-link',
  'Customer Entitlement': 'permissions-required',
  Exploit: 'exploit',
  'Issue Tracking': 'issue-tracking',
  'Mailing List': 'mailing-list',
  Mitigation: 'mitigation',
  'Not Applicable': 'not-applicable',
  Patch: 'patch',
  'Permissions Required': 'permissions-required',
  'Press/Media Coverage': 'media-coverage',
  Product: 'product',
  'Release Notes': 'release-notes',
  'Technical Description': 'technical-description',
  'Third Party Advisory': 'third-party-advisory',
  'Tool Signature': 'signature',
  'US Government Resource': 'government-resource',
  'VDB Entry': 'vdb-entry',
  'Vendor Advisory': 'vendor-advisory',
};
// Own keys only: a tag such as `constructor` must not find what every object inherits.
const referenceTag = (tag: string) =>
  (Object.hasOwn(REFERENCE_TAGS, tag) ? REFERENCE_TAGS[tag] : undefined) ??
  tag
    .trim()
    .toLowerCase()
    .replace(/[\s/]+/g, '-');

/** NVD's own source identifier: the analysis in `configurations` is NVD's. */
export const NVD_SOURCE = 'nvd@nist.gov';

const HANDLED = new Set([
  'id',
  'sourceIdentifier',
  'published',
  'lastModified',
  'vulnStatus',
  'descriptions',
  'references',
  'weaknesses',
  'metrics',
  'configurations',
  'cveTags',
  'affected',
  'cisaExploitAdd',
  'cisaActionDue',
  'cisaRequiredAction',
  'cisaVulnerabilityName',
]);

const ARRAY_MEMBERS = new Set(['descriptions', 'references', 'weaknesses', 'configurations', 'cveTags', 'affected']);

export const acceptNvdFile = (path: string) => JSON_NAME.test(path) || LINES_NAME.test(path);

/** The `cve` object of a value: `{cve: {...}}` (API/feed element) or a bare `cve` object. */
function cveOf(value: unknown): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  if (isObject(value.cve)) return value.cve;
  if (typeof value.id === 'string' && ('sourceIdentifier' in value || 'descriptions' in value || 'vulnStatus' in value))
    return value;
  return undefined;
}

export const nvdIdOf = (value: unknown) => str(cveOf(value)?.id);

function convertMetrics(metrics: unknown): JsonObject[] {
  const out: JsonObject[] = [];
  if (!isObject(metrics)) return out;
  for (const [listName, entries] of Object.entries(metrics)) {
    const key = Object.hasOwn(NVD_CVSS_KEYS, listName) ? NVD_CVSS_KEYS[listName] : undefined; // own keys, as above
    for (const entry of list(entries).filter(isObject)) {
      const { cvssData, ssvcData, ...rest } = entry;
      const metric: JsonObject = {};
      if (key && isObject(cvssData)) {
        metric.format = 'CVSS';
        metric[key] = { ...cvssData };
      } else if (/^ssvc/i.test(listName) && isObject(ssvcData)) {
        // As the CISA ADP container of CVE 5 records carries SSVC.
        metric.other = { type: 'ssvc', content: ssvcData };
      } else {
        metric.other = { type: listName, content: entry };
        out.push(metric);
        continue;
      }
      // source, type (Primary/Secondary), exploitabilityScore, impactScore, v2 baseSeverity and flags.
      if (Object.keys(rest).length > 0) metric.x_nvd = rest;
      out.push(metric);
    }
  }
  return out;
}

function convertWeaknesses(weaknesses: unknown): JsonObject[] {
  return list(weaknesses)
    .filter(isObject)
    .map((w) => {
      const entry: JsonObject = {
        descriptions: list(w.description)
          .filter(isObject)
          .filter((d) => str(d.value) !== undefined)
          .map((d) => {
            const value = (d.value as string).trim();
            const out: JsonObject = { lang: str(d.lang) ?? 'en', description: value };
            if (/^CWE-\d+$/.test(value)) {
              out.cweId = value;
              out.type = 'CWE';
            } else out.type = 'text'; // NVD-CWE-Other, NVD-CWE-noinfo
            return out;
          }),
      };
      if (str(w.source)) entry.x_source = w.source;
      if (str(w.type)) entry.x_type = w.type;
      return entry;
    })
    .filter((p) => (p.descriptions as unknown[]).length > 0);
}

function plainValue(wfnValue: string): string | undefined {
  return wfnValue === ANY || wfnValue === NA ? undefined : unquoteWfnValue(wfnValue);
}

/**
 * `affected` entries derived from the vulnerable `cpeMatch` criteria of NVD's configurations, one
 * per vendor/product: `cpes` lists the criteria, `versions` their version ranges (CVE 5 form),
 * `defaultStatus` is `affected` when some criterion matches every version, else `unaffected`.
 * Platform conditions of AND configurations are not expressible here (they stay in `cpeApplicability`).
 */
export function affectedFromConfigurations(configurations: unknown): JsonObject[] {
  const byProduct = new Map<
    string,
    { entry: JsonObject; cpes: Set<string>; versions: Map<string, JsonObject>; all: boolean }
  >();
  for (const configuration of list(configurations).filter(isObject)) {
    for (const node of list(configuration.nodes).filter(isObject)) {
      for (const match of list(node.cpeMatch).filter(isObject)) {
        if (match.vulnerable !== true || typeof match.criteria !== 'string') continue;
        let wfn: Wfn;
        try {
          wfn = parseCpe(match.criteria);
        } catch {
          continue; // kept verbatim in cpeApplicability / x_nvdConfigurations
        }
        const vendor = plainValue(wfn.vendor) ?? '*';
        const product = plainValue(wfn.product) ?? '*';
        const key = `${vendor}\u0000${product}`;
        let group = byProduct.get(key);
        if (!group) {
          group = { entry: { vendor, product }, cpes: new Set(), versions: new Map(), all: false };
          byProduct.set(key, group);
        }
        group.cpes.add(match.criteria);
        const startIncluding = str(match.versionStartIncluding);
        const startExcluding = str(match.versionStartExcluding);
        const endIncluding = str(match.versionEndIncluding);
        const endExcluding = str(match.versionEndExcluding);
        const add = (v: JsonObject) => group.versions.set(JSON.stringify(v), v);
        if (startIncluding || startExcluding || endIncluding || endExcluding) {
          const v: JsonObject = { version: startIncluding ?? startExcluding ?? '0', status: 'affected' };
          if (endExcluding) v.lessThan = endExcluding;
          else if (endIncluding) v.lessThanOrEqual = endIncluding;
          else v.lessThan = '*';
          v.versionType = 'custom';
          add(v);
          if (startExcluding && !startIncluding) add({ version: startExcluding, status: 'unaffected' });
        } else {
          const version = plainValue(wfn.version);
          if (version === undefined) {
            group.all = true;
            continue;
          }
          const update = plainValue(wfn.update);
          add({ version: update ? `${version}-${update}` : version, status: 'affected' });
        }
      }
    }
  }
  return [...byProduct.values()].map(({ entry, cpes, versions, all }) => {
    entry.cpes = [...cpes];
    if (versions.size > 0) entry.versions = [...versions.values()];
    entry.defaultStatus = all ? 'affected' : 'unaffected';
    entry.x_source = NVD_SOURCE;
    return entry;
  });
}

/** One NVD CVE API 2.0 `cve` object → a servable record. */
export function convertNvdCve(cve: JsonObject): AdvisoryRecord {
  const cveId = str(cve.id);
  if (!cveId) throw new ConversionError('NVD cve object without id');
  const vulnStatus = str(cve.vulnStatus);
  const state = vulnStatus?.toLowerCase() === 'rejected' ? 'REJECTED' : 'PUBLISHED';
  const cveMetadata: JsonObject = { cveId: cveId.trim(), state };
  const sourceIdentifier = str(cve.sourceIdentifier);
  if (sourceIdentifier && UUID_PATTERN.test(sourceIdentifier)) cveMetadata.assignerOrgId = sourceIdentifier;
  if (str(cve.published)) cveMetadata.datePublished = utcTimestamp(cve.published as string);
  if (str(cve.lastModified)) cveMetadata.dateUpdated = utcTimestamp(cve.lastModified as string);

  const cna: JsonObject = {};
  // The provider is the feed (runAdapter): this container holds NVD's analysis beside the CNA's data.
  const providerMetadata: JsonObject = {};
  if (cveMetadata.dateUpdated) providerMetadata.dateUpdated = cveMetadata.dateUpdated;
  if (Object.keys(providerMetadata).length > 0) cna.providerMetadata = providerMetadata;

  const descriptions = list(cve.descriptions)
    .filter(isObject)
    .filter((d) => str(d.value) !== undefined)
    .map((d) => ({ lang: str(d.lang) ?? 'en', value: d.value }));
  if (descriptions.length > 0) cna.descriptions = descriptions;
  if (state === 'REJECTED' && descriptions.length > 0)
    cna.rejectedReasons = descriptions.filter((d) => d.lang === 'en');

  const references = list(cve.references)
    .filter(isObject)
    .filter((r) => str(r.url) !== undefined)
    .map((r) => {
      const ref: JsonObject = { url: (r.url as string).trim() };
      const tags = strings(r.tags);
      if (tags.length > 0) {
        ref.tags = [...new Set(tags.map(referenceTag))];
        ref.x_nvdTags = tags;
      }
      if (str(r.source)) ref.x_source = r.source;
      return ref;
    });
  if (references.length > 0) cna.references = references;

  const problemTypes = convertWeaknesses(cve.weaknesses);
  if (problemTypes.length > 0) cna.problemTypes = problemTypes;
  const metrics = convertMetrics(cve.metrics);
  if (metrics.length > 0) cna.metrics = metrics;

  const tags = [
    ...new Set(
      list(cve.cveTags)
        .filter(isObject)
        .flatMap((t) => strings(t.tags)),
    ),
  ];
  if (tags.length > 0) cna.tags = tags;
  if (list(cve.cveTags).length > 0) cna.x_nvdCveTags = cve.cveTags;

  // CNA/ADP affected data NVD relays (`affected[].affectedData[]`, CVE 5 objects), then NVD's CPE analysis.
  const affected: JsonObject[] = [];
  for (const block of list(cve.affected).filter(isObject)) {
    for (const data of list(block.affectedData).filter(isObject)) {
      affected.push(str(block.source) ? { ...data, x_source: block.source } : { ...data });
    }
  }
  affected.push(...affectedFromConfigurations(cve.configurations));
  if (affected.length > 0) cna.affected = affected;

  if (Array.isArray(cve.configurations)) {
    cna.cpeApplicability = cve.configurations.filter(isObject).map((c) => ({ mcpeapplicability: structuredClone(c) }));
    cna.x_nvdConfigurations = cve.configurations;
  }

  const kev: JsonObject = {};
  for (const key of ['cisaExploitAdd', 'cisaActionDue', 'cisaRequiredAction', 'cisaVulnerabilityName']) {
    if (cve[key] !== undefined && cve[key] !== null) kev[key] = cve[key];
  }
  if (Object.keys(kev).length > 0) cna.x_cisaKev = kev;

  if (sourceIdentifier) cna.x_sourceIdentifier = sourceIdentifier;
  if (vulnStatus) cna.x_vulnStatus = vulnStatus;
  for (const [key, value] of Object.entries(cve)) {
    // evaluatorComment → x_nvdEvaluatorComment, …; and mapped members of an unexpected type (not dropped).
    const unexpected = key === 'metrics' ? !isObject(value) : ARRAY_MEMBERS.has(key) && !Array.isArray(value);
    if (!HANDLED.has(key) || unexpected) cna[extensionKey('nvd', key)] = value;
  }

  return finalizeRecord({ dataType: 'CVE_RECORD', dataVersion: '5.0', cveMetadata, containers: { cna } });
}

/** One `vulnerabilities[]` element (`{cve}`) or `cve` object → its item (ConversionError when it is neither). */
export const convertNvdValue: Convert = (value) => {
  const cve = cveOf(value);
  if (!cve) throw new ConversionError('not an NVD CVE API 2.0 object (no cve, no id)');
  const record = convertNvdCve(cve);
  return [{ kind: 'record', record, sourceId: record.cveMetadata.cveId }];
};

export function nistNvd2(source: string, feed: string): AsyncIterable<AdvisoryItem> {
  return runAdapter(source, feed, acceptNvdFile, ['vulnerabilities'], nvdIdOf, convertNvdValue);
}
