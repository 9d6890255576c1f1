import { Readable } from 'node:stream';
import { countryName } from '../../core/countries.js';
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
  for (let i = 0; i < options.count; i++) {
    const network = DEMO_NETWORKS[i % DEMO_NETWORKS.length]!;
    const host = random.int(1, 254);
    const ip = network.prefix.includes(':') ? `${network.prefix}${host.toString(16)}` : `${network.prefix}${host}`;
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
      cves: service.cves,
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
