/**
 * The confirmed-only question (what ingest and re-mapping ask): is a CVE confirmed on a context,
 * without building evidence. It is split in two so a matcher can reuse the costly half: the
 * *marks* of one context name on a CVE (what the name does to each criterion: a hit, a definite
 * one, a confirming one, an exclusion), which depend on that name alone; then `confirmedByMarks`,
 * which combines the marks of a context's names by the same Kleene logic as evaluate.ts.
 * Combining is exact because a criterion's outcome only unions its names' hits and exclusions.
 */
import { parseCached } from '../advisory/cpe-match.js';
import { ANY, formatCpe23, isPlainValue, type Wfn } from '../cpe.js';
import { COVERING_KINDS, configurationValue, hasInvalid, HOST, nodeValue, type Tri } from './evaluate.js';
import {
  isConcrete,
  isMatch,
  relateAffected,
  relateCriterion,
  type NameMatch,
  versionListConfirms,
} from './name-match.js';
import type { AffectedCpes, ContextCpe, CpeMatchCriterion, CveApplicability } from './types.js';

/** Per criterion (slot 1 on, in statement, configuration, node, criterion order). */
const HIT = 1;
const DEFINITE = 2;
const CONFIRMING = 4;
const EXCLUDED = 8;
const INVALID = 16;
/** Slot 0: a CVE 5 affected entry confirms the CVE by this name alone. */
const AFFECTED_CONFIRMS = 1;

/** What one context name does to each criterion of a CVE (and whether an affected entry confirms on it). */
export type Marks = Uint8Array;

const isConfirming = (match: NameMatch) => match.truth === 'definite' && COVERING_KINDS.has(match.kind);

/** A criterion with its name parsed, and its product when a plain value (letters, digits, `_`). */
interface ParsedCriterion {
  criterion: CpeMatchCriterion;
  wfn: Wfn | undefined;
  plainProduct: string | undefined;
}

const plainOf = (value: string) => (isPlainValue(value) ? value : undefined);

const parsedCriteria = new WeakMap<CveApplicability, ParsedCriterion[]>();

/** A CVE's criteria in mark order (statement, configuration, node, criterion), parsed once per applicability. */
function criteriaOf(app: CveApplicability): ParsedCriterion[] {
  let criteria = parsedCriteria.get(app);
  if (criteria === undefined) {
    criteria = [];
    for (const statement of app.statements)
      for (const configuration of statement.configurations)
        for (const node of configuration.nodes)
          for (const criterion of node.cpeMatch) {
            const wfn = parseCached(criterion.criteria);
            criteria.push({ criterion, wfn, plainProduct: wfn ? plainOf(wfn.product) : undefined });
          }
    parsedCriteria.set(app, criteria);
  }
  return criteria;
}

function criterionMark(
  { criterion, wfn, plainProduct }: ParsedCriterion,
  input: ContextCpe,
  inputProduct: string | undefined,
): number {
  if (!wfn) return INVALID;
  // The host's OS guesses only stand for the platform a configuration runs on or with.
  if (criterion.vulnerable && input.role === 'os') return 0;
  // Two different plain products are disjoint: the criterion names another product.
  if (plainProduct !== undefined && inputProduct !== undefined && plainProduct !== inputProduct) return 0;
  const relation = relateCriterion(wfn, criterion.range, input.wfn, HOST);
  if (relation === 'excluded') return EXCLUDED;
  if (!isMatch(relation)) return 0;
  if (relation.truth !== 'definite') return HIT;
  return isConfirming(relation) ? HIT | DEFINITE | CONFIRMING : HIT | DEFINITE;
}

const distinctCpesCache = new WeakMap<AffectedCpes, Wfn[]>();

/**
 * An entry's CPEs, one per product when `versions` decides: a CPE's own version (unless NA or a
 * pattern) is then never read (name-match.ts), and vendors list hundreds of CPEs that differ only there.
 */
function distinctCpes(entry: AffectedCpes): Wfn[] {
  let distinct = distinctCpesCache.get(entry);
  if (!distinct) {
    const decidedByVersions = (entry.versions ?? []).length > 0;
    const seen = new Set<string>();
    distinct = [];
    for (const cpe of entry.cpes) {
      const wfn = parseCached(cpe);
      if (!wfn) continue;
      const versionUnread = decidedByVersions && (wfn.version === ANY || isConcrete(wfn.version));
      const key = versionUnread ? formatCpe23({ ...wfn, version: ANY }) : cpe;
      if (seen.has(key)) continue;
      seen.add(key);
      distinct.push(wfn);
    }
    distinctCpesCache.set(entry, distinct);
  }
  return distinct;
}

function affectedConfirms(entry: AffectedCpes, input: ContextCpe): boolean {
  // An affected entry names vulnerable products, which an OS guess never adds to a record.
  if (input.role === 'os') return false;
  for (const wfn of distinctCpes(entry)) {
    const listed = versionListConfirms(wfn, entry, input.wfn, HOST);
    if (listed !== undefined) {
      if (listed) return true;
      continue;
    }
    const relation = relateAffected(wfn, entry, input.wfn, HOST);
    if (isMatch(relation) && isConfirming(relation)) return true;
  }
  return false;
}

/** Whether a CVE 5 affected entry confirms a fingerprint name by itself (what its slot-0 mark says). */
export const entryConfirms = (entry: AffectedCpes, name: Wfn): boolean =>
  affectedConfirms(entry, { cpe: '', wfn: name, role: 'fingerprint' });

/** The marks of one context name on a CVE. */
export function marksOf(app: CveApplicability, input: ContextCpe): Marks {
  const criteria = criteriaOf(app);
  const marks = new Uint8Array(1 + criteria.length);
  const inputProduct = plainOf(input.wfn.product);
  for (let k = 0; k < criteria.length; k++) marks[k + 1] = criterionMark(criteria[k]!, input, inputProduct);
  if (app.statements.some((statement) => statement.affected.some((entry) => affectedConfirms(entry, input))))
    marks[0] = AFFECTED_CONFIRMS;
  return marks;
}

/**
 * For a CVE whose configurations stand alone (evaluate.ts: standsAlone): whether one name confirms
 * it, as `confirmedByMarks(app, [marksOf(app, input)])` says. Such a configuration is T as soon as
 * one criterion is, so the first confirming vulnerable criterion decides and no marks are kept.
 */
export function confirmedAlone(app: CveApplicability, input: ContextCpe): boolean {
  const inputProduct = plainOf(input.wfn.product);
  for (const parsed of criteriaOf(app))
    if (parsed.criterion.vulnerable && criterionMark(parsed, input, inputProduct) & CONFIRMING) return true;
  return app.statements.some((statement) => statement.affected.some((entry) => affectedConfirms(entry, input)));
}

function criterionValue(mark: number, criterion: CpeMatchCriterion): Tri {
  if (mark & INVALID) return 'F';
  if (mark & DEFINITE) return 'T';
  if (mark & HIT) return 'U';
  // No name satisfies it: a vulnerable criterion whose product the context holds at an excluded version is false.
  return mark & EXCLUDED && criterion.vulnerable ? 'F' : 'U';
}

/** Whether the CVE is confirmed on the context whose names left these marks (one per name). */
export function confirmedByMarks(app: CveApplicability, marks: readonly Marks[]): boolean {
  if (marks.length === 0) return false;
  let merged = marks[0]!;
  if (marks.length > 1) {
    merged = new Uint8Array(merged);
    for (let i = 1; i < marks.length; i++) {
      const other = marks[i]!;
      for (let k = 0; k < merged.length; k++) merged[k]! |= other[k]!;
    }
  }
  if (merged[0]! & AFFECTED_CONFIRMS) return true;
  let k = 1;
  for (const statement of app.statements) {
    for (const configuration of statement.configurations) {
      let confirming = false;
      const nodeValues: Tri[] = [];
      for (const node of configuration.nodes) {
        const values: Tri[] = [];
        for (const criterion of node.cpeMatch) {
          const mark = merged[k++]!;
          values.push(criterionValue(mark, criterion));
          // Under an odd number of negations a satisfied criterion argues against the CVE.
          if (criterion.vulnerable && mark & CONFIRMING && node.negate === configuration.negate) confirming = true;
        }
        nodeValues.push(nodeValue(node, values));
      }
      if (confirming && configurationValue(configuration, nodeValues) === 'T') return true;
    }
  }
  return false;
}

/** A set of possible Kleene values, one bit each. */
const MAY_F = 1;
const MAY_U = 2;
const MAY_T = 4;
const TRI_BITS: readonly [Tri, number][] = [
  ['F', MAY_F],
  ['U', MAY_U],
  ['T', MAY_T],
];
const RANK: Record<Tri, number> = { F: 0, U: 1, T: 2 };

/** The values `a op b` may take for a in `left`, b in `right` (OR = max, AND = min). */
function combine(left: number, right: number, operator: 'AND' | 'OR'): number {
  let out = 0;
  for (const [a, aBit] of TRI_BITS) {
    if (!(left & aBit)) continue;
    for (const [b, bBit] of TRI_BITS) {
      if (!(right & bBit)) continue;
      const pick = operator === 'OR' ? RANK[a] >= RANK[b] : RANK[a] <= RANK[b];
      out |= pick ? aBit : bBit;
    }
  }
  return out;
}

const negated = (values: number) => (values & MAY_U) | (values & MAY_T ? MAY_F : 0) | (values & MAY_F ? MAY_T : 0);

function fold(values: number[], operator: 'AND' | 'OR', negate: boolean | undefined): number {
  let out = values[0]!;
  for (let i = 1; i < values.length; i++) out = combine(out, values[i]!, operator);
  return negate ? negated(out) : out;
}

/** A criterion for `mayBeConfirmed`: its plain product, ANY_PRODUCT when not plain, INVALID_CRITERION when unreadable. */
const ANY_PRODUCT = 1;
const INVALID_CRITERION = 0;
type PlanCriterion = string | typeof ANY_PRODUCT | typeof INVALID_CRITERION;

interface PlanNode {
  and: boolean;
  negate: boolean;
  /** An unreadable criterion under AND or negation: the node is F whatever the names. */
  false: boolean;
  criteria: PlanCriterion[];
}

/** A CVE's configurations reduced to what `mayBeConfirmed` reads, made once per applicability. */
interface Plan {
  /** Whether a name of any product may change a mark (a criterion without a plain product, or CVE 5 entries). */
  anyProduct: boolean;
  /** CVE 5 entries, which `mayBeConfirmed` does not read. */
  affected: boolean;
  products: Set<string>;
  configurations: { or: boolean; negate: boolean; false: boolean; nodes: PlanNode[] }[];
}

const plans = new WeakMap<CveApplicability, Plan>();

function planOf(app: CveApplicability): Plan {
  let plan = plans.get(app);
  if (plan) return plan;
  const criteria = criteriaOf(app);
  plan = { anyProduct: false, affected: false, products: new Set(), configurations: [] };
  let k = 0;
  for (const statement of app.statements) {
    if (statement.affected.length > 0) plan.anyProduct = plan.affected = true;
    for (const configuration of statement.configurations) {
      const nodes = configuration.nodes.map((node): PlanNode => {
        const invalid = hasInvalid(node);
        return {
          and: node.operator === 'AND',
          negate: node.negate,
          false: (invalid && (node.operator === 'AND' || node.negate)) || node.cpeMatch.length === 0,
          criteria: node.cpeMatch.map(() => {
            const { wfn, plainProduct } = criteria[k++]!;
            if (!wfn) return INVALID_CRITERION;
            if (plainProduct === undefined) {
              plan!.anyProduct = true;
              return ANY_PRODUCT;
            }
            plan!.products.add(plainProduct);
            return plainProduct;
          }),
        };
      });
      plan.configurations.push({
        or: configuration.operator === 'OR',
        negate: configuration.negate,
        false: nodes.length === 0 || (configuration.negate && configuration.nodes.some(hasInvalid)),
        nodes,
      });
    }
  }
  plans.set(app, plan);
  return plan;
}

/**
 * Whether a name of this product may leave a mark on the CVE other than an unreadable criterion's
 * (which every name leaves): when not, its marks add nothing to the others'.
 */
export function mayMark(app: CveApplicability, product: string): boolean {
  const plan = planOf(app);
  return plan.anyProduct || !isPlainValue(product) || plan.products.has(product);
}

/** The products of a context's names, as `mayBeConfirmed` reads them (`any` when one is not a plain value). */
export function productsOf(context: readonly ContextCpe[]): ReadonlySet<string> | 'any' {
  const products = new Set<string>();
  for (const { wfn } of context) {
    if (!isPlainValue(wfn.product)) return 'any';
    products.add(wfn.product);
  }
  return products;
}

/**
 * Whether a context whose names have these products (plain values; `any`: some name's product is
 * not plain) may confirm the CVE, decided from the CVE's criteria alone: a criterion whose product
 * no name has keeps the value it has without names (U, or F when unreadable), so when no
 * configuration can then be T, the names' marks need not be worked out. Never false for a
 * context that confirms the CVE; true for CVE 5 entries, which this does not read.
 */
export function mayBeConfirmed(app: CveApplicability, products: ReadonlySet<string> | 'any'): boolean {
  const plan = planOf(app);
  if (plan.affected) return true;
  for (const configuration of plan.configurations) {
    if (configuration.false) continue;
    const nodeValues = configuration.nodes.map((node) => {
      if (node.false) return MAY_F;
      const values = node.criteria.map((criterion) =>
        criterion === INVALID_CRITERION
          ? MAY_F
          : products === 'any' || criterion === ANY_PRODUCT || products.has(criterion)
            ? MAY_F | MAY_U | MAY_T
            : MAY_U,
      );
      return fold(values, node.and ? 'AND' : 'OR', node.negate);
    });
    if (fold(nodeValues, configuration.or ? 'OR' : 'AND', configuration.negate) & MAY_T) return true;
  }
  return false;
}

/** `evaluateApplicability(app, context).some((e) => e.confirmed)`, without building the evidence. */
export function isConfirmed(app: CveApplicability, context: ContextCpe[]): boolean {
  return confirmedByMarks(
    app,
    context.map((input) => marksOf(app, input)),
  );
}
