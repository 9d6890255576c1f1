import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIp, rangeContains } from '../../core/ip.js';
import { readClassificationList, readTagMap, tagProduct, type ListItem, type ListOptions } from './read-list.js';
import { fixture as publicFixture } from '../../../test/support/fixtures.js';

const LISTS = publicFixture('ip-lists/');
const TOR = join(LISTS, 'tor_exit_nodes.lst');
const C2_TAGS = join(LISTS, 'c2_tracker_ip_tags.csv');
const C2_ALL = join(LISTS, 'c2_tracker_all.txt');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'read-list-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writtenFile(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function readAll(path: string, options: ListOptions) {
  const items: ListItem[] = [];
  for await (const item of readClassificationList(path, options)) items.push(item);
  const entries = items.flatMap((item) => (item.kind === 'entry' ? [item.entry] : []));
  const rejected = items.flatMap((item) => (item.kind === 'rejected' ? [item] : []));
  return { entries, rejected };
}

function classificationOf(entries: Awaited<ReturnType<typeof readAll>>['entries'], ip: string): string[] {
  const address = parseIp(ip);
  return entries.filter((entry) => rangeContains(entry.range, address)).map((entry) => entry.classification);
}

describe('readClassificationList on lists in the public layouts', () => {
  it('reads the whole Tor exit list, IPv4 and IPv6', async () => {
    const { entries, rejected } = await readAll(TOR, { as: 'proxy:tor' });
    expect(rejected).toEqual([]);
    expect(entries).toHaveLength(600);
    expect(entries.filter((entry) => entry.range.version === 6)).toHaveLength(200);
    expect(new Set(entries.map((entry) => entry.classification))).toEqual(new Set(['proxy:tor']));
    expect(entries[0]).toEqual({
      range: { version: 4, first: parseIp('198.18.132.233').value, last: parseIp('198.18.132.233').value, prefix: 32 },
      classification: 'proxy:tor',
      at: { file: TOR, line: 1 },
    });
    // Written in full form in the file ("2001:0db8:fc58:34eb:0000:0000:0000:2536").
    expect(classificationOf(entries, '2001:db8:fc58:34eb::2536')).toEqual(['proxy:tor']);
    expect(entries.find((entry) => entry.at.line === 401)?.range.version).toBe(6);
    expect(classificationOf(entries, '198.18.153.193')).toEqual(['proxy:tor']);
    expect(classificationOf(entries, '8.8.8.8')).toEqual([]);
  });

  it('reads the C2-Tracker tag CSV into c2:<family>', async () => {
    const { entries, rejected } = await readAll(C2_TAGS, { ipColumn: 'ip', tagColumn: 'tag', as: 'c2' });
    expect(rejected).toEqual([]);
    expect(entries).toHaveLength(507);
    expect(entries.filter((entry) => entry.range.version === 6)).toHaveLength(2);
    expect(entries[0]!.at).toEqual({ file: C2_TAGS, line: 2 });

    expect(classificationOf(entries, '198.19.222.26')).toEqual(['c2:ares_rat']);
    expect(classificationOf(entries, '198.19.199.214')).toEqual(['c2:cobalt_strike']);
    expect(classificationOf(entries, '198.19.102.126')).toEqual(['c2:brute_ratel_c4']);
    expect(classificationOf(entries, '198.19.239.35')).toEqual(['c2:xtremerat']);
    expect(classificationOf(entries, '2001:db8:c2::1')).toEqual(['c2:burpsuite']);
    // One IP in two families gets both.
    expect(classificationOf(entries, '198.19.114.194')).toEqual(['c2:gophish', 'c2:hak5_cloud']);

    const counts = new Map<string, number>();
    for (const { classification } of entries) counts.set(classification, (counts.get(classification) ?? 0) + 1);
    expect(counts.size).toBe(37);
    expect(counts.get('c2:metasploit_framework')).toBe(120);
    expect(counts.get('c2:sliver')).toBe(61);
    expect(counts.get('c2:cobalt_strike')).toBe(24);
    expect(counts.get('c2:mythic')).toBe(13);
    expect(counts.get('c2:havoc')).toBe(10);
    expect([...counts.keys()].sort()).toEqual([
      'c2:ares_rat',
      'c2:asyncrat',
      'c2:brute_ratel_c4',
      'c2:burpsuite',
      'c2:caldera',
      'c2:cobalt_strike',
      'c2:covenant',
      'c2:darkcomet',
      'c2:dcrat',
      'c2:gh0st_rat',
      'c2:gophish',
      'c2:hak5_cloud',
      'c2:havoc',
      'c2:hookbot',
      'c2:metasploit_framework',
      'c2:mobsf',
      'c2:mozi_botnet',
      'c2:mythic',
      'c2:nanocore_rat',
      'c2:netbus',
      'c2:nimplant',
      'c2:njrat',
      'c2:orcus_rat',
      'c2:panda',
      'c2:quasar_rat',
      'c2:redguard',
      'c2:remcos_rat',
      'c2:sectop_rat',
      'c2:shadowpad',
      'c2:sliver',
      'c2:supershell',
      'c2:unam_web_panel',
      'c2:villain',
      'c2:viper',
      'c2:vshell',
      'c2:xmrig_monero_cryptominer',
      'c2:xtremerat',
    ]);
  });

  it('reads the untagged C2-Tracker list as a plain list', async () => {
    const { entries, rejected } = await readAll(C2_ALL, { as: 'c2' });
    expect(rejected).toEqual([]);
    expect(entries).toHaveLength(506);
  });
});

describe('tagProduct', () => {
  it.each([
    ['Cobalt Strike C2 IPs', 'cobalt_strike'],
    ['Cobalt Strike', 'cobalt_strike'],
    ['Sliver', 'sliver'],
    ['Hak5 Cloud C2 IPs', 'hak5_cloud'],
    ['NanoCore RAT Trojan IPs', 'nanocore_rat'],
    ['Brute Ratel C4 IPs', 'brute_ratel_c4'],
    ['  GoPhish IPs ', 'gophish'],
    ['C2', 'c2'],
    ['', ''],
  ])('%j → %j', (tag, product) => {
    expect(tagProduct(tag)).toBe(product);
  });
});

describe('readClassificationList formats', () => {
  it('skips comments and blank lines in a plain list, keeps CIDRs, rejects bad lines', async () => {
    const path = await writtenFile(
      'plain.txt',
      '# scanners we know\n\n192.0.2.0/24\n198.51.100.7  # inline note\n2001:db8::/32\nnot-an-ip\n10.0.0.300\n',
    );
    const { entries, rejected } = await readAll(path, { as: 'Scanner:Acme Scan' });
    expect(entries.map((entry) => [entry.at.line, entry.range.prefix, entry.classification])).toEqual([
      [3, 24, 'scanner:acme_scan'],
      [4, 32, 'scanner:acme_scan'],
      [5, 32, 'scanner:acme_scan'],
    ]);
    expect(rejected.map((item) => item.at)).toEqual([
      { file: path, line: 6 },
      { file: path, line: 7 },
    ]);
    expect(rejected[0]!.reason).toMatch(/invalid CIDR "not-an-ip"/);
  });

  it('needs --as for a plain list', async () => {
    const path = await writtenFile('plain-no-as.txt', '192.0.2.1\n');
    await expect(readAll(path, {})).rejects.toThrow(/plain IP list needs --as/);
  });

  it('throws at once for an unknown --as type', () => {
    expect(() => readClassificationList(TOR, { as: 'anonymiser:tor' })).toThrow(
      /unknown classification type "anonymiser"/,
    );
  });

  it('throws for a missing file', async () => {
    await expect(readAll(join(dir, 'nope.txt'), { as: 'c2' })).rejects.toThrow(/file not found: .*nope\.txt/);
  });

  it('uses an ip_or_cidr,classification CSV as is', async () => {
    const path = await writtenFile(
      'header.csv',
      [
        'ip_or_cidr,classification',
        '192.0.2.0/24,honeypot:Cowrie',
        '"198.51.100.1",cdn',
        '203.0.113.5,botnet:mirai',
        '203.0.113.6,',
        'bad-ip,c2',
        '"unterminated,c2',
        '',
      ].join('\r\n'),
    );
    const { entries, rejected } = await readAll(path, {});
    expect(entries.map((entry) => [entry.at.line, entry.classification])).toEqual([
      [2, 'honeypot:cowrie'],
      [3, 'cdn'],
    ]);
    expect(rejected.map((item) => [item.at.line, item.reason])).toEqual([
      [4, expect.stringMatching(/unknown classification type "botnet"/)],
      [5, 'empty classification'],
      [6, expect.stringMatching(/invalid CIDR "bad-ip"/)],
      [7, expect.stringMatching(/unterminated quoted field/)],
    ]);
    for (const item of rejected) expect(item.at.file).toBe(path);
  });

  it('falls back to --as for a blank classification cell', async () => {
    const path = await writtenFile('header-as.csv', 'ip_or_cidr,classification\n192.0.2.1,\n192.0.2.2,cdn\n');
    const { entries } = await readAll(path, { as: 'scanner' });
    expect(entries.map((entry) => entry.classification)).toEqual(['scanner', 'cdn']);
  });

  it('maps tags through --map, rejecting unmapped tags', async () => {
    const mapPath = await writtenFile(
      'tags.tsv',
      '# feed tag → classification\ntag\tclassification\nCobalt Strike\tc2:cobalt_strike\nTOR exit\tproxy:tor\n"Mass, scanner",Scanner\n',
    );
    const map = await readTagMap(mapPath);
    expect(map).toEqual(
      new Map([
        ['cobalt strike', 'c2:cobalt_strike'],
        ['tor exit', 'proxy:tor'],
        ['mass, scanner', 'scanner'],
      ]),
    );
    const path = await writtenFile(
      'feed.csv',
      'address,label,seen\n192.0.2.1, cobalt STRIKE ,2024\n192.0.2.2,Tor Exit,2024\n192.0.2.3,"Mass, scanner",2024\n192.0.2.4,Unknown thing,2024\n192.0.2.5,,2024\n',
    );
    const { entries, rejected } = await readAll(path, { ipColumn: 'address', tagColumn: 'label', map });
    expect(entries.map((entry) => entry.classification)).toEqual(['c2:cobalt_strike', 'proxy:tor', 'scanner']);
    expect(rejected.map((item) => [item.at.line, item.reason])).toEqual([
      [5, 'tag "unknown thing" is not in the tag map'],
      [6, 'empty tag in column "label"'],
    ]);
  });

  it('turns tags into products of --as', async () => {
    const path = await writtenFile('c2.csv', 'IP,Tag\n192.0.2.1,Cobalt Strike\n192.0.2.2,Sliver C2 IPs\n192.0.2.3,\n');
    const { entries } = await readAll(path, { ipColumn: 'ip', tagColumn: 'tag', as: 'c2' });
    expect(entries.map((entry) => entry.classification)).toEqual(['c2:cobalt_strike', 'c2:sliver', 'c2']);
  });

  it('classifies every row of a CSV without tags as --as', async () => {
    const path = await writtenFile('ips.csv', 'ip,first_seen\n192.0.2.1,2024\n192.0.2.2,2024\n');
    const { entries } = await readAll(path, { as: 'attack-infrastructure' });
    expect(entries.map((entry) => entry.classification)).toEqual(['attack-infrastructure', 'attack-infrastructure']);
  });

  it('names missing columns', async () => {
    const path = await writtenFile('cols.csv', 'addr,tag\n192.0.2.1,x\n');
    await expect(readAll(path, { as: 'c2', tagColumn: 'tag' })).rejects.toThrow(
      /cols\.csv:1: no IP column in the header \(columns: addr, tag\)/,
    );
    await expect(readAll(path, { as: 'c2', ipColumn: 'addr', tagColumn: 'family' })).rejects.toThrow(
      /cols\.csv:1: no column "family" in the header/,
    );
    await expect(readAll(path, { ipColumn: 'addr' })).rejects.toThrow(/no classification column/);
  });

  it('needs --as or --map with a tag column', () => {
    expect(() => readClassificationList(C2_TAGS, { ipColumn: 'ip', tagColumn: 'tag' })).toThrow(
      /--as TYPE .* or --map FILE/,
    );
  });
});

describe('readTagMap', () => {
  it('accepts comma lines without a header', async () => {
    const path = await writtenFile('map.csv', 'sliver,c2:sliver\nshodan,Scanner:Shodan\n');
    expect(await readTagMap(path)).toEqual(
      new Map([
        ['sliver', 'c2:sliver'],
        ['shodan', 'scanner:shodan'],
      ]),
    );
  });

  it('throws naming file and line for an unknown type', async () => {
    const path = await writtenFile('bad-map.csv', 'tag,classification\nsliver,c2:sliver\nmirai,botnet:mirai\n');
    await expect(readTagMap(path)).rejects.toThrow(/bad-map\.csv:3: unknown classification type "botnet"/);
  });

  it('throws for a line without a classification, and for conflicting duplicates', async () => {
    const missing = await writtenFile('short-map.csv', 'sliver\n');
    await expect(readTagMap(missing)).rejects.toThrow(/short-map\.csv:1: expected "tag<TAB or comma>classification"/);
    const conflict = await writtenFile('dup-map.csv', 'Sliver,c2:sliver\nsliver,c2:other\n');
    await expect(readTagMap(conflict)).rejects.toThrow(
      /dup-map\.csv:2: tag "sliver" is mapped to both c2:sliver and c2:other/,
    );
  });
});
