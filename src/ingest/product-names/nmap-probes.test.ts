import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probeFields, productNamesOfProbes, readNmapServiceProbes } from './nmap-probes.js';
import { ProductNameTable } from './table.js';

// Lines in nmap-service-probes' format, written for these tests.
const HTTPD =
  'match http m|^HTTP/1\\.[01] .*\\r\\nServer: Apache/([\\d.]+)|s p/Apache httpd/ v/$1/ cpe:/a:apache:http_server:$1/';

describe('nmap service-probe lines', () => {
  it.each([
    { line: HTTPD, product: 'Apache httpd', cpes: ['a:apache:http_server:$1'] },
    {
      line: 'softmatch ftp m/^220 Welcome to (\\w+) FTP/i p|Acme FTPd| o/Linux/ cpe:/a:acme:ftpd/ cpe:/o:linux:linux_kernel/a',
      product: 'Acme FTPd',
      cpes: ['a:acme:ftpd', 'o:linux:linux_kernel'],
    },
    { line: 'match x m=^x y=s i/no product/', product: undefined, cpes: [] },
  ])('$line', ({ line, product, cpes }) => {
    expect(probeFields(line)).toEqual({ ...(product ? { product } : {}), cpes });
  });

  it.each(['Probe TCP NULL q||', '# match http m|x| p/commented/', 'ports 80', ''])('ignores %j', (line) => {
    expect(probeFields(line)).toBeUndefined();
  });
});

describe('product names from the probe lines', () => {
  const line = (product: string, cpe: string) => `match svc m|^x| p/${product}/ ${cpe ? `cpe:/${cpe}/` : ''}`;
  it.each([
    { rule: 'a name and its application CPE', lines: [HTTPD], name: 'apache httpd', expected: 'a:apache:http_server' },
    {
      rule: 'the majority wins',
      lines: [line('MySQL', 'a:mysql:mysql'), line('MySQL', 'a:mysql:mysql'), line('MySQL', 'a:mariadb:mariadb')],
      name: 'mysql',
      expected: 'a:mysql:mysql',
    },
    {
      rule: 'no majority, no mapping',
      lines: [line('Cassini', 'a:microsoft:cassini'), line('Cassini', 'a:microsoft:asp.net')],
      name: 'cassini',
      expected: undefined,
    },
    {
      rule: 'lines without a CPE do not vote',
      lines: [line('Acme', 'a:acme:server'), line('Acme', ''), line('Acme', '')],
      name: 'acme',
      expected: 'a:acme:server',
    },
    {
      rule: 'a name taken from the banner names nothing',
      lines: [line('$1', 'a:acme:x')],
      name: '$1',
      expected: undefined,
    },
    { rule: 'a vendor taken from the banner neither', lines: [line('X', 'a:$1:x')], name: 'x', expected: undefined },
    {
      rule: 'an OS CPE is not the product',
      lines: [line('Router httpd', 'o:acme:routeros')],
      name: 'router httpd',
      expected: undefined,
    },
    {
      rule: 'URI escapes become WFN values',
      lines: [line('ASP.NET', 'a:microsoft:asp.net')],
      name: 'asp.net',
      expected: 'a:microsoft:asp\\.net',
    },
  ])('$rule', ({ lines, name, expected }) => {
    const found = productNamesOfProbes(lines).get(name);
    expect(found ? `${found.part}:${found.vendor}:${found.product}` : undefined).toBe(expected);
  });
});

describe('identifying fingerprints by product name', () => {
  const table = new ProductNameTable(productNamesOfProbes([HTTPD]), 'test');
  it.each([
    {
      rule: 'name and version become the CPE; the scanner text stays',
      fingerprint: { product: 'Apache  HTTPD', version: '2.4.49', service: 'http' },
      expected: {
        cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
        vendor: 'apache',
        product: 'http_server',
        version: '2.4.49',
        service: 'http',
        scanner_product: 'Apache  HTTPD',
      },
    },
    {
      rule: 'a version that cannot be a CPE value stays beside it',
      fingerprint: { product: 'Apache httpd', version: '2.4.49 (Ubuntu)' },
      expected: {
        cpe: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
        vendor: 'apache',
        product: 'http_server',
        scanner_product: 'Apache httpd',
        scanner_version: '2.4.49 (Ubuntu)',
      },
    },
    {
      rule: "nmap's own fields already keep the text",
      fingerprint: { product: 'Apache httpd', nmap_product: 'Apache httpd' },
      expected: {
        cpe: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
        vendor: 'apache',
        product: 'http_server',
        nmap_product: 'Apache httpd',
      },
    },
    {
      rule: 'a fingerprint with a CPE is left alone',
      fingerprint: { cpe: 'cpe:2.3:a:x:y:1:*:*:*:*:*:*:*', product: 'Apache httpd' },
      expected: { cpe: 'cpe:2.3:a:x:y:1:*:*:*:*:*:*:*', product: 'Apache httpd' },
    },
    { rule: 'an unknown name is left alone', fingerprint: { product: 'Other' }, expected: { product: 'Other' } },
  ])('$rule', ({ fingerprint, expected }) => {
    expect(table.identify(fingerprint)).toEqual(expected);
  });
});

const INSTALLED = '/usr/share/nmap/nmap-service-probes';

describe.skipIf(!fs.existsSync(INSTALLED))("nmap's installed service-probe file", () => {
  it('maps the common product names', async () => {
    const table = await readNmapServiceProbes(INSTALLED);
    expect(table.size).toBeGreaterThan(1000);
    expect(table.lookup('Apache httpd')).toEqual({ part: 'a', vendor: 'apache', product: 'http_server' });
    expect(table.lookup('OpenSSH')).toEqual({ part: 'a', vendor: 'openbsd', product: 'openssh' });
    expect(table.lookup('nginx')).toEqual({ part: 'a', vendor: 'igor_sysoev', product: 'nginx' });
  });
});
