import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normaliseClassification } from './classification.js';
import { FINGERPRINT_RULES, classifyFingerprints } from './fingerprint-rules.js';
import type { Fingerprint } from './observation.js';
import { fixture } from '../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const SCANS = pathToFileURL(fixture('scans/'));

describe('FINGERPRINT_RULES', () => {
  it('only produces valid, already normalised classifications', () => {
    for (const rule of FINGERPRINT_RULES) {
      expect(normaliseClassification(rule.classification)).toBe(rule.classification);
    }
  });

  it('are all documented in docs/classifications.md', () => {
    const doc = readFileSync(new URL('../../docs/classifications.md', import.meta.url), 'utf8');
    // Table cells may be padded to align the columns (the formatter does so).
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const rule of FINGERPRINT_RULES) {
      const pattern = rule.pattern.source.replace(/\|/g, '\\|');
      const row = `\\| *${literal(`\`${rule.classification}\``)} *\\| *${literal(`\`${pattern}\``)} *\\|`;
      expect(doc, rule.classification).toMatch(new RegExp(row));
    }
  });
});

describe('classifyFingerprints', () => {
  it.each<[string, Fingerprint[], string[]]>([
    ['no fingerprints', [], []],
    ['ordinary software', [{ vendor: 'nginx', product: 'nginx', version: '1.25.3' }], []],
    ['Dionaea by product', [{ product: 'Dionaea' }], ['honeypot:dionaea']],
    ['Cowrie by vendor', [{ vendor: 'cowrie', product: 'cowrie' }], ['honeypot:cowrie']],
    ['Kippo as nmap names it', [{ nmap_product: 'Kippo SSH honeypot' }], ['honeypot:kippo']],
    ['Conpot in a CPE', [{ cpe: 'cpe:2.3:a:mushorg:conpot:0.6.0:*:*:*:*:*:*:*' }], ['honeypot:conpot']],
    ['Glastopf in a banner', [{ banner: 'HTTP/1.0 200 OK\r\nServer: Glastopf' }], ['honeypot:glastopf']],
    ['Elasticpot', [{ product: 'ElasticPot' }], ['honeypot:elasticpot']],
    ['T-Pot', [{ product: 'T-Pot' }], ['honeypot:t-pot']],
    ['HoneyTrap', [{ product: 'HoneyTrap' }], ['honeypot:honeytrap']],
    ['Amun as product', [{ product: 'Amun' }], ['honeypot:amun']],
    ['"amun" inside a banner is not enough', [{ banner: 'welcome to amun systems' }], []],
    ['a generic honeypot', [{ product: 'Some SSH honeypot' }], ['honeypot']],
    ['Cobalt Strike', [{ product: 'Cobalt Strike team server' }], ['c2:cobalt_strike']],
    ['CobaltStrike in one word', [{ product: 'CobaltStrike' }], ['c2:cobalt_strike']],
    ['Sliver', [{ product: 'Sliver' }], ['c2:sliver']],
    ['Mythic', [{ vendor: 'its-a-feature', product: 'Mythic' }], ['c2:mythic']],
    ['Havoc', [{ product: 'Havoc' }], ['c2:havoc']],
    ['Brute Ratel', [{ product: 'Brute Ratel C4' }], ['c2:brute_ratel_c4']],
    ['a C2 name in a banner is not enough', [{ banner: 'sliver of cake' }], []],
    ['Tor', [{ product: 'Tor' }], ['proxy:tor']],
    ['Tor SOCKS', [{ nmap_product: 'Tor SOCKS proxy' }], ['proxy:tor']],
    ['Tornado is not Tor', [{ product: 'Tornado httpd' }], []],
    ['Squid is not classified', [{ product: 'Squid http proxy' }], []],
    [
      'several fingerprints, sorted and unique',
      [{ product: 'Sliver' }, { product: 'Dionaea' }, { banner: 'dionaea' }],
      ['c2:sliver', 'honeypot:dionaea'],
    ],
  ])('%s', (_name, fingerprints, expected) => {
    expect(classifyFingerprints(fingerprints)).toEqual(expected);
  });

  it('recognises the Dionaea scan fixture by its default TLS certificate', () => {
    const xml = readFileSync(new URL('nmap_libnmap_dionaea_scan.xml', SCANS), 'utf8');
    const ports = nmapPorts(xml);
    const https = ports.find((port) => port.portid === '443');
    expect(https?.fingerprint['ssl-cert']).toContain('Nepenthes Development Team');
    expect(classifyFingerprints([https!.fingerprint])).toEqual(['honeypot:dionaea']);
    // Dionaea imitates real services; nothing on its other ports names it.
    const others = ports.filter((port) => port.portid !== '443').map((port) => port.fingerprint);
    expect(classifyFingerprints(others)).toEqual([]);
  });

  it('classifies the Dionaea scans and nothing in the other real nmap scans', () => {
    // nmap_libnmap_extra_ports.xml is a second scan of the same Dionaea host.
    const files = readdirSync(SCANS).filter((name) => name.endsWith('.xml'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const xml = readFileSync(new URL(file, SCANS), 'utf8');
      const scannedDionaea = /<nmaprun [^>]*args="[^"]* dionaea"/.test(xml);
      const expected = scannedDionaea ? ['honeypot:dionaea'] : [];
      expect(classifyFingerprints(nmapPorts(xml).map((port) => port.fingerprint)), file).toEqual(expected);
    }
  });
});

/** Just enough nmap XML reading for these tests: service attributes and script outputs per port. */
function nmapPorts(xml: string): { portid: string; fingerprint: Fingerprint }[] {
  return [...xml.matchAll(/<port protocol="\w+" portid="(\d+)">([\s\S]*?)<\/port>/g)].map((port) => {
    const [portid, body] = [port[1]!, port[2]!];
    const fingerprint: Fingerprint = {};
    const service = /<service ([^>]*)>/.exec(body)?.[1] ?? '';
    for (const [, name, value] of service.matchAll(/(\w+)="([^"]*)"/g)) {
      fingerprint[name === 'name' ? 'service' : name!] = decode(value!);
    }
    for (const [, id, output] of body.matchAll(/<script id="([^"]+)" output="([^"]*)"/g)) {
      fingerprint[id!] = decode(output!);
    }
    return { portid, fingerprint };
  });
}

function decode(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
