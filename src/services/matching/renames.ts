/**
 * The product renames a storage's knowledge holds, for target-intel's vendor and product filters:
 * read whole (they are few), and read again when the knowledge generation has moved, looked at
 * no more than once a second, so a filter rarely costs a statement.
 */
import { ProductRenames } from '../../search/product-renames.js';
import type { Storage } from '../../storage/index.js';

const CHECK_EVERY_MS = 1000;

interface Held {
  renames: ProductRenames;
  generation: number;
  checkedAt: number;
  /** The look under way, which concurrent callers share. */
  pending?: Promise<ProductRenames>;
}

const held = new WeakMap<Storage, Held>();

/** The renames as of at most a second ago (`now`: a later time forces a look). */
export function productRenamesOf(storage: Storage, now = performance.now()): Promise<ProductRenames> {
  let entry = held.get(storage);
  if (!entry) {
    entry = { renames: new ProductRenames([]), generation: -1, checkedAt: -Infinity };
    held.set(storage, entry);
  }
  if (entry.pending !== undefined) return entry.pending;
  if (now - entry.checkedAt < CHECK_EVERY_MS) return Promise.resolve(entry.renames);
  const looking = entry;
  looking.pending = (async () => {
    try {
      const generation = await storage.knowledge.generation();
      if (generation !== looking.generation) {
        looking.renames = new ProductRenames(await storage.knowledge.allAliases());
        looking.generation = generation;
      }
      looking.checkedAt = performance.now();
      return looking.renames;
    } finally {
      looking.pending = undefined;
    }
  })();
  return looking.pending;
}
