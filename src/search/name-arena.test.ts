import { describe, expect, it } from 'vitest';
import { NameArena, utf8 } from './name-arena.js';

describe('NameArena', () => {
  const arena = new NameArena();
  const names = ['mail.example.com', 'example.com', 'notexample.com', 'bücher.example.de', 'a'];
  for (const [i, name] of names.entries()) arena.set(i + 1, name);

  it.each([
    { id: 1, needle: 'mail', expected: true },
    { id: 1, needle: '.com', expected: true },
    { id: 1, needle: 'mail.example.com', expected: true },
    { id: 1, needle: 'mail.example.comx', expected: false },
    { id: 2, needle: 'mail', expected: false },
    { id: 4, needle: 'ücher', expected: true },
    { id: 4, needle: 'ucher', expected: false },
    { id: 5, needle: 'a', expected: true },
    { id: 5, needle: 'ab', expected: false },
    { id: 9, needle: 'a', expected: false },
  ])('name $id contains "$needle": $expected', ({ id, needle, expected }) => {
    expect(arena.contains(id, utf8(needle))).toBe(expected);
  });

  it.each([
    { id: 1, domain: 'example.com', expected: true },
    { id: 2, domain: 'example.com', expected: true },
    { id: 3, domain: 'example.com', expected: false },
    { id: 1, domain: 'com', expected: true },
    { id: 4, domain: 'example.de', expected: true },
    { id: 1, domain: 'mail.example.com.evil', expected: false },
  ])('name $id within "$domain": $expected', ({ id, domain, expected }) => {
    expect(arena.isWithinDomain(id, utf8(domain))).toBe(expected);
  });

  it.each([
    { name: 'mail.example.com', id: 1 },
    { name: 'bücher.example.de', id: 4 },
    { name: 'a', id: 5 },
    { name: 'example.co', id: 0 },
    { name: 'mail.example.comx', id: 0 },
  ])('finds "$name" under id $id', ({ name, id }) => {
    expect(arena.idOf(name)).toBe(id);
  });

  it('finds every name after growth and deletions in probe chains', () => {
    const table = new NameArena();
    for (let id = 1; id <= 5000; id++) table.set(id, `n${id}`);
    for (let id = 1; id <= 5000; id += 2) table.clear(id);
    for (let id = 1; id <= 5000; id++) expect(table.idOf(`n${id}`)).toBe(id % 2 === 0 ? id : 0);
    expect(table.size).toBe(2500);
    expect(table.highestId).toBe(5000);
  });

  it('keeps names intact across replacements, removals and compaction', () => {
    const churn = new NameArena();
    const expected = new Map<number, string>();
    // Enough churn to pass the compaction threshold (1 MiB of garbage) at least once.
    for (let round = 0; round < 40; round++) {
      for (let id = 1; id <= 2000; id++) {
        if ((id + round) % 3 === 0) {
          churn.clear(id);
          expected.delete(id);
        } else {
          const name = `host-${id}-round-${round}.${'x'.repeat(id % 20)}.example`;
          churn.set(id, name);
          expected.set(id, name);
        }
      }
    }
    expect(churn.size).toBe(expected.size);
    for (let id = 1; id <= 2000; id++) {
      const name = expected.get(id);
      expect(churn.has(id)).toBe(name !== undefined);
      if (name === undefined) {
        expect(churn.idOf(`host-${id}-round-39.${'x'.repeat(id % 20)}.example`)).toBe(0);
        continue;
      }
      expect(churn.idOf(name)).toBe(id);
      expect(churn.contains(id, utf8(`host-${id}-round-`))).toBe(true);
      expect(churn.isWithinDomain(id, utf8(name))).toBe(true);
      expect(churn.contains(id, utf8(`host-${id + 1}-round-`))).toBe(false);
    }
    expect(churn.byteLength).toBeLessThan(8 << 20);
  });
});
