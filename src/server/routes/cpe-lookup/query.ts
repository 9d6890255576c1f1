import {
  ANY,
  CPE_ATTRIBUTES,
  formatCpe23,
  hasUnquotedWildcard,
  NA,
  parseCpeQuery,
  unquoteWfnValue,
  type Wfn,
} from '../../../core/cpe.js';
import { badRequest } from '../../../core/errors.js';
import type { CpeLookupQuery } from '../../../core/api/index.js';
import { isConcrete } from '../../../core/applicability/name-match.js';

/** The attributes past the version, which the name index does not select by. */
const EXTRAS = CPE_ATTRIBUTES.slice(4);

/** A `/v3/cpe` lookup as the name index and the CVE structures run it. */
export interface CpeLookup {
  /** The CPE as sent (trimmed), echoed in `_meta.cpe`. */
  cpe: string;
  wfn: Wfn;
  /** The CPE 2.3 string of the CPE itself when it is a name (no wildcard in part…version). */
  ownName?: string;
  /** Which names of the index to take (values unquoted, as CPE search takes them). */
  names: { part?: string; vendor?: string; product?: string; version?: string; versionPrefix: boolean };
  /** Whether the names need NISTIR 7696 matching against `wfn` beyond the index's selection (update, target_sw, …). */
  filterExtras: boolean;
  isVulnerable: boolean;
}

const refuse = (cpe: string, why: string) => badRequest(`parameter "cpe": ${why}, got "${cpe}"`);

/** Vendor or product: ANY (no filter), or one value matched exactly. */
function exactOrAny(cpe: string, wfn: Wfn, attribute: 'vendor' | 'product'): string | undefined {
  const value = wfn[attribute];
  if (value === ANY) return undefined;
  if (!isConcrete(value)) throw refuse(cpe, `the ${attribute} must be a value or * (no wildcard inside, not -)`);
  return unquoteWfnValue(value);
}

/** The version: ANY, NA, a value, or a value followed by one `*` (a prefix). */
function versionOf(cpe: string, value: string): { version?: string; versionPrefix: boolean } {
  if (value === ANY) return { versionPrefix: false };
  if (value === NA || isConcrete(value)) return { version: unquoteWfnValue(value), versionPrefix: false };
  const stem = value.slice(0, -1);
  if (value.endsWith('*') && !value.endsWith('\\*') && stem !== '' && !hasUnquotedWildcard(stem))
    return { version: unquoteWfnValue(stem), versionPrefix: true };
  throw refuse(cpe, 'the version may hold a wildcard only as one trailing * (a prefix)');
}

export function parseCpeLookup(raw: CpeLookupQuery): CpeLookup {
  const cpe = raw.cpe.trim();
  if (cpe === '') throw badRequest('parameter "cpe" must not be empty');
  let wfn: Wfn;
  try {
    wfn = parseCpeQuery(cpe);
  } catch (error) {
    throw badRequest(`parameter "cpe": ${(error as Error).message}`);
  }
  if (wfn.part === NA) throw refuse(cpe, 'the part must be a, o, h or *');
  const vendor = exactOrAny(cpe, wfn, 'vendor');
  const product = exactOrAny(cpe, wfn, 'product');
  if (vendor === undefined && product === undefined) throw refuse(cpe, 'name a vendor or a product (both are *)');
  const version = versionOf(cpe, wfn.version);
  const plainExtras = EXTRAS.every((attribute) => !hasUnquotedWildcard(wfn[attribute]) || wfn[attribute] === ANY);
  const isName =
    isConcrete(wfn.part) &&
    (wfn.version === NA || isConcrete(wfn.version)) &&
    vendor !== undefined &&
    product !== undefined &&
    plainExtras;
  return {
    cpe,
    wfn,
    ...(isName ? { ownName: formatCpe23(wfn) } : {}),
    names: {
      ...(wfn.part !== ANY ? { part: wfn.part } : {}),
      ...(vendor !== undefined ? { vendor } : {}),
      ...(product !== undefined ? { product } : {}),
      ...version,
    },
    filterExtras: EXTRAS.some((attribute) => wfn[attribute] !== ANY),
    isVulnerable: raw.isVulnerable ?? false,
  };
}
