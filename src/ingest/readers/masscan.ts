/**
 * masscan JSON: `-oJ` (an array of `{ip, timestamp, ports: [{port, proto, status | service}]}`,
 * possibly with old versions' trailing comma) and `-oD` NDJSON (`{ip, timestamp, port, proto,
 * rec_type, data}`). masscan `-oX` goes through the nmap reader. Status records give bare
 * observations; banner records one fingerprint with `service`/`banner` extras and no identity.
 */
import { invalidInput } from '../../core/errors.js';
import type { Observation, ReadItem, SourcePosition } from '../../core/observation.js';
import { readJsonRecords } from './json-records.js';
import { epochSecondsTextToMs } from './timestamps.js';
import { rejected, reasonOf } from './types.js';
import {
  canonicalIp,
  compactFields,
  isObject,
  parsePort,
  parseTransport,
  truncateText,
  type JsonObject,
} from './values.js';

export async function* readMasscan(input: NodeJS.ReadableStream, file: string): AsyncGenerator<ReadItem> {
  for await (const record of readJsonRecords(input, file)) {
    if ('reason' in record) {
      yield rejected(record.at, record.reason);
      continue;
    }
    yield* itemsFromRecord(record.value, record.at);
  }
}

/** A port entry that turned out closed (masscan --show closed) yields nothing. */
type PortResult = Observation | undefined;

function* itemsFromRecord(value: unknown, at: SourcePosition): Generator<ReadItem> {
  if (!isObject(value)) {
    yield rejected(at, 'expected a masscan record object');
    return;
  }
  // masscan-compatible scanners end the array with `{"finished": 1}`.
  if (!('ip' in value) && 'finished' in value) return;
  const entries: (() => PortResult)[] = Array.isArray(value.ports)
    ? value.ports.map((entry) => () => fromPortEntry(value, entry))
    : [() => fromDataRecord(value)];
  for (const [index, entry] of entries.entries()) {
    try {
      const observation = entry();
      if (observation) yield { kind: 'observation', observation, at };
    } catch (error) {
      const where = Array.isArray(value.ports) && value.ports.length > 1 ? `ports[${index}]: ` : '';
      yield rejected(at, where + reasonOf(error));
    }
  }
}

/** One `-oJ` port entry: `{port, proto, status, reason, ttl}` or `{port, proto, service: {name, banner}}`. */
function fromPortEntry(record: JsonObject, entry: unknown): PortResult {
  if (!isObject(entry)) throw invalidInput('ports entry must be an object');
  const { service } = entry;
  if (isObject(service)) return bannerObservation(record, entry.port, entry.proto, service.name, service.banner);
  if (entry.status === undefined) throw invalidInput('ports entry has neither status nor service');
  return entry.status === 'open' ? baseObservation(record, entry.port, entry.proto) : undefined;
}

/** One `-oD` record: `rec_type` "status" (`data.status`) or "banner" (`data.service_name`, `data.banner`). */
function fromDataRecord(record: JsonObject): PortResult {
  const data = isObject(record.data) ? record.data : {};
  switch (record.rec_type) {
    case 'status':
      return data.status === 'open' ? baseObservation(record, record.port, record.proto) : undefined;
    case 'banner':
      return bannerObservation(record, record.port, record.proto, data.service_name, data.banner);
    case undefined:
      throw invalidInput('not a masscan record: no ports array and no rec_type');
    default:
      throw invalidInput(`unknown masscan rec_type ${JSON.stringify(record.rec_type)}`);
  }
}

function bannerObservation(
  record: JsonObject,
  port: unknown,
  proto: unknown,
  service: unknown,
  banner: unknown,
): Observation {
  const observation = baseObservation(record, port, proto);
  const extras = compactFields({
    service,
    banner: typeof banner === 'string' ? truncateText(banner) : banner,
  });
  if (Object.keys(extras).length > 0) observation.fingerprints = [extras];
  return observation;
}

function baseObservation(record: JsonObject, port: unknown, proto: unknown): Observation {
  return {
    ip: canonicalIp(record.ip),
    port: parsePort(port),
    protocol: parseTransport(proto),
    hostnames: [],
    timestamp: epochSecondsTextToMs(record.timestamp),
    fingerprints: [],
    osCpes: [],
    cves: [],
    classifications: [],
  };
}
