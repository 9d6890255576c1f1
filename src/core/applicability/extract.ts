/**
 * Reads a stored CVE record into what its sources say about where the CVE applies
 * (reference-matching.md §2.4, §2.5). `nist-nvd2` records are NVD CVE API 2.0 objects converted to
 * the CVE-record shape; their CNA container keeps NVD's raw `configurations` as
 * `x_nvdConfigurations`. `mitre-cvelist-v5` records give one statement per container (CNA, then
 * each ADP) from `cpeApplicability` and the `affected[]` entries that name CPEs.
 */
import { parseCached } from '../advisory/cpe-match.js';
import type { Cve5VersionEntry } from '../version/cve5-affected.js';
import type { VersionRange } from '../version/range.js';
import type {
  AffectedCpes,
  ApplicabilitySource,
  ApplicabilityStatement,
  Configuration,
  ConfigurationNode,
  CpeMatchCriterion,
  CveApplicability,
} from './types.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(text).filter((v): v is string => v !== undefined) : [];

const operatorOf = (value: unknown): 'AND' | 'OR' | undefined => {
  const upper = typeof value === 'string' ? value.trim().toUpperCase() : undefined;
  return upper === 'AND' || upper === 'OR' ? upper : undefined;
};

export function cveIdOf(record: unknown): string | undefined {
  if (!isObject(record) || !isObject(record.cveMetadata)) return undefined;
  return text(record.cveMetadata.cveId);
}

const BOUNDS = [
  ['startIncluding', 'versionStartIncluding'],
  ['startExcluding', 'versionStartExcluding'],
  ['endIncluding', 'versionEndIncluding'],
  ['endExcluding', 'versionEndExcluding'],
] as const;

function criterionOf(match: Json): CpeMatchCriterion | undefined {
  const criteria = text(match.criteria);
  if (!criteria || !parseCached(criteria)) return undefined;
  const range: VersionRange = {};
  for (const [key, field] of BOUNDS) {
    const bound = text(match[field]);
    if (bound !== undefined) range[key] = bound;
  }
  const matchCriteriaId = text(match.matchCriteriaId);
  return {
    // As the advisory filter reads it: only an explicit `false` marks a platform.
    vulnerable: match.vulnerable !== false,
    criteria,
    ...(matchCriteriaId ? { matchCriteriaId } : {}),
    ...(Object.keys(range).length > 0 ? { range } : {}),
  };
}

function nodeOf(node: Json): ConfigurationNode {
  const cpeMatch: CpeMatchCriterion[] = [];
  const invalidCriteria: string[] = [];
  for (const match of objects(node.cpeMatch)) {
    const criterion = criterionOf(match);
    if (criterion) cpeMatch.push(criterion);
    else
      invalidCriteria.push(
        typeof match.criteria === 'string' ? match.criteria : JSON.stringify(match.criteria ?? null),
      );
  }
  return {
    operator: operatorOf(node.operator) ?? 'OR',
    negate: node.negate === true,
    cpeMatch,
    ...(invalidCriteria.length > 0 ? { invalidCriteria } : {}),
  };
}

function configurationOf(item: Json): Configuration | undefined {
  const nodes = objects(item.nodes).map(nodeOf);
  if (nodes.length === 0) return undefined;
  const operator = operatorOf(item.operator);
  return { ...(operator ? { operator } : {}), negate: item.negate === true, nodes };
}

/** NVD `configurations`, or CVE 5 `cpeApplicability` whose items may be wrapped as `{mcpeapplicability: …}`. */
function configurationsOf(value: unknown): Configuration[] {
  return objects(value)
    .map((item) => configurationOf(isObject(item.mcpeapplicability) ? item.mcpeapplicability : item))
    .filter((c): c is Configuration => c !== undefined);
}

function affectedOf(value: unknown): AffectedCpes[] {
  const out: AffectedCpes[] = [];
  for (const affected of objects(value)) {
    const cpes = texts(affected.cpes).filter((cpe) => parseCached(cpe) !== undefined);
    if (cpes.length === 0) continue;
    const entry: AffectedCpes = { cpes };
    const vendor = text(affected.vendor);
    const product = text(affected.product);
    const defaultStatus = text(affected.defaultStatus);
    const versions = objects(affected.versions) as Cve5VersionEntry[];
    const platforms = texts(affected.platforms);
    if (vendor) entry.vendor = vendor;
    if (product) entry.product = product;
    if (versions.length > 0) entry.versions = versions;
    if (defaultStatus) entry.defaultStatus = defaultStatus;
    if (platforms.length > 0) entry.platforms = platforms;
    out.push(entry);
  }
  return out;
}

function containerStatement(container: Json, source: ApplicabilitySource): ApplicabilityStatement | undefined {
  const configurations = configurationsOf(container.cpeApplicability);
  const affected = affectedOf(container.affected);
  if (configurations.length === 0 && affected.length === 0) return undefined;
  const provider = isObject(container.providerMetadata) ? text(container.providerMetadata.shortName) : undefined;
  return { source, ...(provider ? { provider } : {}), configurations, affected };
}

function nvdStatements(cna: Json): ApplicabilityStatement[] {
  const configurations = configurationsOf(cna.x_nvdConfigurations);
  return configurations.length > 0 ? [{ source: 'nvd', configurations, affected: [] }] : [];
}

function cve5Statements(containers: Json): ApplicabilityStatement[] {
  const statements: ApplicabilityStatement[] = [];
  const cna = isObject(containers.cna) ? containerStatement(containers.cna, 'cna') : undefined;
  if (cna) statements.push(cna);
  for (const adp of objects(containers.adp)) {
    const statement = containerStatement(adp, 'adp');
    if (statement) statements.push(statement);
  }
  return statements;
}

/**
 * The applicability a stored record carries, or `undefined` when it has none (for `nist-nvd2`:
 * no NVD configurations, so the caller falls back to the CVE 5 record). Never throws.
 */
export function applicabilityOfRecord(
  record: unknown,
  origin: 'nist-nvd2' | 'mitre-cvelist-v5',
): CveApplicability | undefined {
  const cveId = cveIdOf(record);
  if (!cveId || !isObject(record)) return undefined;
  const containers = isObject(record.containers) ? record.containers : {};
  const statements =
    origin === 'nist-nvd2' ? nvdStatements(isObject(containers.cna) ? containers.cna : {}) : cve5Statements(containers);
  return statements.length > 0 ? { cveId, origin, statements } : undefined;
}
