import { Readable } from 'node:stream';
import { countryName } from '../../core/countries.js';
import { formatIp, parseCidr } from '../../core/ip.js';
import { DEMO_CLASSIFICATIONS, DEMO_NETWORKS, DEMO_SERVICES } from './catalog.js';
import { SeededRandom } from './random.js';

const HOUR_MS = 3_600_000;

export interface DemoOptions {
  /** Observations to generate. */
  count: number;
  /** Timestamps are spread over the `spreadDays` days before this time. */
  now: number;
  spreadDays?: number;
  seed?: number;
}

/**
 * The demo dataset as Vulnscope observation NDJSON lines: deterministic for a seed, timestamps
 * relative to `now`, fed through the real ingest pipeline by `vulnscope demo`.
 */
export function* demoObservationLines(options: DemoOptions): Generator<string> {
  const random = new SeededRandom(options.seed ?? 20261121);
  const spreadHours = (options.spreadDays ?? 14) * 24;
  const serviceWeights = DEMO_SERVICES.map((service) => [service, service.weight] as const);
  // About three observations a host, as a /24 holds at the default size; larger sets spread over
  // more hosts where the network has room.
  const wanted = Math.max(254, Math.ceil(options.count / DEMO_NETWORKS.length / 3));
  const networks = DEMO_NETWORKS.map((network) => {
    const range = parseCidr(network.cidr);
    const room = range.last - range.first - 1n; // neither the network nor the broadcast address
    return { ...network, range, hosts: Number(room < BigInt(wanted) ? room : BigInt(wanted)) };
  });
  for (let i = 0; i < options.count; i++) {
    const network = networks[i % networks.length]!;
    const host = random.int(1, network.hosts);
    const ip = formatIp(network.range.version, network.range.first + BigInt(host));
    const service = random.weighted(serviceWeights);
    const port = random.chance(0.85) ? service.port : random.pick([8443, 8000, 8888, 2222, 10443]);
    const hasName = random.chance(0.5);
    const observation = {
      ip,
      port,
      protocol: 'tcp',
      ...(hasName
        ? { hostname: `${service.service.replace(/[^a-z]/g, '')}-${host}.${network.asn.toLowerCase()}.demo.example` }
        : {}),
      timestamp: new Date(options.now - random.int(0, spreadHours) * HOUR_MS - random.int(0, 3_599_999)).toISOString(),
      fingerprints: [{ cpe: service.cpe, service: service.service, source: 'vulnscope-demo' }],
      // Some scanners report CVEs (nmap's vulners script); the rest come from matching the
      // fingerprint against the advisory knowledge the demo loads first.
      cves: random.chance(0.4) ? service.cves : [],
      asn: network.asn,
      as_name: network.name,
      country_code: network.country,
      country: countryName(network.country),
      ...(random.chance(0.03) ? { classifications: [random.weighted(DEMO_CLASSIFICATIONS)] } : {}),
    };
    yield JSON.stringify(observation);
  }
}

export function demoObservationStream(options: DemoOptions): Readable {
  const lines = demoObservationLines(options);
  return Readable.from(
    (function* () {
      for (const line of lines) yield `${line}\n`;
    })(),
  );
}
