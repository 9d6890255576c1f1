/**
 * CPE search matches per criterion, like NVD's `cpeName` search (reference-matching.md §2.4 "NVD
 * behaviour to beat"): a name is covered by a cpeMatch or a CVE 5 affected entry on its own, with
 * no AND evaluation against a host. Here the name is a query, so an attribute it leaves ANY (an
 * edition, an update) is "any" rather than "unknown", as in the advisory `cpe` filter; its version
 * must still be concrete and covered.
 */
import type { Wfn } from '../cpe.js';
import { parseCached } from '../advisory/cpe-match.js';
import { COVERING_KINDS } from './evaluate.js';
import { isMatch, relateAffected, relateCriterion, type NameMatch } from './name-match.js';
import type { AffectedCpes, CpeMatchCriterion, CveApplicability, EvidenceKind, UnknownAttribute } from './types.js';

export interface Coverage {
  kind: EvidenceKind;
  /** False when it rests on something the name left open (`unknownAttributes`) or on the version's absence. */
  definite: boolean;
  range?: string;
  unknownAttributes?: UnknownAttribute[];
}

const coverageOf = (match: NameMatch): Coverage => ({
  kind: match.kind,
  definite: match.truth === 'definite',
  ...(match.range !== undefined ? { range: match.range } : {}),
  ...(match.unknownAttributes.length > 0 ? { unknownAttributes: match.unknownAttributes } : {}),
});

export function criterionCoversName(criterion: CpeMatchCriterion, name: Wfn): Coverage | undefined {
  const wfn = parseCached(criterion.criteria);
  if (!wfn) return undefined;
  const relation = relateCriterion(wfn, criterion.range, name);
  return isMatch(relation) ? coverageOf(relation) : undefined;
}

const searchRank = (coverage: Coverage) => (COVERING_KINDS.has(coverage.kind) ? 2 : 0) + (coverage.definite ? 1 : 0);

/** The best coverage of the name by any of the entry's CPEs, with that CPE. */
export function affectedCoversName(entry: AffectedCpes, name: Wfn): (Coverage & { cpe: string }) | undefined {
  let best: (Coverage & { cpe: string }) | undefined;
  for (const cpe of entry.cpes) {
    const wfn = parseCached(cpe);
    if (!wfn) continue;
    const relation = relateAffected(wfn, entry, name);
    if (!isMatch(relation)) continue;
    const coverage = { ...coverageOf(relation), cpe };
    if (!best || searchRank(coverage) > searchRank(best)) best = coverage;
  }
  return best;
}

const covering = (coverage: Coverage | undefined) => coverage !== undefined && COVERING_KINDS.has(coverage.kind);

/**
 * True when some cpeMatch (any statement, configuration, node; only `vulnerable: true` ones with
 * `vulnerableOnly`) or affected entry covers the name with a known version relation.
 */
export function applicabilityCoversName(
  app: CveApplicability,
  name: Wfn,
  options: { vulnerableOnly: boolean },
): boolean {
  return app.statements.some(
    (statement) =>
      statement.configurations.some((configuration) =>
        configuration.nodes.some((node) =>
          node.cpeMatch.some(
            (criterion) =>
              (criterion.vulnerable || !options.vulnerableOnly) && covering(criterionCoversName(criterion, name)),
          ),
        ),
      ) || statement.affected.some((entry) => covering(affectedCoversName(entry, name))),
  );
}
