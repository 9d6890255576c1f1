import { describe, expect, it } from 'vitest';
import { HostnameIndex } from './hostname-index.js';

const NAMES = [
  'mail.example.com',
  'mail-01.example.com',
  'webmail.example.org',
  'bücher.example.de',
  'büro.example.de',
  'x.io',
  'example.com',
];

describe('HostnameIndex (byte trigrams, exact check)', () => {
  const index = new HostnameIndex();
  index.beginBatch();
  for (const [i, name] of NAMES.entries()) index.add(i + 1, name);
  index.endBatch();
  index.add(100, 'mail.example.com'); // a name shared by two records

  it.each<{ contains?: string[]; domains?: string[]; expected: number[] }>([
    { contains: ['mail'], expected: [1, 2, 3, 100] },
    { contains: ['mail-'], expected: [2] },
    { contains: ['il.ex'], expected: [1, 3, 100] },
    { contains: ['üc'], expected: [4] },
    { contains: ['ü'], expected: [4, 5] },
    { contains: ['io'], expected: [6] },
    { contains: ['nothing-like-this'], expected: [] },
    { contains: ['mail', 'büro'], expected: [1, 2, 3, 5, 100] },
    { domains: ['example.com'], expected: [1, 2, 7, 100] },
    { domains: ['example.de'], expected: [4, 5] },
    { contains: ['mail'], domains: ['example.com'], expected: [1, 2, 100] },
  ])('contains $contains within $domains', ({ contains, domains, expected }) => {
    expect([...index.search(contains, domains)].sort((a, b) => a - b)).toEqual(expected);
  });

  it('forgets a name with its last record and reuses its id', () => {
    const churn = new HostnameIndex();
    churn.add(1, 'bücher.example.de');
    churn.add(2, 'shop.example.de');
    churn.remove(1);
    expect([...churn.search(['üc'], undefined)]).toEqual([]);
    churn.add(3, 'büro.example.de');
    expect([...churn.search(['ü'], undefined)]).toEqual([3]);
    expect([...churn.search(['shop'], undefined)]).toEqual([2]);
    expect(churn.size).toBe(2);
  });

  it('removes a batch of records, keeping a shared name for its remaining record', () => {
    const batch = new HostnameIndex();
    batch.add(1, 'mail.example.com');
    batch.add(2, 'mail.example.com');
    batch.add(3, 'mail.example.com');
    batch.add(4, 'vpn.example.com');
    batch.removeMany([1, 3, 4, 4, 9]);
    expect([...batch.search(['mail'], undefined)]).toEqual([2]);
    expect([...batch.search(['vpn'], undefined)]).toEqual([]);
    expect(batch.size).toBe(1);
    batch.removeMany([2]);
    expect(batch.size).toBe(0);
  });
});

describe('HostnameIndex remembered searches', () => {
  const SEARCHES: Array<{ contains?: string[]; domains?: string[] }> = [
    { contains: ['mail'] },
    { contains: ['web-'] },
    { domains: ['example.com'] },
    { contains: ['ü'] },
    { contains: ['mail', 'vpn'], domains: ['example.org'] },
  ];
  const WORDS = ['mail', 'web-', 'vpn', 'büro', 'shop'];
  const DOMAINS = ['example.com', 'example.org', 'sub.example.com', 'other.net'];

  const expected = (names: Map<number, string>, { contains, domains }: { contains?: string[]; domains?: string[] }) =>
    [...names]
      .filter(([, name]) => !contains || contains.some((needle) => name.includes(needle)))
      .filter(([, name]) => !domains || domains.some((domain) => name === domain || name.endsWith(`.${domain}`)))
      .map(([record]) => record)
      .sort((a, b) => a - b);

  it('stay exact while records are added, renamed and removed', () => {
    const index = new HostnameIndex();
    const names = new Map<number, string>();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 3000; step++) {
      const record = 1 + random(300);
      if (names.has(record)) {
        index.remove(record);
        names.delete(record);
      }
      if (random(4) > 0) {
        const name = `${WORDS[random(WORDS.length)]}${random(20)}.${DOMAINS[random(DOMAINS.length)]}`;
        index.add(record, name);
        names.set(record, name);
      }
      if (step % 50 === 25) {
        // Expiry's batched removal, names shared by several records included.
        const batch = Array.from({ length: 1 + random(40) }, () => 1 + random(300));
        index.removeMany(batch);
        for (const removed of batch) names.delete(removed);
      }
      if (step % 100 === 0) {
        for (const search of SEARCHES) {
          expect([...index.search(search.contains, search.domains)].sort((a, b) => a - b)).toEqual(
            expected(names, search),
          );
        }
      }
    }
  });

  it('answer alike whether changes were written one by one or in batches', () => {
    const single = new HostnameIndex();
    const batched = new HostnameIndex();
    const names = new Map<number, string>();
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 60; round++) {
      batched.beginBatch();
      // Within a batch a name may be added, removed and its id freed and handed out again.
      for (let step = 0; step < 40; step++) {
        const record = 1 + random(120);
        if (names.has(record) || random(5) === 0) {
          const batch = random(3) === 0 ? [record, 1 + random(120)] : [record];
          single.removeMany(batch);
          batched.removeMany(batch);
          for (const removed of batch) names.delete(removed);
        }
        if (random(3) > 0) {
          const name = `${WORDS[random(WORDS.length)]}${random(30)}.${DOMAINS[random(DOMAINS.length)]}`;
          single.add(record, name);
          batched.add(record, name);
          names.set(record, name);
        }
      }
      batched.endBatch();
      // Searches not remembered yet are answered from the trigram postings.
      const fresh: typeof SEARCHES = [
        { contains: [`${WORDS[round % WORDS.length]}${round % 30}.`] },
        { contains: [`${round % 30}.${DOMAINS[round % DOMAINS.length]}`] },
      ];
      for (const search of [...SEARCHES, ...fresh]) {
        const want = expected(names, search);
        expect([...single.search(search.contains, search.domains)].sort((a, b) => a - b)).toEqual(want);
        expect([...batched.search(search.contains, search.domains)].sort((a, b) => a - b)).toEqual(want);
      }
      expect(batched.size).toBe(single.size);
      expect(batched.bytes()).toBe(single.bytes());
    }
  });

  it('hand out copies: changing a result does not change the next one', () => {
    const index = new HostnameIndex();
    index.add(1, 'mail.example.com');
    index.search(['mail'], undefined).add(99);
    expect([...index.search(['mail'], undefined)]).toEqual([1]);
  });
});
