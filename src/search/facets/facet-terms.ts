import type { Postings } from '../postings.js';
import { FACET_FIELDS, type FacetField } from './fields.js';

/** Term-name prefix → the field whose values such terms are (record-terms.ts names them). */
const PREFIXES: ReadonlyArray<readonly [string, FacetField]> = [
  ['cve:', 'cve'],
  ['v:', 'vendor'],
  ['p:', 'product'],
  ['ver:', 'version'],
  ['fp:', 'cpe'],
  ['cls:', 'classifications'],
  ['asn:', 'asn'],
  ['asname:', 'as_name'],
  ['cc:', 'country_code'],
  ['cn:', 'country'],
  ['proto:', 'protocol'],
];

/** Fingerprint values that stand for "any": records do not show them, so they are no value. */
const FINGERPRINT_FIELDS: ReadonlySet<FacetField> = new Set(['vendor', 'product', 'version', 'cpe']);
const WILDCARDS: ReadonlySet<string> = new Set(['', '*', '-']);

const UNSEEN = 0;
const NONE = 255;

/**
 * What each term is to facet counting — the field it is a value of, and the value — worked out
 * once per term id (a term's name never changes) and kept in typed arrays, because counting looks
 * it up for every term of every group the matching records hold. Several fingerprint terms name
 * one CPE: each maps to one representative ("canonical") term, so a CPE counts once per record.
 */
export class FacetTerms {
  /** Per term id: its field's index in FACET_FIELDS plus one, UNSEEN, or NONE. */
  private kinds = new Uint8Array(1024);
  private canonical = new Uint32Array(1024);
  private readonly values = new Map<number, string>();
  private readonly cpeTerms = new Map<string, number>();
  /** Per field, the terms counted for its values (canonical ones), in the order learnt. */
  private readonly counted: number[][] = FACET_FIELDS.map(() => []);

  constructor(private readonly postings: Postings) {}

  /** The index in FACET_FIELDS of the field whose value the term is, or -1. */
  fieldOf(termId: number): number {
    if (termId >= this.kinds.length) this.grow(termId);
    let kind = this.kinds[termId]!;
    if (kind === UNSEEN) kind = this.learn(termId);
    return kind === NONE ? -1 : kind - 1;
  }

  /** The term counted for this one (itself, except for a CPE named by several terms); after fieldOf. */
  canonicalOf(termId: number): number {
    return this.canonical[termId]!;
  }

  /** The terms counted for the values of the field (index in FACET_FIELDS) learnt so far. */
  countedTermsOf(field: number): readonly number[] {
    return this.counted[field]!;
  }

  /** The value a term of a facet field stands for; after fieldOf. */
  valueOfTerm(termId: number): string {
    return this.values.get(termId)!;
  }

  private learn(termId: number): number {
    const name = this.postings.nameOf(termId);
    let kind = NONE;
    for (const [prefix, field] of PREFIXES) {
      if (!name.startsWith(prefix)) continue;
      const text = name.slice(prefix.length);
      // A fingerprint term is named by the JSON of [vendor, product, version, cpe].
      const value = field === 'cpe' ? ((JSON.parse(text) as string[])[3] ?? '') : text;
      if (!(FINGERPRINT_FIELDS.has(field) && WILDCARDS.has(value))) {
        kind = FACET_FIELDS.indexOf(field) + 1;
        this.values.set(termId, value);
        this.canonical[termId] = field === 'cpe' ? this.cpeTermOf(value, termId) : termId;
        if (this.canonical[termId] === termId) this.counted[kind - 1]!.push(termId);
      }
      break;
    }
    this.kinds[termId] = kind;
    return kind;
  }

  private cpeTermOf(cpe: string, termId: number): number {
    let canonical = this.cpeTerms.get(cpe);
    if (canonical === undefined) {
      canonical = termId;
      this.cpeTerms.set(cpe, termId);
    }
    return canonical;
  }

  private grow(termId: number): void {
    const length = Math.max(termId + 1, this.kinds.length * 2);
    const kinds = new Uint8Array(length);
    kinds.set(this.kinds);
    this.kinds = kinds;
    const canonical = new Uint32Array(length);
    canonical.set(this.canonical);
    this.canonical = canonical;
  }
}
