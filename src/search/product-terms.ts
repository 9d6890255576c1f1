import type { Postings } from './postings.js';

/**
 * The `cls:<type>:<product>` terms of one classification type, found by reading the term names
 * interned since the last call: names are never forgotten, so each is read once per index.
 */
export class ProductTerms {
  private scanned = 0;
  private readonly found: Array<{ product: string; name: string }> = [];
  private readonly prefix: string;

  constructor(type: string) {
    this.prefix = `cls:${type}:`;
  }

  /** Every product of the type any record ever held, in the order first seen (some may have no record now). */
  of(postings: Postings): ReadonlyArray<{ product: string; name: string }> {
    for (const limit = postings.termLimit; this.scanned < limit; this.scanned++) {
      const name = postings.nameOf(this.scanned);
      if (name.startsWith(this.prefix)) this.found.push({ product: name.slice(this.prefix.length), name });
    }
    return this.found;
  }
}
