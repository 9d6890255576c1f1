import { describe, expect, it } from 'vitest';
import type { MatchCriterion, MatchEntry } from '../../core/advisory/facts.js';
import { ItemStore } from './item-store.js';

const criterion = (i: number): MatchCriterion => ({
  criteria: `cpe:2.3:a:vendor${i}:product_ü${i}:*:*:*:*:*:*:*:*`,
  range: { startIncluding: `${i}.0`, endExcluding: `${i}.9` },
});
const entry = (i: number): MatchEntry => ({
  vendor: `vendor${i}`,
  product: `product${i}`,
  versions: [{ version: `${i}.0`, status: 'affected', lessThan: `${i}.5`, versionType: 'semver' }],
  defaultStatus: 'unaffected',
});

describe('ItemStore', () => {
  it('gives ascending ids and decodes each item as stored, by kind', () => {
    const store = new ItemStore();
    expect(store.add({ entry: entry(1) })).toBe(0);
    expect(store.add({ criterion: criterion(2) })).toBe(1);
    expect([store.has(0), store.isCriterion(0), store.entry(0)]).toEqual([true, false, entry(1)]);
    expect([store.has(1), store.isCriterion(1), store.criterion(1)]).toEqual([true, true, criterion(2)]);
    expect(store.has(2)).toBe(false);
  });

  it('keeps every live item intact through deletions that compact the buffer', () => {
    const store = new ItemStore();
    const count = 30_000;
    for (let i = 0; i < count; i++) store.add(i % 3 === 0 ? { entry: entry(i) } : { criterion: criterion(i) });
    // Deleting most items leaves over 1 MiB of garbage, more than half the buffer: it is compacted.
    for (let i = 0; i < count; i++) if (i % 10 !== 7) store.delete(i);
    for (let i = count; i < count + 100; i++) store.add({ criterion: criterion(i) });
    for (let i = 0; i < count + 100; i++) {
      const live = i >= count || i % 10 === 7;
      expect(store.has(i)).toBe(live);
      if (!live) continue;
      if (i < count && i % 3 === 0) expect(store.entry(i)).toEqual(entry(i));
      else expect(store.criterion(i)).toEqual(criterion(i));
    }
    expect(store.byteLength).toBeLessThan(4 * 2 ** 20);
  });
});
