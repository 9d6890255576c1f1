import type { Sql, SqlValue } from './database.js';
import type { HostWrite, UpsertCounts } from './hosts.js';

/** Rows per multi-row statement (each host row binds 20 values; SQLite allows 32,766). */
const CHUNK = 250;

interface PortRecord {
  fpKey: string;
  observedAt: number;
  /** For a record first seen in this batch: the time of its first observation here. */
  dateAdded?: number;
  /** Set for rows already in the database. */
  id?: number;
}

const portKeyOf = (w: { ipKey: string; port: number; protocol: string }) => `${w.ipKey}\u0000${w.port}\u0000${w.protocol}`;
const recordKeyOf = (portKey: string, fpKey: string) => `${portKey}\u0000${fpKey}`;

/**
 * Applies a batch with the record rules (see HostRepository.upsertBatch), set-wise: one query
 * reads every record on the batch's ports, the rules run in memory in input order, then one
 * multi-row upsert, one delete and one change-log insert per chunk write the outcome.
 */
export async function applyBatch(tx: Sql, writes: HostWrite[], now: number): Promise<UpsertCounts> {
  const counts: UpsertCounts = { inserted: 0, updated: 0, unchanged: 0, superseded: 0 };
  const ports = await loadPorts(tx, writes);
  const toDelete: number[] = [];
  const pending = new Map<string, { write: HostWrite; dateAdded: number }>();

  const drop = (portKey: string, record: PortRecord) => {
    // A stored record may also have an update queued from earlier in this batch: cancel it too.
    pending.delete(recordKeyOf(portKey, record.fpKey));
    if (record.id !== undefined) toDelete.push(record.id);
  };

  for (const write of writes) {
    const portKey = portKeyOf(write);
    let records = ports.get(portKey);
    if (!records) ports.set(portKey, (records = []));
    const same = records.find((r) => r.fpKey === write.fpKey);
    if (same && same.observedAt >= write.observedAt) {
      counts.unchanged++;
      continue;
    }
    const newerFingerprinted = records.some(
      (r) => r.fpKey !== write.fpKey && r.fpKey !== '' && r.observedAt > write.observedAt,
    );
    if (newerFingerprinted) {
      // The port has since been seen running something else: this observation is history.
      if (same) {
        records.splice(records.indexOf(same), 1);
        drop(portKey, same);
      }
      counts.superseded++;
      continue;
    }
    let dateAdded = write.observedAt;
    if (same) {
      same.observedAt = write.observedAt;
      dateAdded = same.dateAdded ?? dateAdded;
      counts.updated++;
    } else {
      records.push({ fpKey: write.fpKey, observedAt: write.observedAt, dateAdded });
      counts.inserted++;
    }
    // A stored record keeps its date_added (the upsert never updates it).
    pending.set(recordKeyOf(portKey, write.fpKey), { write, dateAdded });
    if (write.fpKey !== '') {
      for (const other of [...records]) {
        if (other.fpKey !== write.fpKey && other.observedAt < write.observedAt) {
          records.splice(records.indexOf(other), 1);
          drop(portKey, other);
          counts.superseded++;
        }
      }
    }
  }

  const changed: number[] = [];
  for (let i = 0; i < toDelete.length; i += CHUNK) {
    const chunk = toDelete.slice(i, i + CHUNK);
    await tx.run(`DELETE FROM hosts WHERE id IN (${chunk.map(() => '?').join(',')})`, chunk);
  }
  const rows = [...pending.values()];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const returned = await tx.all<{ id: number }>(
      `INSERT INTO hosts (ip, ip_key, port, protocol, fp_key, date_added, hostname, observed_at, asn, as_name, as_domain,
        country, country_code, fingerprints, os_cpes, scanner_cves, knowledge_cves, cves, observed_classifications, classifications)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (ip_key, port, protocol, fp_key) DO UPDATE SET hostname = excluded.hostname,
        observed_at = excluded.observed_at, asn = excluded.asn, as_name = excluded.as_name,
        as_domain = excluded.as_domain, country = excluded.country, country_code = excluded.country_code,
        fingerprints = excluded.fingerprints, os_cpes = excluded.os_cpes, scanner_cves = excluded.scanner_cves,
        knowledge_cves = excluded.knowledge_cves,
        cves = excluded.cves, observed_classifications = excluded.observed_classifications,
        classifications = excluded.classifications
       RETURNING id`,
      chunk.flatMap(({ write, dateAdded }) => rowValues(write, dateAdded)),
    );
    for (const { id } of returned) changed.push(id);
  }
  await logChanges(tx, toDelete, true, now);
  await logChanges(tx, changed, false, now);
  return counts;
}

export async function logChanges(tx: Sql, ids: number[], deleted: boolean, now: number): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK * 4) {
    const chunk = ids.slice(i, i + CHUNK * 4);
    await tx.run(
      `INSERT INTO host_changes (host_id, deleted, changed_at) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}`,
      chunk.flatMap((id) => [id, deleted ? 1 : 0, now]),
    );
  }
}

async function loadPorts(tx: Sql, writes: HostWrite[]): Promise<Map<string, PortRecord[]>> {
  const ports = new Map<string, PortRecord[]>();
  const distinct = new Map<string, HostWrite>();
  for (const write of writes) distinct.set(portKeyOf(write), write);
  const keys = [...distinct.values()];
  for (let i = 0; i < keys.length; i += CHUNK * 2) {
    const chunk = keys.slice(i, i + CHUNK * 2);
    const rows = await tx.all<{ id: number; ip_key: string; port: number; protocol: string; fp_key: string; observed_at: number }>(
      `SELECT id, ip_key, port, protocol, fp_key, observed_at FROM hosts
       WHERE (ip_key, port, protocol) IN (VALUES ${chunk.map(() => '(?, CAST(? AS INTEGER), ?)').join(', ')})`,
      chunk.flatMap((w) => [w.ipKey, w.port, w.protocol]),
    );
    for (const row of rows) {
      const key = portKeyOf({ ipKey: row.ip_key, port: row.port, protocol: row.protocol });
      let records = ports.get(key);
      if (!records) ports.set(key, (records = []));
      records.push({ id: row.id, fpKey: row.fp_key, observedAt: row.observed_at });
    }
  }
  return ports;
}

function rowValues(write: HostWrite, dateAdded: number): SqlValue[] {
  return [
    write.ip,
    write.ipKey,
    write.port,
    write.protocol,
    write.fpKey,
    dateAdded,
    write.hostname,
    write.observedAt,
    write.asn ?? null,
    write.asName ?? null,
    write.asDomain ?? null,
    write.country ?? null,
    write.countryCode ?? null,
    JSON.stringify(write.fingerprints),
    JSON.stringify(write.osCpes),
    JSON.stringify(write.scannerCves),
    write.knowledgeCves.length > 0 ? JSON.stringify(write.knowledgeCves) : null,
    JSON.stringify(write.cves),
    JSON.stringify(write.observedClassifications),
    JSON.stringify(write.classifications),
  ];
}
