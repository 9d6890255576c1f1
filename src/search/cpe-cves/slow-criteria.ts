/**
 * The criteria of a product that are evaluated exactly per name (see fast-criteria.ts): each NVD /
 * CVE 5 cpeMatch or CVE 5 affected entry of a CVE that has a row of the product which cannot be
 * decided by keys, with its index rows as a cheap necessary test (the index contract) before the
 * evaluation of criterion.ts.
 */
import type { Wfn } from '../../core/cpe.js';
import { affectedCoversName, criterionCoversName } from '../../core/applicability/criterion.js';
import { COVERING_KINDS } from '../../core/applicability/evaluate.js';
import { indexedCriteria, rowMayMatch, type NameLookup } from '../../core/applicability/index-keys.js';
import type {
  AffectedCpes,
  ApplicabilitySource,
  CpeMatchCriterion,
  CveApplicability,
  IndexedCriterion,
} from '../../core/applicability/types.js';

export interface SlowCriterion {
  /** The CVE's id within its product structure. */
  cve: number;
  /** Counts when only vulnerable criteria are wanted (affected entries always do). */
  vulnerable: boolean;
  /** The criterion's index rows that can apply to the product. */
  rows: IndexedCriterion[];
  covers(name: Wfn): boolean;
}

const single = (app: CveApplicability, source: ApplicabilitySource, item: CpeMatchCriterion | AffectedCpes) =>
  indexedCriteria({
    cveId: app.cveId,
    origin: app.origin,
    statements: [
      'cpes' in item
        ? { source, configurations: [], affected: [item] }
        : {
            source,
            configurations: [{ negate: false, nodes: [{ operator: 'OR', negate: false, cpeMatch: [item] }] }],
            affected: [],
          },
    ],
  });

const covering = (kind: string | undefined) => kind !== undefined && COVERING_KINDS.has(kind as never);

/**
 * The criteria of `app` to evaluate per name: those with a row that applies to the product
 * (`applies`) and is not decided by keys (`isFast` false). A criterion that is partly fast is
 * evaluated whole: an extra exact evaluation never changes a union.
 */
export function slowCriteriaOf(
  app: CveApplicability,
  cve: number,
  applies: (row: IndexedCriterion) => boolean,
  isFast: (row: IndexedCriterion) => boolean,
): SlowCriterion[] {
  const out: SlowCriterion[] = [];
  const consider = (
    source: ApplicabilitySource,
    item: CpeMatchCriterion | AffectedCpes,
    make: (rows: IndexedCriterion[]) => SlowCriterion,
  ) => {
    const rows = single(app, source, item).filter(applies);
    if (rows.length > 0 && rows.some((row) => !isFast(row))) out.push(make(rows));
  };
  for (const statement of app.statements) {
    for (const configuration of statement.configurations)
      for (const node of configuration.nodes)
        for (const criterion of node.cpeMatch)
          consider(statement.source, criterion, (rows) => ({
            cve,
            vulnerable: criterion.vulnerable,
            rows,
            covers: (name) => covering(criterionCoversName(criterion, name)?.kind),
          }));
    for (const entry of statement.affected)
      consider(statement.source, entry, (rows) => ({
        cve,
        vulnerable: true,
        rows,
        covers: (name) => covering(affectedCoversName(entry, name)?.kind),
      }));
  }
  return out;
}

/** The index contract's necessary test for a criterion and a name's lookup keys. */
export const mayCover = (criterion: SlowCriterion, lookup: NameLookup) =>
  criterion.rows.some((row) => rowMayMatch(row, lookup));
