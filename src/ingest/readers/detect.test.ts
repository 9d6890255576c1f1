import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFormat, headIsDecisive } from './detect.js';
import { fixture } from '../../../test/support/fixtures.js';

const SCANS = fixture('scans/');
const fixtureHead = (name: string) => readFileSync(SCANS + name, 'utf8').slice(0, 4096);

describe('detectFormat', () => {
  it.each([
    ['nmap XML', '<?xml version="1.0"?>\n<nmaprun scanner="nmap">', 'nmap'],
    ['masscan XML', '\uFEFF  <?xml version="1.0"?><nmaprun scanner="masscan">', 'nmap'],
    [
      'masscan -oJ',
      '[\n{   "ip": "192.0.2.1",   "timestamp": "1700000000", "ports": [ {"port": 80, "proto": "tcp", "status": "open"} ] }\n,\n',
      'masscan',
    ],
    [
      'masscan -oD',
      '{"ip":"192.0.2.1","timestamp":"1700000000","port":80,"proto":"tcp","rec_type":"status","data":{"status":"open"}}\n',
      'masscan',
    ],
    ['Shodan JSONL', '{"ip_str": "203.0.113.7", "port": 443, "data": "HTTP/1.1 200 OK"}\n{"ip_str"', 'shodan'],
    ['Shodan banner, ip_str last', '{"_shodan": {"module": "http"}, "port": 80, "ip": 1}\n', 'shodan'],
    ['Shodan JSONL starting with a failed line', '{"failed": true, "port": 80}\n{"ip_str": "203.0.113.7"}\n', 'shodan'],
    ['Shodan array', '[{"port": 80, "ip_str": "203.0.113.7"}]', 'shodan'],
    ['Shodan host without ip_str', '{\n  "data": [\n    {"ip": 84504533, "port": 80}\n  ]\n}\n', 'shodan'],
    ['Vulnscope NDJSON', '{"ip": "192.0.2.1", "port": 22, "timestamp": 1700000000}\n', 'ndjson'],
    ['Vulnscope array', '[{"ip": "192.0.2.1", "port": 22, "timestamp": 1700000000}]', 'ndjson'],
    ['Vulnscope NDJSON with a data field', '{"ip": "192.0.2.1", "port": 22, "data": [1, 2]}\n', 'ndjson'],
    ['empty array', '[]', 'ndjson'],
    [
      'first record larger than the head (Shodan keys seen)',
      `{"port": 80, "ip_str": "1.2.3.4", "data": "${'x'.repeat(100)}`,
      'shodan',
    ],
    [
      'first record larger than the head (no tell-tale keys)',
      `{"ip": "1.2.3.4", "port": 80, "banner": "${'x'.repeat(100)}`,
      'ndjson',
    ],
  ])('%s', (_name, head, format) => {
    expect(detectFormat(head)).toBe(format);
  });

  it('returns undefined for empty or unknown input', () => {
    expect(detectFormat('')).toBeUndefined();
    expect(detectFormat('  \n ')).toBeUndefined();
    expect(detectFormat('ip,port\n1.2.3.4,80\n')).toBeUndefined();
  });

  it('recognises every shared fixture', () => {
    expect(detectFormat(fixtureHead('nmap_libnmap_dionaea_scan.xml'))).toBe('nmap');
    expect(detectFormat(fixtureHead('nmap_ullaakut_scan_base.xml'))).toBe('nmap');
    expect(detectFormat(fixtureHead('shodan_host_dns_sample.json'))).toBe('shodan');
    expect(detectFormat(fixtureHead('shodan_host_cropped_nginx_sample.json'))).toBe('shodan');
    // python-libnmap's JSON is none of ours; the NDJSON reader explains that per record.
    expect(detectFormat(fixtureHead('nmap_libnmap_2_hosts.json'))).toBe('ndjson');
  });
});

describe('headIsDecisive', () => {
  it('waits for the whole first record of JSON input', () => {
    expect(headIsDecisive('')).toBe(false);
    expect(headIsDecisive('{\n  "data": [\n')).toBe(false);
    expect(headIsDecisive('{"a": "}"}')).toBe(true);
    expect(headIsDecisive('[ ')).toBe(false);
    expect(headIsDecisive('[1, 2')).toBe(true);
    expect(headIsDecisive('<')).toBe(true);
    expect(headIsDecisive('garbage')).toBe(true);
  });
});
