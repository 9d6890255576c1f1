/**
 * The last step of every adapter: makes a CVE-5-shaped object servable under the contract.
 *  1. `null` is removed everywhere (members omitted, array elements dropped): the contract has no
 *     nullable property and the rule is "omit rather than emit null".
 *  2. CVE 5.1 `cpeApplicability` objects are wrapped as `advisory.CustomCPE`
 *     (`{mcpeapplicability: <the object>}`), which keeps them whole.
 *  3. CVSS objects get the contract's member names beside the CVE 5 ones (`cvssV2_0.attackComplexity`
 *     from `accessComplexity`; `cvssV4_0.automatable|recovery|safety` from `Automatable|Recovery|Safety`).
 *  4. Every member whose type conflicts with the contract (e.g. CVE 5 `source`, an object, where the
 *     contract says `array<integer>`) moves to `x_<name>` in the same object: nothing is dropped.
 *  5. `dataType`/`dataVersion` become `CVE_RECORD`/`5.0`; a different source version is kept as
 *     `x_dataVersion`; cveMetadata timestamps without a zone get `Z` (CVE 5: UTC is implied).
 */
import { RECORD_SHAPE, type ObjectShape, type Shape } from './contract-shape.js';
import { ConversionError, isObject, type AdvisoryRecord, type JsonObject } from './types.js';

export const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

/** Deletes `null` members and array elements in place; returns the value (or undefined for null). */
export function stripNulls<T>(value: T): T | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    let write = 0;
    for (let read = 0; read < value.length; read++) {
      const item = stripNulls(value[read]);
      if (item !== undefined) value[write++] = item;
    }
    value.length = write;
  } else if (typeof value === 'object') {
    const object = value as JsonObject;
    for (const key of Object.keys(object)) {
      const item = stripNulls(object[key]);
      if (item === undefined) delete object[key];
      else object[key] = item;
    }
  }
  return value;
}

function primitiveMatches(value: unknown, type: Shape): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

/** True when `value` may stay where `shape` applies (after conforming its insides). */
function conformValue(value: unknown, shape: Shape, moved: string[], path: string): boolean {
  if (typeof shape === 'string') return primitiveMatches(value, shape);
  if (shape.kind === 'object') {
    if (!isObject(value)) return false;
    conformObject(value, shape, moved, path);
    return true;
  }
  if (!Array.isArray(value)) return false;
  const items = shape.items;
  if (typeof items === 'string') return value.every((item) => primitiveMatches(item, items));
  if (!value.every((item) => (items.kind === 'object' ? isObject(item) : Array.isArray(item)))) return false;
  for (let i = 0; i < value.length; i++) conformValue(value[i], items, moved, `${path}/${i}`);
  return true;
}

/** A free `x_` name beside `key`: `x_key`, else `x_key_2`, … */
function extensionName(object: JsonObject, key: string): string {
  let name = `x_${key}`;
  for (let n = 2; name in object; n++) name = `x_${key}_${n}`;
  return name;
}

/** Moves members of `object` whose type conflicts with `shape` to `x_<name>`; recurses. */
export function conformObject(object: JsonObject, shape: ObjectShape, moved: string[] = [], path = ''): string[] {
  for (const key of Object.keys(object)) {
    const propShape = shape.props[key];
    if (propShape === undefined) continue;
    if (!conformValue(object[key], propShape, moved, `${path}/${key}`)) {
      const target = extensionName(object, key);
      object[target] = object[key];
      delete object[key];
      moved.push(`${path}/${key}`);
    }
  }
  return moved;
}

/** CVE 5.1 `{operator, negate, nodes}` → `advisory.CustomCPE {mcpeapplicability: …}` (already wrapped items stay). */
export function wrapCpeApplicability(container: JsonObject): void {
  const list = container.cpeApplicability;
  if (!Array.isArray(list)) return;
  container.cpeApplicability = list.map((item) =>
    isObject(item) && !('mcpeapplicability' in item) && !('stringValue' in item) ? { mcpeapplicability: item } : item,
  );
}

const V4_ALIASES: Array<[string, string]> = [
  ['Automatable', 'automatable'],
  ['Recovery', 'recovery'],
  ['Safety', 'safety'],
];

/** Adds the contract's member names to CVSS objects whose source uses other names (copies; originals stay). */
export function addCvssAliases(container: JsonObject): void {
  const metrics = container.metrics;
  if (!Array.isArray(metrics)) return;
  for (const metric of metrics) {
    if (!isObject(metric)) continue;
    const v2 = metric.cvssV2_0;
    if (isObject(v2) && v2.attackComplexity === undefined && typeof v2.accessComplexity === 'string') {
      v2.attackComplexity = v2.accessComplexity;
    }
    const v4 = metric.cvssV4_0;
    if (isObject(v4)) {
      for (const [from, to] of V4_ALIASES) {
        if (v4[to] === undefined && typeof v4[from] === 'string') v4[to] = v4[from];
      }
    }
  }
}

const NO_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * RFC 3339 with a zone: a timestamp without one is UTC (CVE 5, NVD) and gets `Z`; a bare date
 * becomes midnight UTC. Anything else is returned unchanged.
 */
export function utcTimestamp(value: string): string {
  if (NO_ZONE.test(value)) return `${value}Z`;
  if (DATE_ONLY.test(value)) return `${value}T00:00:00Z`;
  return value;
}

const METADATA_DATES = ['dateReserved', 'datePublished', 'dateUpdated', 'dateRejected'] as const;

/**
 * Makes a CVE-5-shaped object (owned by the caller; changed in place) a servable record.
 * Throws {@link ConversionError} when its id does not match `idPattern` (a CVE id, except for OSV
 * entries without a CVE alias, served under their OSV id) or it has no CNA container.
 */
export function finalizeRecord(input: JsonObject, idPattern: RegExp = CVE_ID): AdvisoryRecord {
  stripNulls(input);
  const { dataType: _dataType, dataVersion, cveMetadata, containers, ...rest } = input;
  if (!isObject(cveMetadata)) throw new ConversionError('cveMetadata is missing or not an object');
  const cveId = cveMetadata.cveId;
  if (typeof cveId !== 'string' || !idPattern.test(cveId)) {
    throw new ConversionError(`cveMetadata.cveId is not a CVE id: ${JSON.stringify(cveId)}`);
  }
  if (!isObject(containers) || !isObject(containers.cna)) {
    throw new ConversionError('containers.cna is missing or not an object');
  }
  if (typeof cveMetadata.state !== 'string' || cveMetadata.state === '') {
    throw new ConversionError('cveMetadata.state is missing');
  }
  for (const key of METADATA_DATES) {
    const value = cveMetadata[key];
    if (typeof value === 'string') cveMetadata[key] = utcTimestamp(value);
  }
  const record: JsonObject = { dataType: 'CVE_RECORD', dataVersion: '5.0', cveMetadata, containers };
  if (dataVersion !== undefined && dataVersion !== '5.0') record.x_dataVersion = dataVersion;
  for (const [key, value] of Object.entries(rest))
    record[key.startsWith('x_') ? key : extensionName(record, key)] = value;

  for (const container of [containers.cna, ...(Array.isArray(containers.adp) ? containers.adp : [])]) {
    if (!isObject(container)) continue;
    wrapCpeApplicability(container);
    addCvssAliases(container);
  }
  conformObject(record, RECORD_SHAPE);
  return record as unknown as AdvisoryRecord;
}
