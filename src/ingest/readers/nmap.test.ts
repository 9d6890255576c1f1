import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Observation, ReadItem } from '../../core/observation.js';
import { readNmapXml } from './nmap.js';
import { fixture } from '../../../test/support/fixtures.js';

const SCANS = fixture('scans/');

async function readFixture(name: string): Promise<ReadItem[]> {
  const items: ReadItem[] = [];
  for await (const item of readNmapXml(createReadStream(SCANS + name), name)) items.push(item);
  return items;
}

async function readXml(xml: string): Promise<ReadItem[]> {
  const items: ReadItem[] = [];
  for await (const item of readNmapXml(Readable.from([Buffer.from(xml)]), 'inline.xml')) items.push(item);
  return items;
}

const observations = (items: ReadItem[]): Observation[] =>
  items.flatMap((item) => (item.kind === 'observation' ? [item.observation] : []));
const rejections = (items: ReadItem[]) => items.filter((item) => item.kind === 'rejected');
const portsOf = (items: ReadItem[], ip?: string) =>
  observations(items)
    .filter((o) => ip === undefined || o.ip === ip)
    .map((o) => o.port);
const find = (items: ReadItem[], ip: string, port: number) => {
  const found = observations(items).find((o) => o.ip === ip && o.port === port);
  if (!found) throw new Error(`no observation for ${ip}:${port}`);
  return found;
};

describe('nmap XML fixtures', () => {
  it('counts one observation per open port in every shared scan', async () => {
    const openPorts: Record<string, number> = {
      'nmap_libnmap_1_hosts_banner.xml': 5,
      'nmap_libnmap_1_hosts_banner_ports.xml': 2,
      'nmap_libnmap_1_os_banner_scripts.xml': 8,
      'nmap_libnmap_2_hosts_version.xml': 8,
      'nmap_libnmap_dionaea_scan.xml': 16,
      'nmap_libnmap_extra_ports.xml': 16,
      'nmap_libnmap_full_sudo5.xml': 11,
      'nmap_libnmap_full_sudo6.xml': 12,
      'nmap_libnmap_fullscan.xml': 9,
      'nmap_libnmap_os_scan6.xml': 11,
      'nmap_ullaakut_scan_base.xml': 1,
    };
    for (const [file, count] of Object.entries(openPorts)) {
      const items = await readFixture(file);
      expect(rejections(items), file).toEqual([]);
      expect(items, file).toHaveLength(count);
    }
  });

  it('reads product, version, hostnames and start time (1_hosts_banner)', async () => {
    const items = await readFixture('nmap_libnmap_1_hosts_banner.xml');
    expect(portsOf(items)).toEqual([22, 25, 111, 631, 3306]);
    const ssh = find(items, '127.0.0.1', 22);
    expect(ssh).toMatchObject({
      protocol: 'tcp',
      hostnames: ['localhost'],
      timestamp: 1361738385_000,
      fingerprints: [{ product: 'OpenSSH', version: '5.3', service: 'ssh', extrainfo: 'protocol 2.0' }],
      osCpes: [],
      cves: [],
      classifications: [],
    });
    expect(find(items, '127.0.0.1', 3306).fingerprints[0]).toMatchObject({ product: 'MySQL', version: '5.1.61' });
    // A probed service with no product still records what nmap recognised.
    expect(find(items, '127.0.0.1', 111).fingerprints).toEqual([{ service: 'rpcbind' }]);
    // Observations point at the line where <host> starts.
    expect(items.every((item) => item.at.line === 14)).toBe(true);
  });

  it('excludes closed ports (1_hosts_banner_ports) and filtered ports (2_hosts_version)', async () => {
    expect(portsOf(await readFixture('nmap_libnmap_1_hosts_banner_ports.xml'))).toEqual([22, 25]);
    const twoHosts = await readFixture('nmap_libnmap_2_hosts_version.xml');
    expect(portsOf(twoHosts, '74.207.244.221')).toEqual([22, 80, 9929]); // 25 is filtered
    expect(find(twoHosts, '74.207.244.221', 80).hostnames).toEqual(['scanme.nmap.org']);
  });

  it('emits no fingerprint for method="table" guesses', async () => {
    const items = await readFixture('nmap_libnmap_2_hosts_version.xml');
    expect(observations(items).every((o) => o.fingerprints.length === 0)).toBe(true);
    const scripts = await readFixture('nmap_libnmap_1_os_banner_scripts.xml');
    expect(find(scripts, '127.0.0.1', 8009).fingerprints).toEqual([]); // ajp13, method="table"
  });

  it('turns application CPEs into CPE 2.3 fingerprints and keeps nmap fields as extras (fullscan)', async () => {
    const items = await readFixture('nmap_libnmap_fullscan.xml');
    expect(find(items, '192.168.1.4', 80).fingerprints).toEqual([
      {
        cpe: 'cpe:2.3:a:apache:http_server:2.2.22:*:*:*:*:*:*:*',
        vendor: 'apache',
        product: 'http_server',
        version: '2.2.22',
        nmap_product: 'Apache httpd',
        nmap_version: '2.2.22',
        service: 'http',
        extrainfo: '(Ubuntu)',
      },
    ]);
    const ssh = find(items, '192.168.1.4', 22);
    expect(ssh.fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:openbsd:openssh:5.9p1:*:*:*:*:*:*:*',
      version: '5.9p1',
      nmap_version: '5.9p1 Debian 5ubuntu1',
      ostype: 'Linux',
    });
    // The service's own cpe:/o: is a fingerprint of the port; the host's OS guess stays apart.
    expect(ssh.fingerprints.map((f) => f.cpe)).toEqual([
      'cpe:2.3:a:openbsd:openssh:5.9p1:*:*:*:*:*:*:*',
      'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*',
    ]);
    expect(ssh.osCpes).not.toContain('cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*');
  });

  it('takes OS CPEs from the most accurate osmatch only (full_sudo6)', async () => {
    const items = await readFixture('nmap_libnmap_full_sudo6.xml');
    expect(find(items, '192.168.1.1', 23).osCpes).toEqual(['cpe:2.3:o:linux:linux_kernel:2.6.13:*:*:*:*:*:*:*']);
    expect(find(items, '192.168.1.1', 992).fingerprints[0]).toMatchObject({
      product: 'Sagem router telnetd',
      tunnel: 'ssl',
      devicetype: 'router',
    });
    const mac = find(items, '192.168.1.3', 5900);
    expect(mac.osCpes).toEqual([
      'cpe:2.3:o:apple:mac_os_x:10.8:*:*:*:*:*:*:*',
      'cpe:2.3:o:apple:iphone_os:5:*:*:*:*:*:*:*',
    ]);
    // The VNC service's own cpe:/o:apple:mac_os_x is its fingerprint.
    expect(mac.fingerprints.map((f) => f.cpe)).toContain('cpe:2.3:o:apple:mac_os_x:*:*:*:*:*:*:*:*');
    expect(find(items, '192.168.1.3', 88).fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:heimdal:kerberos:*:*:*:*:*:*:*:*',
      vendor: 'heimdal',
      product: 'kerberos',
    });
    expect(find(items, '192.168.1.3', 88).fingerprints[0]!.version).toBeUndefined();
    // Five osmatches tie at 100%: all their CPEs, with the empty URI update part as ANY.
    const windows = find(items, '192.168.1.5', 2869).osCpes;
    expect(windows).toContain('cpe:2.3:o:microsoft:windows_7:*:-:professional:*:*:*:*:*');
    expect(windows).toContain('cpe:2.3:o:microsoft:windows_server_2008:*:beta3:*:*:*:*:*:*');
    expect(windows).toHaveLength(10);
    // 252 hosts are down and mac addresses are not IPs.
    expect(new Set(observations(items).map((o) => o.ip))).toEqual(
      new Set(['192.168.1.1', '192.168.1.2', '192.168.1.5', '192.168.1.3']),
    );
  });

  it('reads old-style <osclass> without CPEs as no OS CPEs (1_os_banner_scripts)', async () => {
    const items = await readFixture('nmap_libnmap_1_os_banner_scripts.xml');
    expect(observations(items).every((o) => o.osCpes.length === 0)).toBe(true);
    expect(find(items, '127.0.0.1', 80).fingerprints[0]).toMatchObject({
      product: 'Apache httpd',
      version: '2.2.15',
      extrainfo: '(CentOS) PHP/5.3.3',
    });
  });

  it('brings the Dionaea honeypot products, vulners CVEs and SMB host-script CVEs through', async () => {
    const items = await readFixture('nmap_libnmap_dionaea_scan.xml');
    const all = observations(items);
    expect(all.every((o) => o.ip === '172.28.1.3')).toBe(true); // the MAC address is ignored
    expect(all[0]!.hostnames).toEqual(['dionaea', 'dionaea.libnmap-testing_testing_net']); // user, then PTR
    expect(all[0]!.timestamp).toBe(1606064948_000);
    expect(all[0]!.osCpes).toEqual([
      'cpe:2.3:o:linux:linux_kernel:4:*:*:*:*:*:*:*',
      'cpe:2.3:o:linux:linux_kernel:5:*:*:*:*:*:*:*',
    ]);

    const products = all.flatMap((o) => o.fingerprints.map((f) => f.nmap_product ?? f.product)).filter(Boolean);
    expect(products).toEqual([
      'Synology DiskStation NAS ftpd',
      'nginx',
      'Windows XP microsoft-ds',
      'Microsoft SQL Server 2000',
      'MySQL',
      'Memcached',
      'MongoDB',
    ]);
    expect(find(items, '172.28.1.3', 3306).fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:mysql:mysql:5.7.16:*:*:*:*:*:*:*',
      version: '5.7.16',
    });
    expect(find(items, '172.28.1.3', 80).fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:igor_sysoev:nginx:*:*:*:*:*:*:*:*',
      vendor: 'igor_sysoev',
      product: 'nginx',
    });
    expect(find(items, '172.28.1.3', 1433).fingerprints[0]).toMatchObject({
      product: 'Microsoft SQL Server 2000',
      version: '8.00.528.00; SP1+',
    });
    // product="" is no product; the version text stays as an extra.
    expect(find(items, '172.28.1.3', 1723).fingerprints).toEqual([{ nmap_version: '(Firmware: 1)', service: 'pptp' }]);

    // vulners table form: type=cve only (the PACKETSTORM entry is dropped).
    expect(find(items, '172.28.1.3', 11211).cves).toEqual([
      'CVE-2016-8705',
      'CVE-2016-8704',
      'CVE-2016-8706',
      'CVE-2018-1000127',
      'CVE-2017-9951',
    ]);
    // smb-vuln-ms17-010 is a host script with state VULNERABLE: it lands on 445/tcp only.
    expect(find(items, '172.28.1.3', 445).cves).toEqual(['CVE-2017-0143']);
    expect(all.filter((o) => o.cves.includes('CVE-2017-0143'))).toHaveLength(1);
  });
});

describe('nmap XML rules (inline documents)', () => {
  const run = (hosts: string, runAttributes = 'scanner="nmap" start="1700000000"') =>
    `<?xml version="1.0"?>\n<nmaprun ${runAttributes}>\n${hosts}\n</nmaprun>\n`;

  it('parses vulners output text when the script has no tables, and vulns-library states', async () => {
    const items = await readXml(
      run(`<host starttime="1700000100"><status state="up"/><address addr="2001:DB8:0:0::1" addrtype="ipv6"/>
<ports>
<port protocol="tcp" portid="53"><state state="open"/><service name="domain" product="ISC BIND" version="9.8.2rc1" method="probed"><cpe>cpe:/a:isc:bind:9.8.2rc1</cpe></service>
<script id="vulners" output="&#xa;  cpe:/a:isc:bind:9.8.2rc1: &#xa;    CVE-2012-1667 8.5 https://vulners.com/cve/CVE-2012-1667&#xa;    EDB-ID:123 5.0"/></port>
<port protocol="tcp" portid="443"><state state="open"/><service name="https" method="probed" tunnel="ssl"/>
<script id="ssl-heartbleed" output="..."><table key="CVE-2014-0160"><elem key="title">Heartbleed</elem><elem key="state">VULNERABLE</elem><table key="ids"><elem>CVE:CVE-2014-0160</elem></table></table></script>
<script id="ssl-poodle" output="..."><table key="CVE-2014-3566"><elem key="state">NOT VULNERABLE</elem><table key="ids"><elem>CVE:CVE-2014-3566</elem></table></table></script>
<script id="http-vuln-x" output="..."><table key="NMAP-1"><elem key="state">LIKELY VULNERABLE</elem><table key="ids"><elem>CVE:cve-2020-1234</elem><elem>OSVDB:1</elem></table></table></script>
</port>
</ports></host>`),
    );
    const [dns, https] = observations(items) as [Observation, Observation];
    expect(dns.ip).toBe('2001:db8::1');
    expect(dns.timestamp).toBe(1700000100_000);
    expect(dns.cves).toEqual(['CVE-2012-1667']);
    expect(dns.fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:isc:bind:9.8.2rc1:*:*:*:*:*:*:*',
      version: '9.8.2rc1',
      nmap_product: 'ISC BIND',
    });
    expect(https.cves).toEqual(['CVE-2014-0160', 'CVE-2020-1234']);
    expect(https.fingerprints).toEqual([{ service: 'https', tunnel: 'ssl' }]);
  });

  it('puts the detected version into a lone versionless application CPE', async () => {
    const items = await readXml(
      run(`<host starttime="1700000000"><address addr="10.0.0.9" addrtype="ipv4"/><ports>
<port protocol="tcp" portid="80"><state state="open"/><service name="http" product="nginx" version="1.18.0" method="probed"><cpe>cpe:/a:igor_sysoev:nginx</cpe></service></port>
<port protocol="tcp" portid="22"><state state="open"/><service name="ssh" product="OpenSSH" version="8.2p1 Ubuntu 4ubuntu0.5" method="probed"><cpe>cpe:/a:openbsd:openssh</cpe><cpe>cpe:/o:linux:linux_kernel</cpe></service></port>
</ports></host>`),
    );
    const [http, ssh] = observations(items) as [Observation, Observation];
    expect(http.fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:igor_sysoev:nginx:1.18.0:*:*:*:*:*:*:*',
      version: '1.18.0',
      nmap_version: '1.18.0',
    });
    // A version with spaces cannot be a CPE value: the CPE stays versionless, nmap_version keeps it.
    expect(ssh.fingerprints).toEqual([
      {
        cpe: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*',
        vendor: 'openbsd',
        product: 'openssh',
        nmap_product: 'OpenSSH',
        nmap_version: '8.2p1 Ubuntu 4ubuntu0.5',
        service: 'ssh',
      },
      // The OS CPE the service reported is a fingerprint too, without nmap's version (that is OpenSSH's).
      { cpe: 'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', vendor: 'linux', product: 'linux_kernel' },
    ]);
    expect(ssh.osCpes).toEqual([]);
  });

  it('falls back to endtime, then nmaprun start, and rejects a host with no time at all', async () => {
    const host = (times: string) =>
      `<host ${times}><address addr="10.0.0.1" addrtype="ipv4"/><ports><port protocol="tcp" portid="80"><state state="open"/></port></ports></host>`;
    const [fromEnd] = observations(await readXml(run(host('endtime="1700000200"')))) as [Observation];
    expect(fromEnd.timestamp).toBe(1700000200_000);
    const [fromRun] = observations(await readXml(run(host('')))) as [Observation];
    expect(fromRun.timestamp).toBe(1700000000_000);
    const items = await readXml(run(host(''), 'scanner="nmap"'));
    expect(items).toEqual([
      { kind: 'rejected', at: { file: 'inline.xml', line: 3 }, reason: expect.stringMatching(/no timestamp/) },
    ]);
  });

  it('ignores open|filtered, rejects sctp and bad port ids with the port line, keeps going', async () => {
    const items = await readXml(
      run(`<host starttime="1700000000"><address addr="10.0.0.2" addrtype="ipv4"/><ports>
<port protocol="udp" portid="161"><state state="open|filtered"/></port>
<port protocol="sctp" portid="38412"><state state="open"/></port>
<port protocol="tcp" portid="70000"><state state="open"/></port>
<port protocol="UDP" portid="123"><state state="open"/><service name="ntp" product="NTP" version="v4" method="probed"/></port>
</ports></host>`),
    );
    expect(rejections(items)).toEqual([
      {
        kind: 'rejected',
        at: { file: 'inline.xml', line: 5 },
        reason: expect.stringMatching(/^port 38412\/sctp: unknown transport "sctp"/),
      },
      {
        kind: 'rejected',
        at: { file: 'inline.xml', line: 6 },
        reason: 'port 70000/tcp: port 70000 out of range 1–65535',
      },
    ]);
    expect(observations(items)).toMatchObject([
      { port: 123, protocol: 'udp', fingerprints: [{ product: 'NTP', version: 'v4' }] },
    ]);
  });

  it('reads masscan -oX (banners as service extras, endtime only)', async () => {
    const xml = `<?xml version="1.0"?>
<!-- masscan v1.3 scan -->
<nmaprun scanner="masscan" start="1700000000" version="1.0-BETA"  xmloutputversion="1.03">
<scaninfo type="syn" protocol="tcp" />
<host endtime="1700000050"><address addr="192.0.2.10" addrtype="ipv4"/><ports><port protocol="tcp" portid="80"><state state="open" reason="syn-ack" reason_ttl="54"/></port></ports></host>
<host endtime="1700000060"><address addr="192.0.2.10" addrtype="ipv4"/><ports><port protocol="tcp" portid="80"><state state="open" reason="response" reason_ttl="54"/><service name="http" banner="HTTP/1.0 200 OK\\x0d\\x0aServer: nginx/1.18.0"></service></port></ports></host>
<runstats><finished time="1700000070" timestr="2023-11-14 22:14:30" elapsed="70" /><hosts up="1" down="0" total="1" /></runstats>
</nmaprun>`;
    const items = await readXml(xml);
    expect(rejections(items)).toEqual([]);
    expect(observations(items)).toEqual([
      {
        ip: '192.0.2.10',
        port: 80,
        protocol: 'tcp',
        hostnames: [],
        timestamp: 1700000050_000,
        fingerprints: [],
        osCpes: [],
        cves: [],
        classifications: [],
      },
      {
        ip: '192.0.2.10',
        port: 80,
        protocol: 'tcp',
        hostnames: [],
        timestamp: 1700000060_000,
        fingerprints: [{ service: 'http', banner: 'HTTP/1.0 200 OK\\x0d\\x0aServer: nginx/1.18.0' }],
        osCpes: [],
        cves: [],
        classifications: [],
      },
    ]);
    expect(items.map((item) => item.at.line)).toEqual([5, 6]);
  });

  it('reports a truncated file after yielding the complete hosts', async () => {
    const xml =
      run(`<host starttime="1700000000"><address addr="10.0.0.3" addrtype="ipv4"/><ports><port protocol="tcp" portid="22"><state state="open"/></port></ports></host>
<host starttime="1700000000"><address addr="10.0.0.4" addrtype="ipv4"/><ports><port protocol="tcp" portid="22"><state state="open"/>`);
    const items = await readXml(xml.slice(0, xml.indexOf('</nmaprun>')));
    expect(observations(items).map((o) => o.ip)).toEqual(['10.0.0.3']);
    expect(rejections(items)).toEqual([
      {
        kind: 'rejected',
        at: { file: 'inline.xml', line: 4 },
        reason: expect.stringMatching(/input ended inside the <host> that starts on line 4/),
      },
    ]);
  });

  it('says so when the file ends between hosts', async () => {
    const xml = run(
      `<host starttime="1700000000"><address addr="10.0.0.3" addrtype="ipv4"/><ports><port protocol="tcp" portid="22"><state state="open"/></port></ports></host>`,
    );
    const items = await readXml(xml.slice(0, xml.indexOf('</nmaprun>')));
    expect(items.map((i) => (i.kind === 'rejected' ? i.reason : i.observation.ip))).toEqual([
      '10.0.0.3',
      'input ended before </nmaprun> (scan still running or truncated?)',
    ]);
  });

  it('yields one rejection for input that is not nmap XML', async () => {
    expect(await readXml('{"ip": "1.2.3.4"}\n')).toEqual([
      {
        kind: 'rejected',
        at: { file: 'inline.xml', line: 2 },
        reason: 'invalid XML: text data outside of root node (line 2, column 1); the rest of the file was not read',
      },
    ]);
    expect(await readXml('<?xml version="1.0"?><html><body/></html>')).toEqual([
      {
        kind: 'rejected',
        at: { file: 'inline.xml', line: 1 },
        reason: expect.stringMatching(/not an nmap XML report: the root element is <html>/),
      },
    ]);
  });

  it('rejects a host without an IP address once, at its line', async () => {
    const items = await readXml(
      run(
        `<host starttime="1700000000"><address addr="00:11:22:33:44:55" addrtype="mac"/><ports><port protocol="tcp" portid="22"><state state="open"/></port><port protocol="tcp" portid="80"><state state="open"/></port></ports></host>`,
      ),
    );
    expect(items).toEqual([
      {
        kind: 'rejected',
        at: { file: 'inline.xml', line: 3 },
        reason: 'host with 2 open port(s): no IPv4 or IPv6 <address>',
      },
    ]);
  });

  it('skips an <address> without addr instead of taking it as the IP', async () => {
    const ports = `<ports><port protocol="tcp" portid="22"><state state="open"/></port></ports>`;
    const withOther = await readXml(
      run(
        `<host starttime="1700000000"><address addrtype="ipv4"/><address addr="10.0.0.1" addrtype="ipv4"/>${ports}</host>`,
      ),
    );
    expect(observations(withOther).map((o) => o.ip)).toEqual(['10.0.0.1']);
    const alone = await readXml(run(`<host starttime="1700000000"><address addrtype="ipv4"/>${ports}</host>`));
    expect(rejections(alone).map((item) => item.kind === 'rejected' && item.reason)).toEqual([
      'host with 1 open port(s): no IPv4 or IPv6 <address>',
    ]);
  });
});
