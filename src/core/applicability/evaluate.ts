/**
 * Host-context evaluation (reference-matching.md §2.4 rules 1–5, §2.5): which CVEs apply to a set
 * of CPEs (a fingerprint's and the host's OS), with evidence.
 *
 * The record's own fingerprints are what can be vulnerable; the host's OS guesses (role `os`) only
 * satisfy non-vulnerable criteria, the platform side of AND configurations.
 *
 * Three-valued (Kleene) logic, T > U > F:
 * - a cpeMatch is T when some context name satisfies it definitely, U when some name possibly
 *   does (its version or an attribute is unknown, or a comparison could not be made);
 * - when no name satisfies it, it is F if it is a vulnerable criterion and the context holds its
 *   product at a version or edition it excludes, and otherwise U: the context is what a scan saw,
 *   not everything the host runs, so an AND that needs a platform the scan did not show is
 *   "conditional", never false;
 * - OR = max, AND = min, negate swaps T and F and keeps U.
 * Evidence comes from satisfied `vulnerable: true` cpeMatches of configurations that are not F.
 */
import { parseCached } from '../advisory/cpe-match.js';
import { isMatch, relateAffected, relateCriterion, type NameMatch } from './name-match.js';
import type {
  AffectedCpes,
  ApplicabilitySource,
  Configuration,
  ConfigurationNode,
  ContextCpe,
  CpeMatchCriterion,
  CveApplicability,
  CveEvidence,
  EvidenceKind,
  MatchConfidence,
} from './types.js';

export type Tri = 'T' | 'U' | 'F';

const RANK: Record<Tri, number> = { F: 0, U: 1, T: 2 };
const or = (values: Tri[]): Tri => values.reduce<Tri>((a, b) => (RANK[b] > RANK[a] ? b : a), 'F');
const and = (values: Tri[]): Tri => values.reduce<Tri>((a, b) => (RANK[b] < RANK[a] ? b : a), 'T');
const not = (value: Tri): Tri => (value === 'T' ? 'F' : value === 'F' ? 'T' : 'U');

/** Kinds that can confirm a CVE: the name's version is known to be covered. */
export const COVERING_KINDS: ReadonlySet<EvidenceKind> = new Set(['exact_version', 'version_range', 'all_versions']);

interface Hit {
  context: ContextCpe;
  match: NameMatch;
}

interface CpeMatchOutcome {
  criterion: CpeMatchCriterion;
  value: Tri;
  hits: Hit[];
}

/** Host matching reads a short scanner version as the family of releases under it. */
export const HOST = { families: true } as const;

function evaluateCpeMatch(criterion: CpeMatchCriterion, context: ContextCpe[]): CpeMatchOutcome {
  const wfn = parseCached(criterion.criteria);
  if (!wfn) return { criterion, value: 'F', hits: [] };
  const hits: Hit[] = [];
  let excluded = false;
  for (const entry of context) {
    // The host's OS guesses only stand for the platform a configuration runs on or with.
    if (criterion.vulnerable && entry.role === 'os') continue;
    const relation = relateCriterion(wfn, criterion.range, entry.wfn, HOST);
    if (isMatch(relation)) hits.push({ context: entry, match: relation });
    else if (relation === 'excluded') excluded = true;
  }
  let value: Tri;
  if (hits.some((hit) => hit.match.truth === 'definite')) value = 'T';
  else if (hits.length > 0) value = 'U';
  else value = excluded && criterion.vulnerable ? 'F' : 'U';
  return { criterion, value, hits };
}

/** Criteria that did not parse, in a hand-built statement as in an extracted one. */
export const hasInvalid = (node: ConfigurationNode) =>
  (node.invalidCriteria?.length ?? 0) > 0 || node.cpeMatch.some((c) => !parseCached(c.criteria));

/** A node's value from its criteria's values, in order. */
export function nodeValue(node: ConfigurationNode, values: Tri[]): Tri {
  // An unreadable criterion must not make the node easier to satisfy: not under AND, not under negation.
  if (hasInvalid(node) && (node.operator === 'AND' || node.negate)) return 'F';
  if (values.length === 0) return 'F';
  const value = node.operator === 'AND' ? and(values) : or(values);
  return node.negate ? not(value) : value;
}

export function configurationValue(configuration: Configuration, nodeValues: Tri[]): Tri {
  if (nodeValues.length === 0) return 'F';
  if (configuration.negate && configuration.nodes.some(hasInvalid)) return 'F';
  // Absent operator with several nodes is not NVD's shape; AND is the reading that asks more.
  const value = configuration.operator === 'OR' ? or(nodeValues) : and(nodeValues);
  return configuration.negate ? not(value) : value;
}

function confidenceOf(
  kind: EvidenceKind,
  heuristic: boolean,
  configuration: CveEvidence['configuration'],
): MatchConfidence {
  if (configuration === 'conditional' || !COVERING_KINDS.has(kind)) return 'low';
  if (kind === 'all_versions' || heuristic) return 'medium';
  return 'high';
}

function evidenceOf(cve: string, hit: Hit, criterion: string, source: ApplicabilitySource, whole: Tri): CveEvidence {
  const { context, match } = hit;
  const configuration = whole === 'T' && match.truth === 'definite' ? 'satisfied' : 'conditional';
  return {
    cve,
    cpe: context.cpe,
    ...(context.alias !== undefined ? { alias: context.alias } : {}),
    criterion,
    ...(match.range !== undefined ? { range: match.range } : {}),
    kind: match.kind,
    source,
    vulnerable: true,
    configuration,
    confidence: confidenceOf(match.kind, match.heuristic, configuration),
    confirmed: configuration === 'satisfied' && COVERING_KINDS.has(match.kind),
    ...(match.unknownAttributes.length > 0 ? { unknownAttributes: [...new Set(match.unknownAttributes)] } : {}),
  };
}

function configurationEvidence(
  cve: string,
  configuration: Configuration,
  source: ApplicabilitySource,
  context: ContextCpe[],
): CveEvidence[] {
  const outcomes = configuration.nodes.map((node) => node.cpeMatch.map((c) => evaluateCpeMatch(c, context)));
  const whole = configurationValue(
    configuration,
    configuration.nodes.map((node, i) =>
      nodeValue(
        node,
        outcomes[i]!.map((outcome) => outcome.value),
      ),
    ),
  );
  if (whole === 'F') return [];
  const out: CveEvidence[] = [];
  configuration.nodes.forEach((node, i) => {
    // Under an odd number of negations a satisfied criterion argues against the CVE.
    if (node.negate !== configuration.negate) return;
    for (const outcome of outcomes[i]!) {
      if (!outcome.criterion.vulnerable) continue;
      for (const hit of outcome.hits) out.push(evidenceOf(cve, hit, outcome.criterion.criteria, source, whole));
    }
  });
  return out;
}

function affectedEvidence(
  cve: string,
  entry: AffectedCpes,
  source: ApplicabilitySource,
  context: ContextCpe[],
): CveEvidence[] {
  const out: CveEvidence[] = [];
  for (const cpe of entry.cpes) {
    const wfn = parseCached(cpe);
    if (!wfn) continue;
    for (const item of context) {
      // An affected entry names vulnerable products, which an OS guess never adds to a record.
      if (item.role === 'os') continue;
      const relation = relateAffected(wfn, entry, item.wfn, HOST);
      // An affected entry stands alone: its match is the whole statement.
      if (isMatch(relation)) out.push(evidenceOf(cve, { context: item, match: relation }, cpe, source, 'T'));
    }
  }
  return out;
}

const CONFIDENCE_RANK: Record<MatchConfidence, number> = { low: 0, medium: 1, high: 2 };
const SOURCE_RANK: Record<ApplicabilitySource, number> = { nvd: 0, cna: 1, adp: 2 };

/** Of two rows for the same (cve, cpe, criterion, kind), the one that says more. */
function better(a: CveEvidence, b: CveEvidence): CveEvidence {
  if (a.confirmed !== b.confirmed) return a.confirmed ? a : b;
  if (a.confidence !== b.confidence) return CONFIDENCE_RANK[a.confidence] > CONFIDENCE_RANK[b.confidence] ? a : b;
  if (a.configuration !== b.configuration) return a.configuration === 'satisfied' ? a : b;
  if (a.source !== b.source) return SOURCE_RANK[a.source] <= SOURCE_RANK[b.source] ? a : b;
  return (a.unknownAttributes?.length ?? 0) <= (b.unknownAttributes?.length ?? 0) ? a : b;
}

const compareText = (a: string | undefined, b: string | undefined) =>
  (a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0;

function byKey(a: CveEvidence, b: CveEvidence): number {
  return (
    compareText(a.cve, b.cve) ||
    compareText(a.cpe, b.cpe) ||
    compareText(a.criterion, b.criterion) ||
    compareText(a.kind, b.kind) ||
    compareText(a.alias, b.alias) ||
    compareText(a.source, b.source)
  );
}

export function dedupeEvidence(evidence: Iterable<CveEvidence>): CveEvidence[] {
  const kept = new Map<string, CveEvidence>();
  for (const row of evidence) {
    const key = [row.cve, row.cpe, row.criterion, row.kind].join('\u0000');
    const current = kept.get(key);
    kept.set(key, current ? better(current, row) : row);
  }
  return [...kept.values()].sort(byKey);
}

/** The evidence for one CVE against a context; empty when nothing in it is (possibly) vulnerable. */
export function evaluateApplicability(app: CveApplicability, context: ContextCpe[]): CveEvidence[] {
  if (context.length === 0) return [];
  const rows: CveEvidence[] = [];
  for (const statement of app.statements) {
    for (const configuration of statement.configurations) {
      rows.push(...configurationEvidence(app.cveId, configuration, statement.source, context));
    }
    for (const entry of statement.affected) rows.push(...affectedEvidence(app.cveId, entry, statement.source, context));
  }
  return dedupeEvidence(rows);
}

/** CVE id → its evidence, for the CVEs that have any; ids in ascending order. */
export function evaluateMany(apps: Iterable<CveApplicability>, context: ContextCpe[]): Map<string, CveEvidence[]> {
  const byCve = new Map<string, CveEvidence[]>();
  for (const app of apps) {
    const evidence = evaluateApplicability(app, context);
    if (evidence.length === 0) continue;
    byCve.set(app.cveId, dedupeEvidence([...(byCve.get(app.cveId) ?? []), ...evidence]));
  }
  return new Map([...byCve.entries()].sort(([a], [b]) => compareText(a, b)));
}

/** The CVEs that confirmed evidence supports (what feeds `cve` / `contains_cve`), sorted. */
export function confirmedCves(evidence: Iterable<CveEvidence> | Map<string, CveEvidence[]>): string[] {
  const rows = evidence instanceof Map ? [...evidence.values()].flat() : [...evidence];
  return [...new Set(rows.filter((row) => row.confirmed).map((row) => row.cve))].sort();
}

/**
 * Whether a name's confirmed evidence on this CVE is the same whatever else the context holds:
 * every configuration is an OR of OR nodes without negation (a definite vulnerable hit makes it
 * true by itself, and nothing else can make a weaker hit confirmed); CVE 5 entries stand alone.
 */
export const standsAlone = (app: CveApplicability) =>
  app.statements.every((statement) =>
    statement.configurations.every(
      (configuration) =>
        !configuration.negate &&
        (configuration.nodes.length === 1 || configuration.operator === 'OR') &&
        configuration.nodes.every((node) => node.operator === 'OR' && !node.negate),
    ),
  );

/** Whether a definite hit of a key-decided vulnerable criterion confirms the CVE by itself: NVD configurations that stand alone. */
export const decidedByOwnHit = (app: CveApplicability) =>
  standsAlone(app) && app.statements.every((statement) => statement.affected.length === 0);
