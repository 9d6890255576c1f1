import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CPE_ATTRIBUTES,
  bindFsValueByUnits,
  compareAttribute,
  compareWfn,
  cpeMatches,
  formatCpe22,
  formatCpe23,
  isCpe,
  parseCpe,
  parseCpeQuery,
  plainFsFieldToWfn,
  plainWfnToFs,
  quoteWfnValue,
  unbindFsValueByUnits,
  unquoteWfnValue,
  type Relation,
  type Wfn,
} from './cpe.js';
import { VulnscopeError } from './errors.js';
import { FIXTURES } from '../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const FIXTURE_URL = pathToFileURL(FIXTURES);

/** A full WFN: the given attributes, every other one ANY. */
function wfn(attributes: Partial<Wfn>): Wfn {
  return { ...Object.fromEntries(CPE_ATTRIBUTES.map((a) => [a, '*'])), ...attributes } as Wfn;
}

function expectInvalid(action: () => unknown, fragment: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(VulnscopeError);
  expect((thrown as VulnscopeError).code).toBe('invalid_input');
  expect((thrown as VulnscopeError).message).toContain(fragment);
}

describe('parseCpe: CPE 2.3 formatted string to WFN (NISTIR 7695 unbinding, §2.1)', () => {
  const rows: Array<{ rule: string; text: string; expected: Partial<Wfn> }> = [
    {
      rule: 'plain name; dots become quoted',
      text: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'apache', product: 'http_server', version: '2\\.4\\.49' },
    },
    {
      rule: 'a field that is exactly * is ANY, exactly - is NA',
      text: 'cpe:2.3:a:netapp:clustered_data_ontap:-:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'netapp', product: 'clustered_data_ontap', version: '-' },
    },
    {
      rule: 'NA in update (NVD log4j 2.0:-)',
      text: 'cpe:2.3:a:apache:log4j:2.0:-:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'apache', product: 'log4j', version: '2\\.0', update: '-' },
    },
    {
      rule: 'all 11 attributes land in order',
      text: 'cpe:2.3:o:canonical:ubuntu_linux:18.04:u1:ed:en:lts:sw:hw:ot',
      expected: {
        part: 'o',
        vendor: 'canonical',
        product: 'ubuntu_linux',
        version: '18\\.04',
        update: 'u1',
        edition: 'ed',
        language: 'en',
        sw_edition: 'lts',
        target_sw: 'sw',
        target_hw: 'hw',
        other: 'ot',
      },
    },
    {
      rule: 'split only on unescaped colons: \\: is data',
      text: 'cpe:2.3:a:badgermeter:moni\\:\\:tool:*:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'badgermeter', product: 'moni\\:\\:tool' },
    },
    {
      rule: 'quoted / stays quoted',
      text: 'cpe:2.3:a:apple:swiftnio_http\\/2:1.19.1:*:*:*:*:swift:*:*',
      expected: { part: 'a', vendor: 'apple', product: 'swiftnio_http\\/2', version: '1\\.19\\.1', target_sw: 'swift' },
    },
    {
      rule: 'quoted $ stays quoted',
      text: 'cpe:2.3:a:foo\\$bar:product:*:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'foo\\$bar', product: 'product' },
    },
    {
      rule: 'quoted ! and + stay quoted (real vulnrichment names)',
      text: 'cpe:2.3:a:bmc:track-it\\!:20.19.01:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'bmc', product: 'track\\-it\\!', version: '20\\.19\\.01' },
    },
    {
      rule: 'quoted + stays quoted',
      text: 'cpe:2.3:a:apache:xerces-c\\+\\+:3.2.2:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'apache', product: 'xerces\\-c\\+\\+', version: '3\\.2\\.2' },
    },
    {
      rule: '\\* is a literal asterisk, not a wildcard',
      text: 'cpe:2.3:a:vendor:product:1\\*:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: '1\\*' },
    },
    {
      rule: '\\? is a literal question mark, not a wildcard',
      text: 'cpe:2.3:a:vendor:product:what\\?:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: 'what\\?' },
    },
    {
      rule: 'a hyphen inside a longer value is a string, not NA',
      text: 'cpe:2.3:a:vendor:product:1.0-beta:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: '1\\.0\\-beta' },
    },
    {
      rule: 'a lone quoted hyphen \\- is the literal string "-", not NA',
      text: 'cpe:2.3:a:vendor:product:\\-:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: '\\-' },
    },
    {
      rule: 'a trailing * is a wildcard (m+wild)',
      text: 'cpe:2.3:a:vendor:product:9.*:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: '9\\.*' },
    },
    {
      rule: 'wildcards at both ends',
      text: 'cpe:2.3:a:vendor:product:*9*:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: '*9*' },
    },
    {
      rule: 'a leading run of ? is legal',
      text: 'cpe:2.3:a:vendor:product:??1:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: '??1' },
    },
    {
      rule: 'a trailing run of ? is legal',
      text: 'cpe:2.3:a:vendor:product:1.??:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: '1\\.??' },
    },
    {
      rule: '? at both ends is legal',
      text: 'cpe:2.3:a:vendor:product:?1?:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'product', version: '?1?' },
    },
    {
      rule: 'every other unquoted character (. - ~ ! /) becomes quoted',
      text: 'cpe:2.3:a:vendor:a.b-c~d!e/f:*:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'a\\.b\\-c\\~d\\!e\\/f' },
    },
    {
      rule: 'case-insensitive: values are lower-cased (vulnrichment #92 1Panel-dev)',
      text: 'cpe:2.3:a:1Panel-dev:1Panel:1.10.1:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: '1panel\\-dev', product: '1panel', version: '1\\.10\\.1' },
    },
    {
      rule: 'the prefix is case-insensitive too',
      text: 'CPE:2.3:A:Apache:HTTP_Server:2.4.49:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'apache', product: 'http_server', version: '2\\.4\\.49' },
    },
    {
      rule: 'a quoted underscore or letter is canonicalised to the bare character',
      text: 'cpe:2.3:a:ven\\_dor:pro\\duct:*:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'ven_dor', product: 'product' },
    },
    {
      rule: 'part may be ANY in match criteria',
      text: 'cpe:2.3:*:*:*:*:*:*:*:*:*:*:*',
      expected: { part: '*', vendor: '*', product: '*' },
    },
    {
      rule: 'part may be NA (NVD regex [aho*-])',
      text: 'cpe:2.3:-:vendor:product:*:*:*:*:*:*:*:*',
      expected: { part: '-', vendor: 'vendor', product: 'product' },
    },
    {
      rule: 'a quoted backslash is a literal backslash',
      text: 'cpe:2.3:a:vendor:back\\\\slash:*:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'vendor', product: 'back\\\\slash' },
    },
  ];

  it.each(rows)('$rule: $text', ({ text, expected }) => {
    expect(parseCpe(text)).toEqual(wfn(expected));
  });
});

describe('parseCpe rejects malformed CPEs with a message saying what and where', () => {
  const rows: Array<{ rule: string; text: string; message: string }> = [
    {
      rule: 'unquoted * in the middle of a value',
      text: 'cpe:2.3:a:ap*che:http_server:*:*:*:*:*:*:*:*',
      message: 'invalid CPE "cpe:2.3:a:ap*che:http_server:*:*:*:*:*:*:*:*": unquoted "*" in the middle of vendor',
    },
    {
      rule: 'unquoted ? in the middle of a value',
      text: 'cpe:2.3:a:vendor:product:2.?.1:*:*:*:*:*:*:*',
      message: 'unquoted "?" in the middle of version',
    },
    {
      rule: 'a ? run that is neither leading nor trailing',
      text: 'cpe:2.3:a:vendor:product:1??2:*:*:*:*:*:*:*',
      message: 'unquoted "?" in the middle of version',
    },
    {
      rule: '? after a leading * is not a leading run',
      text: 'cpe:2.3:a:vendor:product:*?1:*:*:*:*:*:*:*',
      message: 'unquoted "?" in the middle of version',
    },
    {
      rule: '? before a trailing * is not a trailing run',
      text: 'cpe:2.3:a:vendor:product:1?*:*:*:*:*:*:*:*',
      message: 'unquoted "?" in the middle of version',
    },
    {
      rule: '12 fields (10 attributes)',
      text: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*',
      message: 'has 12 colon-separated fields, expected 13',
    },
    {
      rule: '14 fields: an extra :* (NVD /cpematch answers 404)',
      text: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*:*',
      message: 'has 14 colon-separated fields, expected 13',
    },
    {
      rule: '14 fields: an unescaped colon in the product (real vulnrichment ADP record)',
      text: 'cpe:2.3:a:ibm:sterling_connect:direct:6.0.0.0:*:*:*:*:unix:*:*',
      message: 'has 14 colon-separated fields, expected 13',
    },
    {
      rule: 'a CPE pasted into a CPE (real vulnrichment ADP record)',
      text: 'cpe:2.3:a:ibm:cpe:2.3:a:ibm:security_qradar_edr:3.12:*:*:*:*:*:*:*',
      message: 'has 17 colon-separated fields, expected 13',
    },
    {
      rule: 'short form without padding',
      text: 'cpe:2.3:a:apache:http_server',
      message: 'has 5 colon-separated fields, expected 13',
    },
    {
      rule: 'empty attribute',
      text: 'cpe:2.3:a::http_server:*:*:*:*:*:*:*:*',
      message: 'empty vendor',
    },
    {
      rule: 'ends with a lone backslash',
      text: 'cpe:2.3:a:vendor:product:*:*:*:*:*:*:*:x\\',
      message: 'ends with a lone backslash',
    },
    {
      rule: 'part other than a, o, h, *, -',
      text: 'cpe:2.3:x:vendor:product:*:*:*:*:*:*:*:*',
      message: 'part must be a, o, h, * or -, not "x"',
    },
    {
      rule: 'a space is not a WFN character',
      text: 'cpe:2.3:a:vendor:my product:*:*:*:*:*:*:*:*',
      message: 'character " " (U+0020) is not allowed in product',
    },
    {
      rule: 'non-ASCII is not a WFN character',
      text: 'cpe:2.3:a:vendor:produkt\u00e9:*:*:*:*:*:*:*:*',
      message: 'is not allowed in product',
    },
    {
      rule: 'unknown CPE version',
      text: 'cpe:2.2:a:vendor:product',
      message: 'expected a CPE 2.3 formatted string (cpe:2.3:…) or a CPE 2.2 URI (cpe:/…)',
    },
    { rule: 'not a CPE at all', text: 'apache httpd 2.4.49', message: 'expected a CPE 2.3' },
    { rule: 'empty string', text: '', message: 'invalid CPE ""' },
  ];

  it.each(rows)('$rule: $text', ({ text, message }) => {
    expectInvalid(() => parseCpe(text), message);
    expect(isCpe(text)).toBe(false);
  });
});

describe('parseCpeQuery pads missing trailing 2.3 attributes with ANY', () => {
  const rows: Array<{ text: string; expected: Partial<Wfn> }> = [
    { text: 'cpe:2.3:a:apache:http_server', expected: { part: 'a', vendor: 'apache', product: 'http_server' } },
    { text: 'cpe:2.3:a', expected: { part: 'a' } },
    {
      text: 'cpe:2.3:a:apache:http_server:2.4.*',
      expected: { part: 'a', vendor: 'apache', product: 'http_server', version: '2\\.4\\.*' },
    },
    {
      text: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      expected: { part: 'a', vendor: 'apache', product: 'http_server', version: '2\\.4\\.49' },
    },
    { text: 'cpe:/a:apache:http_server', expected: { part: 'a', vendor: 'apache', product: 'http_server' } },
  ];

  it.each(rows)('$text', ({ text, expected }) => {
    expect(parseCpeQuery(text)).toEqual(wfn(expected));
  });

  it.each([
    ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*:*', 'has 14 colon-separated fields, expected 13'],
    ['cpe:2.3:a:apache:', 'empty product'],
    ['cpe:2.3:a:ap*che', 'unquoted "*" in the middle of vendor'],
  ])('still rejects %s', (text, message) => {
    expectInvalid(() => parseCpeQuery(text), message);
  });
});

describe('formatCpe23: WFN to formatted string (NISTIR 7695 binding, §2.1)', () => {
  const rows: Array<{ rule: string; wfn: Partial<Wfn>; expected: string }> = [
    {
      rule: 'ANY binds to *, NA to -',
      wfn: { part: 'a', vendor: 'netapp', product: 'solidfire', version: '-' },
      expected: 'cpe:2.3:a:netapp:solidfire:-:*:*:*:*:*:*:*',
    },
    {
      rule: 'quoted . - _ lose the backslash',
      wfn: { part: 'a', vendor: 'f5', product: 'nginx\\_plus', version: '1\\.0\\-beta' },
      expected: 'cpe:2.3:a:f5:nginx_plus:1.0-beta:*:*:*:*:*:*:*',
    },
    {
      rule: 'other quoted characters keep it',
      wfn: { part: 'a', vendor: 'foo\\$bar', product: 'swiftnio_http\\/2', version: 'a\\:b' },
      expected: 'cpe:2.3:a:foo\\$bar:swiftnio_http\\/2:a\\:b:*:*:*:*:*:*:*',
    },
    {
      rule: 'literal asterisk and question mark keep their quote',
      wfn: { part: 'a', vendor: 'v', product: 'p', version: '\\*', update: '\\?' },
      expected: 'cpe:2.3:a:v:p:\\*:\\?:*:*:*:*:*:*',
    },
    {
      rule: 'a lone literal hyphen stays \\- (the reference binder would emit NA)',
      wfn: { part: 'a', vendor: 'v', product: 'p', version: '\\-' },
      expected: 'cpe:2.3:a:v:p:\\-:*:*:*:*:*:*:*',
    },
    {
      rule: 'two hyphens need no quote',
      wfn: { part: 'a', vendor: 'v', product: 'p', version: '\\-\\-' },
      expected: 'cpe:2.3:a:v:p:--:*:*:*:*:*:*:*',
    },
    {
      rule: 'unquoted wildcards pass through',
      wfn: { part: 'a', vendor: 'v', product: '*p*', version: '2\\.4\\.*', update: '??' },
      expected: 'cpe:2.3:a:v:*p*:2.4.*:??:*:*:*:*:*:*',
    },
    {
      rule: 'values are lower-cased',
      wfn: { part: 'A', vendor: 'Apache', product: 'HTTP_Server' },
      expected: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
    },
  ];

  it.each(rows)('$rule', ({ wfn: attributes, expected }) => {
    expect(formatCpe23(wfn(attributes))).toBe(expected);
  });

  it.each([
    ['an unquoted dot', { version: '2.4' }, 'unquoted character "." (U+002E) at position 1'],
    ['an empty value', { version: '' }, 'empty value'],
    ['a wildcard in the middle', { version: '2\\.*\\.1' }, 'unquoted "*" in the middle'],
  ])('rejects a malformed WFN value: %s', (_, attributes, message) => {
    expectInvalid(() => formatCpe23(wfn({ part: 'a', ...attributes })), message);
  });
});

describe('formatCpe22: WFN to CPE 2.2 URI (§2.2)', () => {
  const rows: Array<{ rule: string; wfn: Partial<Wfn>; expected: string }> = [
    {
      rule: 'NISTIR example: packed edition, ANY language trimmed',
      wfn: {
        part: 'a',
        vendor: 'microsoft',
        product: 'internet_explorer',
        version: '8\\.0\\.6001',
        update: 'beta',
        sw_edition: 'sp2',
      },
      expected: 'cpe:/a:microsoft:internet_explorer:8.0.6001:beta:~~sp2~~~',
    },
    {
      rule: 'trailing empty (ANY) components are trimmed',
      wfn: { part: 'a', vendor: 'apache', product: 'http_server', version: '2\\.2\\.22' },
      expected: 'cpe:/a:apache:http_server:2.2.22',
    },
    {
      rule: 'inner ANY components stay empty; NA binds to -',
      wfn: { part: 'o', vendor: 'microsoft', product: 'windows_7', update: '-', edition: 'professional' },
      expected: 'cpe:/o:microsoft:windows_7::-:professional',
    },
    {
      rule: 'no packing when the four extras are ANY',
      wfn: { part: 'o', vendor: 'microsoft', product: 'windows_7', update: 'sp1' },
      expected: 'cpe:/o:microsoft:windows_7::sp1',
    },
    {
      rule: 'all five packed, NA as -',
      wfn: {
        part: 'a',
        vendor: 'v',
        product: 'p',
        edition: 'ed',
        sw_edition: 'lts',
        target_sw: '-',
        target_hw: 'x64',
        other: 'o',
      },
      expected: 'cpe:/a:v:p:::~ed~lts~-~x64~o',
    },
    {
      rule: 'language after a packed edition',
      wfn: { part: 'a', vendor: 'v', product: 'p', language: 'en', target_sw: 'wordpress' },
      expected: 'cpe:/a:v:p:::~~~wordpress~~:en',
    },
    {
      rule: 'quoted characters are percent-encoded in lower-case hex; - and . stay bare',
      wfn: { part: 'a', vendor: 'foo\\!bar', product: 'swiftnio_http\\/2', version: '1\\.0\\-a\\:b' },
      expected: 'cpe:/a:foo%21bar:swiftnio_http%2f2:1.0-a%3ab',
    },
    {
      rule: '~ encodes as %7e (the reference pctEncode wrongly gives %7d)',
      wfn: { part: 'a', vendor: 'v', product: 'a\\~b' },
      expected: 'cpe:/a:v:a%7eb',
    },
    {
      rule: 'unquoted ? binds to %01 and * to %02',
      wfn: { part: 'a', vendor: 'v', product: 'p', version: '2\\.4\\.*', update: '??' },
      expected: 'cpe:/a:v:p:2.4.%02:%01%01',
    },
    {
      rule: 'literal * and ? are percent-encoded, not wildcards',
      wfn: { part: 'a', vendor: 'v', product: 'p', version: '\\*', update: '\\?' },
      expected: 'cpe:/a:v:p:%2a:%3f',
    },
    {
      rule: 'a lone literal hyphen is %2d (a bare - would read back as NA)',
      wfn: { part: 'a', vendor: 'v', product: 'p', version: '\\-' },
      expected: 'cpe:/a:v:p:%2d',
    },
    { rule: 'everything ANY', wfn: {}, expected: 'cpe:/' },
  ];

  it.each(rows)('$rule', ({ wfn: attributes, expected }) => {
    expect(formatCpe22(wfn(attributes))).toBe(expected);
  });
});

describe('parseCpe: CPE 2.2 URI to WFN (NISTIR 7695 decode, §2.2)', () => {
  const rows: Array<{ rule: string; text: string; expected: Partial<Wfn> }> = [
    {
      rule: 'nmap service CPE',
      text: 'cpe:/a:apache:http_server:2.2.22',
      expected: { part: 'a', vendor: 'apache', product: 'http_server', version: '2\\.2\\.22' },
    },
    {
      rule: 'missing components are ANY',
      text: 'cpe:/o:linux:linux_kernel',
      expected: { part: 'o', vendor: 'linux', product: 'linux_kernel' },
    },
    {
      rule: 'empty components are ANY, - is NA',
      text: 'cpe:/o:microsoft:windows_7::-:professional',
      expected: { part: 'o', vendor: 'microsoft', product: 'windows_7', update: '-', edition: 'professional' },
    },
    {
      rule: 'bare . - ~ become quoted',
      text: 'cpe:/a:openbsd:open-ssh:5.9p1:x~y',
      expected: { product: 'open\\-ssh', version: '5\\.9p1', update: 'x\\~y', part: 'a', vendor: 'openbsd' },
    },
    {
      rule: 'upper case is lowered',
      text: 'CPE:/A:Apache:HTTP_Server:2.4.49',
      expected: { part: 'a', vendor: 'apache', product: 'http_server', version: '2\\.4\\.49' },
    },
    {
      rule: 'NISTIR example: a packed edition unpacks into 5 attributes',
      text: 'cpe:/a:microsoft:internet_explorer:8.0.6001:beta:~~sp2~~~',
      expected: {
        part: 'a',
        vendor: 'microsoft',
        product: 'internet_explorer',
        version: '8\\.0\\.6001',
        update: 'beta',
        sw_edition: 'sp2',
      },
    },
    {
      rule: 'packed edition with every part set, NA as -',
      text: 'cpe:/a:v:p:::~ed~lts~-~x64~o:en',
      expected: {
        part: 'a',
        vendor: 'v',
        product: 'p',
        edition: 'ed',
        language: 'en',
        sw_edition: 'lts',
        target_sw: '-',
        target_hw: 'x64',
        other: 'o',
      },
    },
    {
      rule: 'an edition not starting with ~ is not packed (Red Hat el8)',
      text: 'cpe:/a:redhat:advanced_cluster_security:4.1::el8',
      expected: { part: 'a', vendor: 'redhat', product: 'advanced_cluster_security', version: '4\\.1', edition: 'el8' },
    },
    {
      rule: '%3a decodes to \\: (the reference unbinder wrongly gives \\))',
      text: 'cpe:/a:badgermeter:moni%3a%3atool',
      expected: { part: 'a', vendor: 'badgermeter', product: 'moni\\:\\:tool' },
    },
    {
      rule: 'legal percent-encodings become quoted characters',
      text: 'cpe:/a:foo%21bar:swiftnio_http%2f2:a%7eb%2a%3f%5c',
      expected: { part: 'a', vendor: 'foo\\!bar', product: 'swiftnio_http\\/2', version: 'a\\~b\\*\\?\\\\' },
    },
    {
      rule: '%01 and %02 at the ends become ? and *',
      text: 'cpe:/a:v:%02p%02:2.4.%02:%01%011',
      expected: { part: 'a', vendor: 'v', product: '*p*', version: '2\\.4\\.*', update: '??1' },
    },
    {
      rule: '%02 alone is ANY',
      text: 'cpe:/a:v:p:%02',
      expected: { part: 'a', vendor: 'v', product: 'p' },
    },
    {
      rule: '%2d is a literal hyphen (what formatCpe22 emits for one)',
      text: 'cpe:/a:v:p:%2d',
      expected: { part: 'a', vendor: 'v', product: 'p', version: '\\-' },
    },
    {
      rule: 'lenient: * components are ANY, 2.3-style extra components accepted (VulnCheck /v3/cpe)',
      text: 'cpe:/o:paloaltonetworks:pan-os:10.2.0:2h:*:*:*:*:*',
      expected: { part: 'o', vendor: 'paloaltonetworks', product: 'pan\\-os', version: '10\\.2\\.0', update: '2h' },
    },
    {
      rule: 'lenient: extra components map to sw_edition … other',
      text: 'cpe:/a:nodejs:node.js:18.12.0:*:*:*:lts:*:*:*',
      expected: { part: 'a', vendor: 'nodejs', product: 'node\\.js', version: '18\\.12\\.0', sw_edition: 'lts' },
    },
    {
      rule: 'lenient: a bare trailing * is a wildcard',
      text: 'cpe:/a:apache:http_server:2.4.*',
      expected: { part: 'a', vendor: 'apache', product: 'http_server', version: '2\\.4\\.*' },
    },
    {
      rule: 'lenient: other bare punctuation is quoted',
      text: 'cpe:/a:bmc:track-it!',
      expected: { part: 'a', vendor: 'bmc', product: 'track\\-it\\!' },
    },
    { rule: 'cpe:/ alone is all ANY', text: 'cpe:/', expected: {} },
  ];

  it.each(rows)('$rule: $text', ({ text, expected }) => {
    expect(parseCpe(text)).toEqual(wfn(expected));
  });

  it.each([
    ['%02 in the middle', 'cpe:/a:v:p:1%022', 'unquoted "*" in the middle of version'],
    ['%01 in the middle', 'cpe:/a:v:p:1%012', 'unquoted "?" in the middle of version'],
    ['an encoding outside the legal set', 'cpe:/a:v:p:1%2e0', 'illegal percent-encoding "%2e" in version'],
    ['a percent-encoded letter', 'cpe:/a:v:p%41', 'illegal percent-encoding "%41" in product'],
    ['not hexadecimal', 'cpe:/a:v:p:%zz', 'illegal percent-encoding "%zz" in version'],
    ['a truncated encoding', 'cpe:/a:v:p:1%4', 'illegal percent-encoding "%4" in version'],
    ['a packed edition with 4 parts', 'cpe:/a:v:p:::~a~b~c~d', 'packed edition has 4 "~"-separated parts, expected 5'],
    ['a packed edition with 6 parts', 'cpe:/a:v:p:::~a~b~c~d~e~f', 'packed edition has 6 "~"-separated parts'],
    [
      'a packed edition and extra components',
      'cpe:/a:v:p:::~~lts~~~:*:x',
      'both a packed edition and extra components',
    ],
    ['12 components', 'cpe:/a:v:p:*:*:*:*:*:*:*:*:*', 'has 12 components, expected at most 7'],
    ['a backslash', 'cpe:/a:v:p\\:q', 'a backslash is not allowed in a CPE 2.2 URI (product)'],
    ['a space', 'cpe:/a:v:my product', 'character " " (U+0020) is not allowed in product'],
    ['a bad part', 'cpe:/q:v:p', 'part must be a, o, h, * or -, not "q"'],
  ])('rejects %s: %s', (_, text, message) => {
    expectInvalid(() => parseCpe(text), message);
  });
});

describe('conversion always goes through the WFN: 2.2 ↔ 2.3 round trips', () => {
  it.each([
    ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', 'cpe:/a:apache:http_server:2.4.49'],
    ['cpe:2.3:o:microsoft:windows_7:*:-:professional:*:*:*:*:*', 'cpe:/o:microsoft:windows_7::-:professional'],
    [
      'cpe:2.3:a:microsoft:internet_explorer:8.0.6001:beta:*:*:sp2:*:*:*',
      'cpe:/a:microsoft:internet_explorer:8.0.6001:beta:~~sp2~~~',
    ],
    ['cpe:2.3:a:nodejs:node.js:19.0.0:*:*:*:-:*:*:*', 'cpe:/a:nodejs:node.js:19.0.0::~~-~~~'],
    ['cpe:2.3:a:10web:photo_gallery:-:*:*:*:*:wordpress:*:*', 'cpe:/a:10web:photo_gallery:-::~~~wordpress~~'],
    ['cpe:2.3:a:badgermeter:moni\\:\\:tool:*:*:*:*:*:*:*:*', 'cpe:/a:badgermeter:moni%3a%3atool'],
    ['cpe:2.3:a:vendor:a\\~b:*:*:*:*:*:*:*:*', 'cpe:/a:vendor:a%7eb'],
    ['cpe:2.3:a:vendor:product:\\-:*:*:*:*:*:*:*', 'cpe:/a:vendor:product:%2d'],
    ['cpe:2.3:a:vendor:*p*:2.4.*:??:*:*:*:*:*:*', 'cpe:/a:vendor:%02p%02:2.4.%02:%01%01'],
    ['cpe:2.3:a:apache:xerces-c\\+\\+:3.2.2:*:*:*:*:*:*:*', 'cpe:/a:apache:xerces-c%2b%2b:3.2.2'],
  ])('%s ↔ %s', (formatted, uri) => {
    expect(formatCpe22(parseCpe(formatted))).toBe(uri);
    expect(formatCpe23(parseCpe(uri))).toBe(formatted);
    expect(parseCpe(uri)).toEqual(parseCpe(formatted));
  });

  it('any WFN survives FS → WFN and URI → WFN (property)', () => {
    const unit = fc.oneof(
      fc.constantFrom(...'abcxyz0129_'),
      fc.constantFrom(...'.-~!/:*?\\$%+').map((char) => `\\${char}`),
    );
    const literalValue = fc.array(unit, { minLength: 1, maxLength: 6 }).map((units) => units.join(''));
    const value = fc.oneof(
      fc.constantFrom('*', '-'),
      literalValue,
      literalValue.map((v) => `${v}*`),
      literalValue.map((v) => `??${v}`),
    );
    const anyWfn = fc.tuple(fc.constantFrom('a', 'o', 'h', '*'), fc.array(value, { minLength: 10, maxLength: 10 }));
    fc.assert(
      fc.property(anyWfn, ([part, rest]) => {
        const name = Object.fromEntries(CPE_ATTRIBUTES.map((a, i) => [a, i === 0 ? part : rest[i - 1]])) as Wfn;
        expect(parseCpe(formatCpe23(name))).toEqual(name);
        expect(parseCpe(formatCpe22(name))).toEqual(name);
      }),
    );
  });
});

describe('compareAttribute: NISTIR 7696 attribute comparison (§2.3)', () => {
  const rows: Array<{ rule: string; source: string; target: string; expected: Relation }> = [
    { rule: 'ANY/ANY', source: '*', target: '*', expected: 'EQUAL' },
    { rule: 'ANY/NA', source: '*', target: '-', expected: 'SUPERSET' },
    { rule: 'ANY/i', source: '*', target: '2\\.4\\.49', expected: 'SUPERSET' },
    { rule: 'NA/ANY', source: '-', target: '*', expected: 'SUBSET' },
    { rule: 'NA/NA', source: '-', target: '-', expected: 'EQUAL' },
    {
      rule: 'NA/i: NA never matches a concrete version (Dependency-Track #1832)',
      source: '-',
      target: '2\\.4\\.53',
      expected: 'DISJOINT',
    },
    { rule: 'i/i', source: '2\\.4\\.49', target: '2\\.4\\.49', expected: 'EQUAL' },
    { rule: 'i/k', source: '2\\.4\\.49', target: '2\\.4\\.50', expected: 'DISJOINT' },
    { rule: 'i/ANY', source: '2\\.4\\.49', target: '*', expected: 'SUBSET' },
    { rule: 'i/NA', source: '2\\.4\\.49', target: '-', expected: 'DISJOINT' },
    { rule: 'literal hyphen vs NA', source: '\\-', target: '-', expected: 'DISJOINT' },
    { rule: 'm+wild/i that matches: 2.4.* vs 2.4.49', source: '2\\.4\\.*', target: '2\\.4\\.49', expected: 'SUPERSET' },
    { rule: 'm+wild/i that does not: 2.4.* vs 2.40', source: '2\\.4\\.*', target: '2\\.40', expected: 'DISJOINT' },
    {
      rule: 'decided: 2.4* (no dot) matches 2.40, as the spec says',
      source: '2\\.4*',
      target: '2\\.40',
      expected: 'SUPERSET',
    },
    { rule: 'a trailing * also matches nothing', source: '2\\.4\\.*', target: '2\\.4\\.', expected: 'SUPERSET' },
    { rule: 'a leading * is any prefix', source: '*\\.49', target: '2\\.4\\.49', expected: 'SUPERSET' },
    { rule: 'a leading * needs the suffix', source: '*\\.49', target: '2\\.4\\.50', expected: 'DISJOINT' },
    { rule: 'wildcards at both ends: contains', source: '*server*', target: 'http_server_x', expected: 'SUPERSET' },
    { rule: 'wildcards at both ends: does not contain', source: '*server*', target: 'httpd', expected: 'DISJOINT' },
    { rule: '?? is exactly two characters', source: '??', target: 'ab', expected: 'SUPERSET' },
    { rule: '?? does not match one character', source: '??', target: 'a', expected: 'DISJOINT' },
    { rule: '?? does not match three characters', source: '??', target: 'abc', expected: 'DISJOINT' },
    { rule: 'trailing ? is exactly one character', source: '1\\.?', target: '1\\.2', expected: 'SUPERSET' },
    { rule: 'trailing ? is not two characters', source: '1\\.?', target: '1\\.23', expected: 'DISJOINT' },
    { rule: 'leading ?×k then literal', source: '??1', target: '101', expected: 'SUPERSET' },
    { rule: 'leading ?×k is not fewer characters', source: '??1', target: '01', expected: 'DISJOINT' },
    { rule: 'escaped characters in T count as one character', source: '???', target: '1\\.0', expected: 'SUPERSET' },
    { rule: 'leading * with trailing ?', source: '*1?', target: 'ab1c', expected: 'SUPERSET' },
    { rule: 'a quoted * in S is literal', source: '\\*', target: 'abc', expected: 'DISJOINT' },
    { rule: 'a quoted * in S matches a literal *', source: '\\*', target: '\\*', expected: 'EQUAL' },
    { rule: 'a quoted * in T is not a wildcard', source: '*', target: '\\*', expected: 'SUPERSET' },
    {
      rule: 'anything/m+wild: target with * is UNDEFINED',
      source: '2\\.4\\.*',
      target: '2\\.4\\.*',
      expected: 'UNDEFINED',
    },
    { rule: 'anything/m+wild: even ANY source', source: '*', target: '9\\.*', expected: 'UNDEFINED' },
    { rule: 'anything/m+wild: target with ?', source: '-', target: '1\\.?', expected: 'UNDEFINED' },
    { rule: 'case-insensitive equal', source: 'Apache', target: 'apache', expected: 'EQUAL' },
    { rule: 'case-insensitive wildcard', source: 'HTTP*', target: 'http_server', expected: 'SUPERSET' },
    {
      rule: 'non-canonical spelling of the same characters is still EQUAL',
      source: 'a\\_b',
      target: 'a_b',
      expected: 'EQUAL',
    },
  ];

  it.each(rows)('$rule: $source vs $target = $expected', ({ source, target, expected }) => {
    expect(compareAttribute(source, target)).toBe(expected);
  });

  it('rejects malformed WFN values', () => {
    expectInvalid(() => compareAttribute('2.4', '2\\.4'), 'unquoted character "."');
  });
});

describe('compareWfn / cpeMatches: name comparison (criterion ⊇ name)', () => {
  it('compareWfn gives one relation per attribute', () => {
    const relations = compareWfn(
      parseCpe('cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*'),
      parseCpe('cpe:2.3:a:apache:http_server:2.4.49:-:*:*:*:*:*:*'),
    );
    expect(relations).toEqual({
      part: 'EQUAL',
      vendor: 'EQUAL',
      product: 'EQUAL',
      version: 'SUPERSET',
      update: 'SUPERSET',
      edition: 'EQUAL',
      language: 'EQUAL',
      sw_edition: 'EQUAL',
      target_sw: 'EQUAL',
      target_hw: 'EQUAL',
      other: 'EQUAL',
    });
  });

  const rows: Array<{ rule: string; source: string; target: string; expected: boolean }> = [
    {
      rule: 'version ANY criterion matches a concrete version',
      source: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      expected: true,
    },
    {
      rule: 'equal names match',
      source: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      expected: true,
    },
    {
      rule: 'a subset does not match (criterion narrower than the name)',
      source: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
      expected: false,
    },
    {
      rule: 'NA version criterion does not match a concrete version (nvdtools #39)',
      source: 'cpe:2.3:a:netapp:clustered_data_ontap:-:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:netapp:clustered_data_ontap:9.8:*:*:*:*:*:*:*',
      expected: false,
    },
    {
      rule: 'NA update criterion matches only NA update (log4j 2.0:-)',
      source: 'cpe:2.3:a:apache:log4j:2.0:-:*:*:*:*:*:*',
      target: 'cpe:2.3:a:apache:log4j:2.0:beta7:*:*:*:*:*:*',
      expected: false,
    },
    {
      rule: 'NA update criterion matches NA update',
      source: 'cpe:2.3:a:apache:log4j:2.0:-:*:*:*:*:*:*',
      target: 'cpe:2.3:a:apache:log4j:2.0:-:*:*:*:*:*:*',
      expected: true,
    },
    {
      rule: 'sw_edition NA criterion excludes the lts build (NVD node.js)',
      source: 'cpe:2.3:a:nodejs:node.js:*:*:*:*:-:*:*:*',
      target: 'cpe:2.3:a:nodejs:node.js:18.12.0:*:*:*:lts:*:*:*',
      expected: false,
    },
    {
      rule: 'different vendor (deprecated igor_sysoev vs nginx)',
      source: 'cpe:2.3:a:igor_sysoev:nginx:*:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:nginx:nginx:1.0.1:*:*:*:*:*:*:*',
      expected: false,
    },
    {
      rule: 'wildcard criterion from vulnrichment: asp.net_core 2.1* matches 2.1.5',
      source: 'cpe:2.3:a:microsoft:asp.net_core:2.1*:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:microsoft:asp.net_core:2.1.5:*:*:*:*:*:*:*',
      expected: true,
    },
    {
      rule: 'wildcard criterion does not match 2.2.0',
      source: 'cpe:2.3:a:microsoft:asp.net_core:2.1*:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:microsoft:asp.net_core:2.2.0:*:*:*:*:*:*:*',
      expected: false,
    },
    {
      rule: 'a target with wildcards never matches (UNDEFINED)',
      source: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*',
      expected: false,
    },
    {
      rule: 'part ANY and vendor ANY match anything',
      source: 'cpe:2.3:*:*:nginx:*:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:f5:nginx:1.20.0:*:*:*:*:*:*:*',
      expected: true,
    },
    {
      rule: 'case-insensitive name match',
      source: 'cpe:2.3:a:1Panel-dev:1panel:*:*:*:*:*:*:*:*',
      target: 'cpe:2.3:a:1panel-dev:1Panel:1.10.1:*:*:*:*:*:*:*',
      expected: true,
    },
    {
      rule: 'a 2.2 URI name matched by a 2.3 criterion',
      source: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*',
      target: 'cpe:/a:openbsd:openssh:5.9p1',
      expected: true,
    },
  ];

  it.each(rows)('$rule', ({ source, target, expected }) => {
    expect(cpeMatches(parseCpe(source), parseCpe(target))).toBe(expected);
  });

  it.each([
    ['cpe:2.3:a:apache:http_server', 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', true],
    ['cpe:2.3:a:apache:http_server:2.4.*', 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', true],
    ['cpe:2.3:a:apache:http_server:2.4.*', 'cpe:2.3:a:apache:http_server:2.40:*:*:*:*:*:*:*', false],
    ['cpe:2.3:a:apache', 'cpe:2.3:a:nginx:nginx:1.0.1:*:*:*:*:*:*:*', false],
  ])('an omitted query attribute means ANY: %s vs %s', (query, name, expected) => {
    expect(cpeMatches(parseCpeQuery(query), parseCpe(name))).toBe(expected);
  });
});

describe('unquoteWfnValue / quoteWfnValue', () => {
  it.each([
    ['2\\.4\\.49', '2.4.49'],
    ['moni\\:\\:tool', 'moni::tool'],
    ['swiftnio_http\\/2', 'swiftnio_http/2'],
    ['\\-', '-'],
    ['back\\\\slash', 'back\\slash'],
    ['1\\.0\\-beta', '1.0-beta'],
  ])('%s <-> %s', (quoted, plain) => {
    expect(unquoteWfnValue(quoted)).toBe(plain);
    expect(quoteWfnValue(plain)).toBe(quoted);
  });

  it.each([
    ['2\\.4\\.*', '2.4.*'],
    ['*', '*'],
    ['-', '-'],
  ])('unquote leaves wildcards and logical values as they are: %s', (value, expected) => {
    expect(unquoteWfnValue(value)).toBe(expected);
  });

  it.each([
    ['Apache', 'apache'],
    ['*', '\\*'],
    ['?', '\\?'],
    ['a_b', 'a_b'],
  ])('quote lower-cases and quotes every special, wildcards included: %s', (plain, expected) => {
    expect(quoteWfnValue(plain)).toBe(expected);
  });

  it.each([
    ['', 'empty value'],
    ['2.4.7 (Ubuntu)', 'character " " (U+0020) is not allowed'],
    ['caf\u00e9', 'is not allowed'],
  ])('quote rejects what a WFN cannot hold: %j', (plain, message) => {
    expectInvalid(() => quoteWfnValue(plain), message);
  });
});

describe('real CPEs from the shared data', () => {
  const nvdDirectory = new URL('nvd/', FIXTURE_URL);
  const nvdRecords = readdirSync(nvdDirectory)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(new URL(name, nvdDirectory), 'utf8')) as NvdCve);
  const criteria = [
    ...new Set(
      nvdRecords.flatMap((cve) =>
        (cve.configurations ?? []).flatMap((c) => c.nodes.flatMap((n) => n.cpeMatch.map((m) => m.criteria))),
      ),
    ),
  ];

  it('reads a few hundred NVD criteria', () => {
    expect(criteria.length).toBeGreaterThan(200);
  });

  it.each(criteria)('NVD criterion %s parses, re-formats identically and survives 2.2', (text) => {
    const name = parseCpe(text);
    expect(formatCpe23(name)).toBe(text);
    expect(parseCpe(formatCpe22(name))).toEqual(name);
    expect(cpeMatches(name, name)).toBe(true);
  });

  const matchStrings = readFileSync(new URL('cpe/nvd_cpematch_api2_samples.jsonl', FIXTURE_URL), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { matchString: NvdMatchString }).matchString);

  it.each(matchStrings.map((m) => [m.criteria, m.matches ?? []] as const))(
    'NVD /cpematch criterion %s matches every CPE name NVD expands it to',
    (criterion, matches) => {
      const source = parseCpe(criterion);
      for (const match of matches) expect(cpeMatches(source, parseCpe(match.cpeName))).toBe(true);
    },
  );

  const dictionary = readFileSync(new URL('cpe/nvd_cpe_dictionary_api2_samples.jsonl', FIXTURE_URL), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { cpeName: string; deprecatedBy?: Array<{ cpeName: string }> });

  it.each(dictionary.map((product) => product.cpeName))('dictionary name %s holds no wildcards', (text) => {
    const name = parseCpe(text);
    for (const attribute of CPE_ATTRIBUTES) {
      expect(compareAttribute('*', name[attribute])).not.toBe('UNDEFINED');
    }
  });

  it('a deprecated dictionary name does not match its replacement', () => {
    const deprecated = dictionary.find((product) => product.deprecatedBy?.length)!;
    const replacement = deprecated.deprecatedBy![0]!.cpeName;
    expect(cpeMatches(parseCpe(deprecated.cpeName), parseCpe(replacement))).toBe(false);
  });

  const scanDirectory = new URL('scans/', FIXTURE_URL);
  const nmapUris = [
    ...new Set(
      readdirSync(scanDirectory)
        .filter((name) => name.endsWith('.xml'))
        .flatMap((name) => [...readFileSync(new URL(name, scanDirectory), 'utf8').matchAll(/<cpe>([^<]*)<\/cpe>/g)])
        .map((match) => match[1]!),
    ),
  ];

  it('reads the nmap CPE URIs', () => {
    expect(nmapUris.length).toBeGreaterThan(10);
  });

  it.each(nmapUris)('nmap URI %s round-trips through the WFN', (uri) => {
    const name = parseCpe(uri);
    expect(formatCpe22(name)).toBe(uri);
    expect(parseCpe(formatCpe23(name))).toEqual(name);
  });
});

describe('fast paths for plain values give what the unit-by-unit binding gives', () => {
  // Characters the fast paths must handle or decline: plain ones, quoting, wildcards, upper case.
  const alphabet = fc.constantFrom(...'abz09_.-\\*?A:%~ ');
  const text = fc.array(alphabet, { minLength: 1, maxLength: 8 }).map((chars) => chars.join(''));
  const outcome = (action: () => string) => {
    try {
      return action();
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  };

  it('FS field → WFN value', () => {
    fc.assert(
      fc.property(text, (field) => {
        const fast = plainFsFieldToWfn(field);
        if (fast !== undefined) expect(fast).toBe(outcome(() => unbindFsValueByUnits(field, 'version', field)));
      }),
      { numRuns: 5000 },
    );
  });

  it('WFN value → FS field', () => {
    fc.assert(
      fc.property(text, (value) => {
        const fast = plainWfnToFs(value);
        if (fast !== undefined) expect(fast).toBe(outcome(() => bindFsValueByUnits(value)));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['2.4.49', '2\\.4\\.49'],
    ['http_server', 'http_server'],
    ['pan-os', 'pan\\-os'],
    ['-', '\\-'],
  ])('the fast paths answer for plain %s (WFN %s)', (field, wfnValue) => {
    expect(plainFsFieldToWfn(field)).toBe(wfnValue);
    expect(plainWfnToFs(wfnValue)).toBe(field === '-' ? '\\-' : field);
  });

  it.each(['2\\.4*', 'a\\:b', 'Apache', '1\\.0\\', ''])('the fast path declines WFN value %s', (value) => {
    expect(plainWfnToFs(value)).toBeUndefined();
  });
});

describe('isCpe', () => {
  it.each([
    ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', true],
    ['cpe:/a:apache:http_server:2.4.49', true],
    ['cpe:/o:paloaltonetworks:pan-os:10.2.0:2h:*:*:*:*:*', true],
    ['cpe:2.3:a:apache:http_server', false],
    ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*:*', false],
    ['nginx/1.18.0', false],
  ])('%s -> %s', (text, expected) => {
    expect(isCpe(text)).toBe(expected);
  });
});

interface NvdCve {
  configurations?: Array<{ nodes: Array<{ cpeMatch: Array<{ criteria: string }> }> }>;
}

interface NvdMatchString {
  criteria: string;
  matches?: Array<{ cpeName: string }>;
}
