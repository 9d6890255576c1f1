/**
 * The searchable terms of an advisory record, and how values are normalised so that a query and
 * a record spell them the same way. Storage keeps one row per (record, kind, value).
 */
import { ANY, parseCpe, unquoteWfnValue, type Wfn } from '../cpe.js';
import { parsePurl, purlPackageName, purlTypeForCollectionUrl, type PackageUrl } from '../purl.js';

export const TERM = {
  vendor: 1,
  product: 2,
  platform: 3,
  packageName: 4,
  /** `type:name` of a package (see {@link packageKey}), from `packageURL` or `collectionURL` + `packageName`. */
  package: 5,
  referenceUrl: 6,
  referenceTag: 7,
  descriptionLang: 8,
  /** `vendor:product` of a CPE criterion (see {@link cpeTerm}). */
  cpe: 9,
} as const;
export type TermKind = (typeof TERM)[keyof typeof TERM];

/** Case-insensitive text: trimmed, lower-cased, inner whitespace collapsed. */
export const normalizeText = (value: string) => value.trim().toLowerCase().replace(/\s+/g, ' ');

/** A package name as compared: PyPI names per PEP 503, every other type case-insensitively. */
export function normalizePackageName(type: string, name: string): string {
  const lower = name.trim().toLowerCase();
  return type === 'pypi' ? lower.replace(/[-_.]+/g, '-') : lower;
}

/** `type:name` (e.g. `npm:@babel/core`, `maven:org.apache:log4j`, `golang:github.com/x/y`). */
export const packageKey = (type: string, name: string) =>
  `${type.toLowerCase()}:${normalizePackageName(type.toLowerCase(), name)}`;

export const purlKey = (purl: PackageUrl) => packageKey(purl.type, purlPackageName(purl));

/** The package key of a CVE 5 affected entry's `packageURL`, when it parses. */
export function packageUrlKey(packageURL: string): string | undefined {
  try {
    return purlKey(parsePurl(packageURL));
  } catch {
    return undefined;
  }
}

/** The package key of `collectionURL` + `packageName`, when the registry is known. */
export function collectionKey(collectionURL: string, packageName: string): string | undefined {
  const type = purlTypeForCollectionUrl(collectionURL);
  return type ? packageKey(type, packageName) : undefined;
}

/** `vendor:product` with the WFN quoting removed, lower-case; the CPE term of a criterion or query. */
export const cpeTerm = (wfn: Wfn) => `${unquoteWfnValue(wfn.vendor)}:${unquoteWfnValue(wfn.product)}`;

/** The CPE term of a criterion string, unless it does not parse or has no concrete vendor. */
export function cpeTermOf(criteria: string): string | undefined {
  try {
    const wfn = parseCpe(criteria);
    return wfn.vendor === ANY ? undefined : cpeTerm(wfn);
  } catch {
    return undefined;
  }
}

/** BCP 47 tags compare case-insensitively; `en` also finds `en-US`. */
export const normalizeLang = (lang: string) => lang.trim().toLowerCase().replace(/_/g, '-');
