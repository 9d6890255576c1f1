/** Version rules: comparators, CPE version folding, index keys, NVD ranges, CVE 5 and OSV status. */
export type { Comparison, Confidence, Order } from './comparison.js';
export { compareVendor, isComparableVendorVersion, normalizeVendorVersion } from './vendor.js';
export { compareVersions, isGraphVersionType, isKnownVersionType } from './compare.js';
export { foldUpdate, versionOfWfn } from './cpe-version.js';
export { versionSortKey } from './sort-key.js';
export { checkRange, inRange, type RangeCheck, type RangeResult, type VersionRange } from './range.js';
export {
  affectedStatus,
  type AffectedStatus,
  type Cve5Change,
  type Cve5Product,
  type Cve5Status,
  type Cve5VersionEntry,
} from './cve5-affected.js';
export {
  osvAffected,
  osvVersionScheme,
  type OsvAffected,
  type OsvEvent,
  type OsvRange,
  type OsvStatus,
} from './osv.js';
export { isAllVersions, isPlaceholderVersion } from './placeholders.js';
