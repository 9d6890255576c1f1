/**
 * The criteria whose coverage of a name is decided by the name's version keys alone (the property
 * test in test/search/cpe-cves checks each case against name-match.ts): a row of the product itself
 * (part, vendor and product concrete) whose criterion leaves update and every other attribute ANY,
 * and whose version part is
 * - every version (`unbounded`): covers every name of the product, versioned or not;
 * - one concrete version (`exactKey`, no bounds): covers a name whose raw or update-folded key equals it;
 * - bounds on an ANY version (`startKey`/`endKey`): covers a name whose update-folded key lies within them.
 * Everything else (`alwaysCheck`, wildcard identities, constrained attributes, a version plus bounds)
 * is evaluated exactly per name.
 */
import { ANY, type Wfn } from '../../core/cpe.js';
import { parseCached } from '../../core/advisory/cpe-match.js';
import { isConcrete } from '../../core/applicability/name-match.js';
import type { IndexedCriterion } from '../../core/applicability/types.js';

export type FastCriterion =
  | { type: 'all' }
  | { type: 'exact'; key: string }
  | { type: 'range'; start?: string; startInclusive: boolean; end?: string; endInclusive: boolean };

const OPEN_ATTRIBUTES = ['update', 'edition', 'language', 'sw_edition', 'target_sw', 'target_hw', 'other'] as const;

const identityConcrete = (wfn: Wfn) => isConcrete(wfn.part) && isConcrete(wfn.vendor) && isConcrete(wfn.product);

/** How a row decides by keys, or undefined when it must be evaluated per name. */
export function fastCriterionOf(row: IndexedCriterion): FastCriterion | undefined {
  if (row.alwaysCheck || row.part === '*' || row.vendor === '*' || row.product === '*') return undefined;
  const wfn = parseCached(row.criterion);
  if (!wfn || !identityConcrete(wfn)) return undefined;
  if (OPEN_ATTRIBUTES.some((attribute) => wfn[attribute] !== ANY)) return undefined;
  if (row.unbounded) return wfn.version === ANY ? { type: 'all' } : undefined;
  if (row.exactKey !== undefined) {
    return row.startKey === undefined && row.endKey === undefined && isConcrete(wfn.version)
      ? { type: 'exact', key: row.exactKey }
      : undefined;
  }
  if ((row.startKey === undefined && row.endKey === undefined) || wfn.version !== ANY) return undefined;
  return {
    type: 'range',
    ...(row.startKey !== undefined ? { start: row.startKey } : {}),
    startInclusive: row.startInclusive === true,
    ...(row.endKey !== undefined ? { end: row.endKey } : {}),
    endInclusive: row.endInclusive === true,
  };
}
