import { describe, expect, it } from 'vitest';
import { HostnameIndex } from './hostname-index.js';

const NAMES = ['mail.example.com', 'mail-01.example.com', 'webmail.example.org', 'bücher.example.de', 'büro.example.de', 'x.io', 'example.com'];

describe('HostnameIndex (byte trigrams, exact check)', () => {
  const index = new HostnameIndex();
  index.beginBulk();
  NAMES.forEach((name, i) => index.add(i + 1, name));
  index.endBulk();
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
});

describe('HostnameIndex remembered searches', () => {
  const SEARCHES: Array<{ contains?: string[]; domains?: string[] }> = [
    { contains: ['mail'] }, { contains: ['web-'] }, { domains: ['example.com'] }, { contains: ['ü'] },
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
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
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
      if (step % 100 === 0) {
        for (const search of SEARCHES) {
          expect([...index.search(search.contains, search.domains)].sort((a, b) => a - b)).toEqual(expected(names, search));
        }
      }
    }
  });

  it('hand out copies: changing a result does not change the next one', () => {
    const index = new HostnameIndex();
    index.add(1, 'mail.example.com');
    index.search(['mail'], undefined).add(99);
    expect([...index.search(['mail'], undefined)]).toEqual([1]);
  });
});
