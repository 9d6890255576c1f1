import { describe, expect, it } from 'vitest';
import { parseHostQuery, typedFilters } from '../server/routes/target-intel/query.js';
import type { IndexEntry } from '../core/host-record.js';
import { HostIndex } from './host-index.js';

const APACHE = JSON.stringify([
  {
    vendor: 'Apache',
    product: 'HTTP_Server',
    version: '2.4.49',
    cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
  },
]);
const NGINX = JSON.stringify([{ vendor: 'nginx', product: 'nginx', version: '1.20.0' }]);

function entry(id: number, fingerprintsJson: string, cvesJson = '[]', classificationsJson = '[]'): IndexEntry {
  return {
    id,
    ip: `192.0.2.${id}`,
    port: 80,
    protocol: 'tcp',
    hostname: `h${id}.example`,
    observedAt: id * 1000,
    dateAdded: id * 1000,
    asn: 'as64500',
    countryCode: 'de',
    country: 'Germany',
    fingerprintsJson,
    cvesJson,
    confirmed: false,
    classificationsJson,
  };
}

const ids = (index: HostIndex, params: Record<string, string>) =>
  [...index.evaluate(parseHostQuery(typedFilters(params)))].sort((a, b) => a - b);

describe('index terms remembered per list text', () => {
  it.each<{ params: Record<string, string>; expected: number[] }>([
    { params: { vendor: 'apache', product: 'http_server', version: '2.4.49' }, expected: [3] },
    { params: { cpe: 'cpe:2.3:a:apache:http_server:2.4.49' }, expected: [3] },
    { params: { vendor: 'nginx' }, expected: [2] },
    { params: { cve: 'cve-2021-41773' }, expected: [3] },
    { params: { contains_cve: 'true' }, expected: [3] },
    { params: { classifications: 'c2' }, expected: [2] },
    { params: { classifications: 'c2:cobalt' }, expected: [2] },
    { params: { asn: 'AS64500', country_code: 'DE', country: 'germany' }, expected: [2, 3] },
  ])(
    'an identity whose last record left is found again when a record brings it back: $params',
    ({ params, expected }) => {
      const index = new HostIndex();
      index.upsert(entry(1, APACHE, '["CVE-2021-41773"]'), 1);
      index.upsert(entry(2, NGINX, '[]', '["c2:cobalt"]'), 2);
      index.remove(1, 3);
      expect(ids(index, { vendor: 'apache' })).toEqual([]);
      index.upsert(entry(3, APACHE, '["CVE-2021-41773"]'), 4);
      expect(ids(index, params)).toEqual(expected);
    },
  );

  it('replacing a record moves it between identities', () => {
    const index = new HostIndex();
    index.upsert(entry(1, APACHE), 1);
    index.upsert({ ...entry(1, NGINX) }, 2);
    expect(ids(index, { vendor: 'apache', product: 'http_server' })).toEqual([]);
    expect(ids(index, { vendor: 'nginx', product: 'nginx' })).toEqual([1]);
  });
});
