/**
 * CVE JSON 4.0 (`data_type: "CVE"`, `CVE_data_meta`) → the CVE 5.0 record shape. The whole
 * original is kept under `containers.cna.x_legacyV4Record` (as the CVE Program's own up-conversion
 * in cvelistV5 does), so every conversion choice below is recoverable. Mapping: docs/advisory-feeds.md.
 */
import { parseCvssVector } from './cvss.js';
import { utcTimestamp } from './normalize.js';
import { ConversionError, isObject, type JsonObject } from './types.js';

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** ISO 639-2 `eng` (CVE 4.0) → BCP 47 `en` (CVE 5); other tags unchanged. */
const lang = (value: unknown): string => {
  const text = str(value)?.trim() ?? 'en';
  return text.toLowerCase() === 'eng' ? 'en' : text;
};

const describe = (items: unknown): JsonObject[] =>
  list(items)
    .filter(isObject)
    .filter((d) => str(d.value) !== undefined)
    .map((d) => ({ lang: lang(d.lang), value: d.value as string }));

const STATES: Record<string, string> = {
  PUBLIC: 'PUBLISHED',
  PUBLISHED: 'PUBLISHED',
  REJECT: 'REJECTED',
  REJECTED: 'REJECTED',
  RESERVED: 'RESERVED',
};

/** Loose version order for pairing bounds: numeric runs numerically, other runs as text. */
export function compareLoose(a: string, b: string): number {
  const pa = a.split(/[.\-_+~:\s]+/);
  const pb = b.split(/[.\-_+~:\s]+/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x === y) continue;
    if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Number(x) - Number(y);
    if (x === '') return -1;
    if (y === '') return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

type Bound = { kind: 'lower' | 'upper'; value: string; inclusive: boolean };
interface V4Version {
  op: string;
  value: string;
}

/**
 * How an operator can bound an affected range when paired with an opposite bound:
 * `>=`/`!<` inclusive lower, `>`/`!<=` exclusive lower, `<`/`!>=` exclusive upper, `<=`/`!>` inclusive upper.
 */
function boundOf(v: V4Version): Bound | undefined {
  switch (v.op) {
    case '>=':
    case '!<':
      return { kind: 'lower', value: v.value, inclusive: true };
    case '>':
    case '!<=':
      return { kind: 'lower', value: v.value, inclusive: false };
    case '<':
    case '!>=':
      return { kind: 'upper', value: v.value, inclusive: false };
    case '<=':
    case '!>':
      return { kind: 'upper', value: v.value, inclusive: true };
    default:
      return undefined;
  }
}

const range = (lower: string, upper: Bound, status: string): JsonObject => ({
  version: lower,
  status,
  [upper.inclusive ? 'lessThanOrEqual' : 'lessThan']: upper.value,
  versionType: 'custom',
});

const OPPOSITE: Record<string, string> = { affected: 'unaffected', unaffected: 'affected', unknown: 'unknown' };

/** One 4.0 `version_data` entry on its own (see docs for the table). */
function single(v: V4Version): JsonObject[] {
  const unknown = v.op.startsWith('?');
  const negated = v.op.startsWith('!');
  const op = unknown || negated ? v.op.slice(1) : v.op;
  const status = unknown ? 'unknown' : negated ? 'unaffected' : 'affected';
  switch (op) {
    case '':
    case '=':
      return [{ version: v.value, status }];
    case '<':
      return [{ version: '0', lessThan: v.value, status, versionType: 'custom' }];
    case '<=':
      return [{ version: '0', lessThanOrEqual: v.value, status, versionType: 'custom' }];
    case '>=':
      return [{ version: v.value, lessThan: '*', status, versionType: 'custom' }];
    case '>':
      // No exclusive lower bound in CVE 5: the range from the value on, with the value itself excepted.
      return [
        { version: v.value, lessThan: '*', status, versionType: 'custom' },
        { version: v.value, status: OPPOSITE[status] },
      ];
    default:
      throw new ConversionError(`unknown version_affected operator ${JSON.stringify(v.op)} (version ${v.value})`);
  }
}

/**
 * `version_data` of one product (and platform) → CVE 5 versions. Adjacent entries that bound one
 * range (`>= 2.4.7` + `<= 2.4.51`, or Vulnogram's `<= 2.4.48` + `!< 2.4.17`) become one range when
 * the lower bound does not exceed the upper; everything else converts on its own.
 */
export function convertVersionData(entries: V4Version[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (let i = 0; i < entries.length; i++) {
    const a = boundOf(entries[i]!);
    const b = i + 1 < entries.length ? boundOf(entries[i + 1]!) : undefined;
    if (a && b && a.kind !== b.kind) {
      const lower = a.kind === 'lower' ? a : b;
      const upper = a.kind === 'upper' ? a : b;
      if (compareLoose(lower.value, upper.value) <= 0) {
        out.push(range(lower.value, upper, 'affected'));
        if (!lower.inclusive) out.push({ version: lower.value, status: 'unaffected' });
        i++;
        continue;
      }
    }
    out.push(...single(entries[i]!));
  }
  return out;
}

function convertAffects(affects: unknown): JsonObject[] {
  const affected: JsonObject[] = [];
  const vendors = isObject(affects) && isObject(affects.vendor) ? list(affects.vendor.vendor_data) : [];
  for (const vendor of vendors.filter(isObject)) {
    const products = isObject(vendor.product) ? list(vendor.product.product_data) : [];
    for (const product of products.filter(isObject)) {
      const data = isObject(product.version) ? list(product.version.version_data).filter(isObject) : [];
      // One affected entry per platform (4.0 puts the platform on each version entry).
      const byPlatform = new Map<string, V4Version[]>();
      for (const v of data) {
        const value =
          typeof v.version_value === 'string'
            ? v.version_value
            : v.version_value === undefined
              ? ''
              : String(v.version_value);
        if (value === '') continue;
        const platform = str(v.platform) ?? '';
        if (!byPlatform.has(platform)) byPlatform.set(platform, []);
        byPlatform.get(platform)!.push({ op: (str(v.version_affected) ?? '=').trim(), value });
      }
      if (byPlatform.size === 0) byPlatform.set('', []);
      for (const [platform, versions] of byPlatform) {
        const entry: JsonObject = {
          vendor: str(vendor.vendor_name) ?? 'n/a',
          product: str(product.product_name) ?? 'n/a',
        };
        if (platform !== '') entry.platforms = [platform];
        const converted = convertVersionData(versions);
        if (converted.length > 0) {
          entry.versions = converted;
          // 4.0 lists what is affected: versions not listed are not (unless the list is only "n/a").
          if (!versions.every((v) => v.value.toLowerCase() === 'n/a')) entry.defaultStatus = 'unaffected';
        }
        affected.push(entry);
      }
    }
  }
  return affected;
}

function convertImpact(impact: unknown): JsonObject[] {
  const metrics: JsonObject[] = [];
  const addCvss = (cvss: unknown) => {
    if (!isObject(cvss)) return;
    const parsed = typeof cvss.vectorString === 'string' ? parseCvssVector(cvss.vectorString) : undefined;
    if (parsed) {
      if (typeof cvss.baseScore === 'number') parsed.cvss.baseScore = cvss.baseScore;
      metrics.push({ format: 'CVSS', [parsed.key]: parsed.cvss });
    } else {
      metrics.push({ other: { type: 'cvss', content: cvss } });
    }
  };
  for (const item of Array.isArray(impact) ? impact : [impact]) {
    if (!isObject(item)) continue;
    if ('cvss' in item) {
      for (const cvss of Array.isArray(item.cvss) ? item.cvss : [item.cvss]) addCvss(cvss);
      continue;
    }
    if (Object.keys(item).length === 1 && typeof item.other === 'string') {
      // Vulnogram's severity text; Apache's own 5.0 records use exactly this shape.
      metrics.push({ other: { type: 'Textual description of severity', content: { text: item.other } } });
    } else if (Object.keys(item).length > 0) {
      metrics.push({ other: { type: 'unknown', content: item } });
    }
  }
  return metrics;
}

function convertCredits(credit: unknown): JsonObject[] {
  if (Array.isArray(credit)) return describe(credit);
  // Early 4.0: {credit_data: {description: {description_data: [...]}}}
  if (isObject(credit) && isObject(credit.credit_data)) {
    const data = credit.credit_data;
    return describe(isObject(data.description) ? data.description.description_data : undefined);
  }
  return [];
}

/** Converts one CVE JSON 4.0 record; throws ConversionError when it has no usable id. */
export function convertCve4(input: JsonObject): JsonObject {
  const original = structuredClone(input);
  const meta = input.CVE_data_meta;
  if (!isObject(meta) || typeof meta.ID !== 'string') throw new ConversionError('CVE_data_meta.ID is missing');
  const rawState = (str(meta.STATE) ?? 'PUBLIC').toUpperCase();
  const cveMetadata: JsonObject = { cveId: meta.ID.trim(), state: STATES[rawState] ?? 'PUBLISHED' };
  const datePublic = str(meta.DATE_PUBLIC);
  if (datePublic) cveMetadata.datePublished = utcTimestamp(datePublic);

  const cna: JsonObject = {};
  const title = str(meta.TITLE);
  if (title) cna.title = title;
  if (datePublic) cna.datePublic = utcTimestamp(datePublic);
  const descriptions = describe(isObject(input.description) ? input.description.description_data : undefined);
  if (descriptions.length > 0) cna.descriptions = descriptions;
  if (cveMetadata.state === 'REJECTED' && descriptions.length > 0) cna.rejectedReasons = descriptions;

  const affected = convertAffects(input.affects);
  if (affected.length > 0) cna.affected = affected;

  const references = list(isObject(input.references) ? input.references.reference_data : undefined)
    .filter(isObject)
    .filter((r) => str(r.url) !== undefined)
    .map((r) => {
      const ref: JsonObject = { url: (r.url as string).trim() };
      if (str(r.name)) ref.name = r.name;
      const tags = [...list(r.tags).filter((t): t is string => typeof t === 'string')];
      if (str(r.refsource)) tags.push(`x_refsource_${r.refsource as string}`);
      if (tags.length > 0) ref.tags = tags;
      return ref;
    });
  if (references.length > 0) cna.references = references;

  const problemTypes = list(isObject(input.problemtype) ? input.problemtype.problemtype_data : undefined)
    .filter(isObject)
    .map((p) => ({
      descriptions: list(p.description)
        .filter(isObject)
        .filter((d) => str(d.value) !== undefined)
        .map((d) => {
          const value = d.value as string;
          const cwe = /^(CWE-\d+)\b/.exec(value.trim());
          return cwe
            ? { lang: lang(d.lang), description: value, cweId: cwe[1], type: 'CWE' }
            : { lang: lang(d.lang), description: value, type: 'text' };
        }),
    }))
    .filter((p) => p.descriptions.length > 0);
  if (problemTypes.length > 0) cna.problemTypes = problemTypes;

  const metrics = convertImpact(input.impact);
  if (metrics.length > 0) cna.metrics = metrics;

  const timeline = list(input.timeline)
    .filter(isObject)
    .filter((t) => str(t.value) !== undefined)
    .map((t) => {
      const entry: JsonObject = { lang: lang(t.lang), value: t.value };
      if (str(t.time)) entry.time = utcTimestamp((t.time as string).trim());
      return entry;
    });
  if (timeline.length > 0) cna.timeline = timeline;

  const credits = convertCredits(input.credit);
  if (credits.length > 0) cna.credits = credits;
  for (const [from, to] of [
    ['solution', 'solutions'],
    ['work_around', 'workarounds'],
    ['exploit', 'exploits'],
    ['configuration', 'configurations'],
  ] as const) {
    const items = describe(input[from]);
    if (items.length > 0) cna[to] = items;
  }
  if (isObject(input.source)) cna.x_source = input.source;
  cna.x_legacyV4Record = original;

  return {
    dataType: 'CVE_RECORD',
    dataVersion: typeof input.data_version === 'string' ? input.data_version : '4.0',
    cveMetadata,
    containers: { cna },
  };
}
