/**
 * One parsed nmap `<host>` and the rules that turn it into observations (one per open port).
 * Rules: docs/observation-format.md, "nmap XML".
 */
import { invalidInput } from '../../core/errors.js';
import type { Fingerprint, Observation, ReadItem, SourcePosition } from '../../core/observation.js';
import { fingerprintsOfCpes, readScannerCpe, withScannerFields } from './fingerprint-cpe.js';
import { epochSecondsTextToMs } from './timestamps.js';
import { rejected, reasonOf } from './types.js';
import {
  canonicalIp,
  compactFields,
  normaliseHostnames,
  parsePort,
  parseTransport,
  truncateText,
  unique,
} from './values.js';

export interface NmapService {
  attributes: Record<string, string>;
  cpes: string[];
}

export interface NmapPort {
  line: number;
  protocol?: string;
  portid?: string;
  state?: string;
  service?: NmapService;
  cves: string[];
}

/** An OS guess (`<osmatch>`, or an old-style `<osclass>` directly under `<os>`). */
export interface NmapOsGuess {
  accuracy: number;
  cpes: string[];
}

export interface NmapHost {
  line: number;
  starttime?: string;
  endtime?: string;
  status?: string;
  addresses: { addr: string; addrtype: string }[];
  hostnames: { name: string; type?: string }[];
  ports: NmapPort[];
  osMatches: NmapOsGuess[];
  osClasses: NmapOsGuess[];
  /** CVEs from `<hostscript>` scripts, keyed by script id. */
  hostScriptCves: { scriptId: string; cves: string[] }[];
}

export interface NmapRun {
  /** `nmaprun@start`, the timestamp of last resort. */
  start?: string;
}

export const newHost = (line: number, attributes: Record<string, string>): NmapHost => ({
  line,
  starttime: attributes.starttime,
  endtime: attributes.endtime,
  addresses: [],
  hostnames: [],
  ports: [],
  osMatches: [],
  osClasses: [],
  hostScriptCves: [],
});

export function observationsFromHost(host: NmapHost, run: NmapRun, file: string): ReadItem[] {
  const openPorts = host.ports.filter((port) => port.state === 'open');
  if (host.status === 'down' || openPorts.length === 0) return [];
  const hostAt = { file, line: host.line };

  let common: Pick<Observation, 'ip' | 'hostnames' | 'timestamp' | 'osCpes'>;
  try {
    common = {
      ip: hostIp(host),
      hostnames: hostnames(host),
      timestamp: hostTimestamp(host, run),
      osCpes: bestOsCpes(host),
    };
  } catch (error) {
    return [rejected(hostAt, `host with ${openPorts.length} open port(s): ${reasonOf(error)}`)];
  }
  const smbCves = smbHostScriptCves(host, openPorts);

  return openPorts.map((port): ReadItem => {
    try {
      const observation = observationFromPort(port, common);
      if (smbCves.port === port) observation.cves = unique([...observation.cves, ...smbCves.cves]);
      return { kind: 'observation', observation, at: hostAt };
    } catch (error) {
      const at: SourcePosition = { file, line: port.line };
      return rejected(at, `port ${port.portid ?? '?'}/${port.protocol ?? '?'}: ${reasonOf(error)}`);
    }
  });
}

function observationFromPort(
  port: NmapPort,
  common: Pick<Observation, 'ip' | 'hostnames' | 'timestamp' | 'osCpes'>,
): Observation {
  const service = port.service;
  return {
    ip: common.ip,
    port: parsePort(port.portid),
    protocol: parseTransport(port.protocol),
    hostnames: common.hostnames,
    timestamp: common.timestamp,
    fingerprints: service ? serviceFingerprints(service) : [],
    osCpes: common.osCpes,
    cves: port.cves,
    classifications: [],
  };
}

/**
 * The service's CPEs give the identity (one fingerprint each, see fingerprintsOfCpes); otherwise
 * nmap's product/version. nmap's own fields ride along on the first
 * fingerprint. Port-table guesses identify nothing.
 */
export function serviceFingerprints({ attributes: a, cpes }: NmapService): Fingerprint[] {
  if (a.method === 'table') return [];
  const extras = compactFields({
    nmap_product: a.product?.trim(),
    nmap_version: a.version?.trim(),
    service: a.name,
    extrainfo: a.extrainfo,
    ostype: a.ostype,
    devicetype: a.devicetype,
    tunnel: a.tunnel,
    banner: a.banner === undefined ? undefined : truncateText(a.banner),
  });
  const scannerCpes = cpes.map(readScannerCpe).filter((cpe) => cpe !== undefined);
  const version = a.version?.trim();
  const product = a.product?.trim();
  return withScannerFields(
    fingerprintsOfCpes(scannerCpes, version),
    product ? { product, ...(version ? { version } : {}) } : undefined,
    extras,
  );
}

function hostIp(host: NmapHost): string {
  const address = host.addresses.find((a) => a.addrtype === 'ipv4' || a.addrtype === 'ipv6');
  if (!address) throw invalidInput('no IPv4 or IPv6 <address>');
  return canonicalIp(address.addr);
}

/** User-given names (the scan target) before reverse-DNS (PTR) names. */
function hostnames(host: NmapHost): string[] {
  const rank = (type?: string) => (type === 'user' ? 0 : type === 'PTR' ? 1 : 2);
  const sorted = [...host.hostnames].sort((a, b) => rank(a.type) - rank(b.type));
  return normaliseHostnames(sorted.map((h) => h.name));
}

function hostTimestamp(host: NmapHost, run: NmapRun): number {
  const candidates = [host.starttime, host.endtime, run.start].filter((t) => t && t !== '0');
  if (candidates.length === 0) {
    throw invalidInput('no timestamp (no host starttime/endtime and no nmaprun start)');
  }
  return epochSecondsTextToMs(candidates[0]);
}

/** CPEs of the most accurate OS guess(es); old-style top-level `<osclass>`es when no `<osmatch>`. */
function bestOsCpes(host: NmapHost): string[] {
  const guesses = host.osMatches.length > 0 ? host.osMatches : host.osClasses;
  if (guesses.length === 0) return [];
  const best = Math.max(...guesses.map((g) => g.accuracy));
  const cpes = guesses
    .filter((g) => g.accuracy === best)
    .flatMap((g) => g.cpes)
    .map(readScannerCpe)
    .filter((cpe) => cpe !== undefined)
    .map((cpe) => cpe.cpe);
  return unique(cpes);
}

/**
 * Host scripts have no port. SMB ones (smb-vuln-ms17-010, samba-vuln-…) describe the SMB
 * service, so their CVEs go to 445/tcp (else 139/tcp) when open; other host-script CVEs are
 * dropped rather than pinned on an unrelated port.
 */
function smbHostScriptCves(host: NmapHost, openPorts: NmapPort[]): { port?: NmapPort; cves: string[] } {
  const cves = host.hostScriptCves.filter((s) => /^(smb|samba)/i.test(s.scriptId)).flatMap((s) => s.cves);
  if (cves.length === 0) return { cves };
  const smbPort = ['445', '139']
    .map((id) => openPorts.find((p) => p.portid === id && p.protocol === 'tcp'))
    .find((p) => p !== undefined);
  return { port: smbPort, cves };
}
