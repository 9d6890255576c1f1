/**
 * Per criteria row key (`part:vendor:product`, `*` for ANY): how many rows knowledge holds and how
 * many belong to CVEs a key-decided hit confirms by itself. Host matching asks it, for every cold
 * fingerprint name, whether the product has criteria at all, which of its eight row keys to read
 * and whether preparing its structure pays. Read whole in pages on first use, then kept current
 * per key from the product change log (CpeCveIndex calls `changed`).
 */
import {
  identityCombinations,
  type KnowledgeRepository,
  type ProductCounts,
  type ProductIdentity,
} from '../../storage/index.js';
import type { Slicer } from '../slices.js';

type Knowledge = Pick<KnowledgeRepository, 'productCountsPage' | 'productCounts'>;

/** Row keys per page of the whole read: each page is one index range on SQLite. */
const PAGE = 2000;

/** `part:vendor:product`, `*` for ANY: how the catalog and the change log name a row key. */
export const productKeyOf = (identity: ProductIdentity) => `${identity.part}:${identity.vendor}:${identity.product}`;

export class ProductCatalog {
  private counts = new Map<string, ProductCounts>();
  /** The whole read, running or done; undefined: to be read. */
  private loaded: Promise<void> | undefined;
  /** The whole read finished and nothing asked for another since (answers need no await). */
  private ready = false;
  private reads = 0;
  /** Keys written since their count was read: read again when asked. */
  private readonly stale = new Set<string>();

  constructor(private readonly knowledge: Knowledge) {}

  /** Knowledge wrote these row keys. */
  changed(keys: Iterable<string>): void {
    for (const key of keys) this.stale.add(key);
  }

  /** Knowledge changed in ways the change log no longer lists: read everything again. */
  changedAll(): void {
    this.loaded = undefined;
    this.ready = false;
    this.stale.clear();
  }

  /** The row keys with criteria among a concrete product's eight (each value or `*`). */
  async keysOf(identity: ProductIdentity, slicer: Slicer): Promise<ProductCounts[]> {
    if (!this.ready) await this.load(slicer);
    const out: ProductCounts[] = [];
    for (const key of identityCombinations(identity)) {
      const text = productKeyOf(key);
      const counts = this.stale.has(text) ? await this.countsOf(key, slicer) : this.counts.get(text);
      if (counts !== undefined && counts.rows > 0) out.push(counts);
    }
    return out;
  }

  /** The counts of one row key. */
  async countsOf(key: ProductIdentity, slicer: Slicer): Promise<ProductCounts> {
    if (!this.ready) await this.load(slicer);
    const text = productKeyOf(key);
    if (this.stale.delete(text)) {
      const fresh = await this.knowledge.productCounts(key);
      if (fresh.rows > 0) this.counts.set(text, fresh);
      else this.counts.delete(text);
    }
    return this.counts.get(text) ?? { ...key, rows: 0, decided: 0 };
  }

  private load(slicer: Slicer): Promise<void> {
    this.loaded ??= this.readAll(slicer).catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  private async readAll(slicer: Slicer): Promise<void> {
    const read = ++this.reads;
    const counts = new Map<string, ProductCounts>();
    let after: ProductIdentity | undefined;
    for (;;) {
      const page = await this.knowledge.productCountsPage(after, PAGE);
      for (const entry of page) counts.set(productKeyOf(entry), entry);
      if (page.length < PAGE) break;
      after = page[page.length - 1];
      await slicer.yieldIfDue();
    }
    // A read started after this one (knowledge changed meanwhile) has the newer counts.
    if (read !== this.reads) return;
    this.counts = counts;
    this.ready = this.loaded !== undefined;
  }
}
