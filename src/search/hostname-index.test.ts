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
