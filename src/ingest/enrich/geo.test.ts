import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMmdb } from '../../../test/support/mmdb-writer.js';
import { openGeoEnricher } from './geo.js';

const US = { geoname_id: 6252001, iso_code: 'US', names: { en: 'United States', de: 'USA' } };
const DE = { geoname_id: 2921044, iso_code: 'DE', names: { en: 'Germany' } };

let dir: string;
let asnMmdb: string;
let countryMmdb: string;
let flatCountryMmdb: string;
let ipinfoMmdb: string;
let asDomainCsv: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-'));
  asnMmdb = join(dir, 'GeoLite2-ASN.mmdb');
  await writeMmdb(
    asnMmdb,
    [
      { cidr: '8.8.8.0/24', data: { autonomous_system_number: 15169, autonomous_system_organization: 'GOOGLE' } },
      { cidr: '2001:4860::/32', data: { autonomous_system_number: 15169, autonomous_system_organization: 'GOOGLE' } },
      {
        cidr: '1.1.1.0/24',
        data: { autonomous_system_number: 13335, autonomous_system_organization: 'CLOUDFLARENET' },
      },
      { cidr: '192.0.2.0/24', data: { autonomous_system_number: 0, autonomous_system_organization: 'Not routed' } },
      { cidr: '198.51.100.0/24', data: { autonomous_system_number: 64500, autonomous_system_organization: '' } },
    ],
    { databaseType: 'GeoLite2-ASN' },
  );
  countryMmdb = join(dir, 'GeoLite2-Country.mmdb');
  await writeMmdb(
    countryMmdb,
    [
      { cidr: '8.8.8.0/24', data: { continent: { code: 'NA' }, country: US, registered_country: US } },
      { cidr: '2001:4860::/32', data: { country: US, registered_country: US } },
      // Anycast/satellite style: only the registered country is known.
      { cidr: '1.1.1.0/24', data: { registered_country: DE } },
      { cidr: '203.0.113.0/24', data: { country: { iso_code: 'fr' } } },
    ],
    { databaseType: 'GeoLite2-Country' },
  );
  flatCountryMmdb = join(dir, 'geo-whois-asn-country.mmdb');
  await writeMmdb(
    flatCountryMmdb,
    [
      { cidr: '8.8.8.0/24', data: { country_code: 'US' } },
      { cidr: '2a00:1450::/32', data: { country_code: 'ie' } },
      { cidr: '1.1.1.0/24', data: { country_code: 'ZZ' } },
    ],
    { databaseType: 'geo-whois-asn-country' },
  );
  ipinfoMmdb = join(dir, 'ipinfo_lite.mmdb');
  await writeMmdb(
    ipinfoMmdb,
    [
      {
        cidr: '8.8.8.0/24',
        data: {
          asn: 'AS15169',
          as_name: 'Google LLC',
          as_domain: 'google.com',
          country: 'United States',
          country_code: 'US',
        },
      },
    ],
    { databaseType: 'ipinfo lite' },
  );
  asDomainCsv = join(dir, 'as-domains.csv');
  await writeFile(
    asDomainCsv,
    [
      'asn,domain',
      '15169,Google.com',
      'AS13335,cloudflare.com',
      'not-a-number,example.com',
      '64500,not a domain',
      '64501',
      '"64502,x',
      '',
      '# comment',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openGeoEnricher', () => {
  it('looks up ASN and country for IPv4 and IPv6', async () => {
    const geo = await openGeoEnricher({ asnMmdb, countryMmdb });
    expect(geo.lookup('8.8.8.8')).toEqual({
      asn: 'AS15169',
      as_name: 'GOOGLE',
      country: 'United States',
      country_code: 'US',
    });
    expect(geo.lookup('2001:4860:4860::8888')).toEqual({
      asn: 'AS15169',
      as_name: 'GOOGLE',
      country: 'United States',
      country_code: 'US',
    });
    geo.close();
  });

  it('omits what is unknown', async () => {
    const geo = await openGeoEnricher({ asnMmdb, countryMmdb });
    expect(geo.lookup('9.9.9.9')).toEqual({});
    expect(geo.lookup('2606:4700::1111')).toEqual({});
    // AS 0 means "not routed"; an empty organisation is no name.
    expect(geo.lookup('192.0.2.1')).toEqual({});
    expect(geo.lookup('198.51.100.1')).toEqual({ asn: 'AS64500' });
    geo.close();
  });

  it('uses registered_country when country is absent, and names bare codes', async () => {
    const geo = await openGeoEnricher({ countryMmdb });
    expect(geo.lookup('1.1.1.1')).toEqual({ country: 'Germany', country_code: 'DE' });
    expect(geo.lookup('203.0.113.9')).toEqual({ country: 'France', country_code: 'FR' });
    geo.close();
  });

  it("accepts ip-location-db's flat country_code", async () => {
    const geo = await openGeoEnricher({ countryMmdb: flatCountryMmdb });
    expect(geo.lookup('8.8.8.8')).toEqual({ country: 'United States', country_code: 'US' });
    expect(geo.lookup('2a00:1450:4001::1')).toEqual({ country: 'Ireland', country_code: 'IE' });
    expect(geo.lookup('1.1.1.1')).toEqual({ country_code: 'ZZ' });
    geo.close();
  });

  it('reads AS and country from one IPinfo Lite style database', async () => {
    const geo = await openGeoEnricher({ asnMmdb: ipinfoMmdb });
    expect(geo.lookup('8.8.8.8')).toEqual({
      asn: 'AS15169',
      as_name: 'Google LLC',
      as_domain: 'google.com',
      country: 'United States',
      country_code: 'US',
    });
    geo.close();
  });

  it('adds as_domain from the CSV and reports bad lines', async () => {
    const warnings: string[] = [];
    const geo = await openGeoEnricher({ asnMmdb, asDomainCsv, onWarning: (message) => warnings.push(message) });
    expect(geo.lookup('8.8.8.8')).toEqual({ asn: 'AS15169', as_name: 'GOOGLE', as_domain: 'google.com' });
    expect(geo.lookup('1.1.1.1')).toEqual({ asn: 'AS13335', as_name: 'CLOUDFLARENET', as_domain: 'cloudflare.com' });
    expect(geo.lookup('198.51.100.1')).toEqual({ asn: 'AS64500' });
    expect(warnings).toEqual([
      `${asDomainCsv}:4: "not-a-number" is not an AS number; line skipped`,
      `${asDomainCsv}:5: "not a domain" is not a domain name; line skipped`,
      `${asDomainCsv}:6: no domain for AS64501; line skipped`,
      `${asDomainCsv}:7: unterminated quoted field starting at column 1; line skipped`,
    ]);
    geo.close();
  });

  it('never reads an IPv6 address from an IPv4-only database', async () => {
    const ipv4Only = join(dir, 'ipv4-only.mmdb');
    // ::/96 would be 0.0.0.0/0 if the address's first 32 bits were read as IPv4.
    await writeMmdb(ipv4Only, [{ cidr: '0.0.0.0/1', data: { country_code: 'US' } }], {
      databaseType: 'test',
      ipVersion: 4,
    });
    const geo = await openGeoEnricher({ countryMmdb: ipv4Only });
    expect(geo.lookup('8.8.8.8')).toEqual({ country: 'United States', country_code: 'US' });
    expect(geo.lookup('2001:db8::1')).toEqual({});
    geo.close();
  });

  it('does nothing without files', async () => {
    const geo = await openGeoEnricher({});
    expect(geo.lookup('8.8.8.8')).toEqual({});
    geo.close();
  });

  it('throws for a bad IP, and after close', async () => {
    const geo = await openGeoEnricher({ asnMmdb });
    expect(() => geo.lookup('8.8.8')).toThrow(/invalid IP address "8.8.8"/);
    geo.close();
    expect(() => geo.lookup('8.8.8.8')).toThrow(/after close/);
  });

  it('names the option and path of a missing or unreadable file', async () => {
    const missing = join(dir, 'missing.mmdb');
    await expect(openGeoEnricher({ asnMmdb: missing })).rejects.toThrow(`asnMmdb: file not found: ${missing}`);
    await expect(openGeoEnricher({ countryMmdb: missing })).rejects.toThrow(`countryMmdb: file not found: ${missing}`);
    await expect(openGeoEnricher({ asDomainCsv: missing })).rejects.toThrow(`asDomainCsv: file not found: ${missing}`);
    await expect(openGeoEnricher({ asnMmdb: asDomainCsv })).rejects.toThrow(/asnMmdb: .* is not a MaxMind DB file/);
    await expect(openGeoEnricher({ countryMmdb: dir })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
