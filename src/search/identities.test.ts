import { describe, expect, it } from 'vitest';
import { IdentityCatalog, type Identity } from './identities.js';

const identity = (vendor: string, product: string, version: string): Identity => ({
  vendor,
  product,
  version,
  termIds: [],
});

function catalog(): IdentityCatalog {
  const identities = new IdentityCatalog();
  identities.add('a', identity('apache', 'http_server', '2.4.49'));
  identities.add('b', identity('apache', 'http_server', '2.4.50'));
  identities.add('c', identity('apache', 'tomcat', '9.0.1'));
  identities.add('d', identity('nginx', 'nginx', '1.18.0'));
  identities.add('e', identity('', '', '2.4.49'));
  return identities;
}

const keysOf = (identities: IdentityCatalog, values: Parameters<IdentityCatalog['candidates']>[0]) =>
  [...identities.candidates(values)].map(([key]) => key).sort();

describe('IdentityCatalog.candidates', () => {
  it.each([
    { values: {}, keys: ['a', 'b', 'c', 'd', 'e'] },
    { values: { vendor: 'apache' }, keys: ['a', 'b', 'c'] },
    // The rarest given value narrows: tomcat (1) rather than apache (3).
    { values: { vendor: 'apache', product: 'tomcat' }, keys: ['c'] },
    // A tie keeps the first of vendor, product, version.
    { values: { vendor: 'apache', product: 'http_server', version: '2.4.49' }, keys: ['a', 'b'] },
    { values: { vendor: 'nginx', version: '2.4.49' }, keys: ['d'] },
    { values: { vendor: 'microsoft' }, keys: [] },
    { values: { vendor: 'apache', product: 'missing' }, keys: [] },
  ])('$values → $keys (a superset the caller checks exactly)', ({ values, keys }) => {
    expect(keysOf(catalog(), values)).toEqual(keys);
  });

  it('forgets a deleted identity in every grouping', () => {
    const identities = catalog();
    identities.delete('c');
    expect(identities.get('c')).toBeUndefined();
    expect(keysOf(identities, { product: 'tomcat' })).toEqual([]);
    expect(keysOf(identities, { vendor: 'apache' })).toEqual(['a', 'b']);
    identities.delete('c');
    expect(keysOf(identities, {})).toEqual(['a', 'b', 'd', 'e']);
  });
});
