import type { Sql, SqlValue } from './database.js';
import type { HostWrite } from '../core/host-record.js';
import type { UpsertCounts } from './hosts.js';

/** Rows per multi-row statement (each host row binds 20 values; SQLite allows 32,766). */
const CHUNK = 250;

interface PortRecord {
  fpKey: string;
  observedAt: number;
  /** For a record first seen in this batch: the time of its first observation here. */
  dateAdded?: number;
  /** Set for rows already in the database. */
  id?: number;
  /** For rows already in the database: their CONTENT_COLUMNS as stored. */
  content?: SqlValue[];
}

/** What an observation may change in a record besides its observation time (the key and date_added stay). */
const CONTENT_COLUMNS = [
  'hostname',
  'asn',
  'as_name',
  'as_domain',
  'country',
  'country_code',
  'fingerprints',
  'os_cpes',
  'scanner_cves',
  'knowledge_cves',
  'cves',
  'observed_classifications',
  'classifications',
] as const;

const portKeyOf = (w: { ipKey: string; port: number; protocol: string }) =>
  `${w.ipKey}\u0000${w.port}\u0000${w.protocol}`;
const recordKeyOf = (portKey: string, fpKey: string) => `${portKey}\u0000${fpKey}`;

/**
 * Applies a batch with the record rules (see HostRepository.upsertBatch), set-wise: one query
 * reads every record on the batch's ports, the rules run in memory in input order, then one
 * multi-row delete, upsert, time update and change-log insert per chunk write the outcome.
 */
export async function applyBatch(tx: Sql, writes: HostWrite[], now: number): Promise<UpsertCounts> {
  const counts: UpsertCounts = { inserted: 0, updated: 0, unchanged: 0, superseded: 0 };
  const ports = await loadPorts(tx, writes);
  const toDelete: number[] = [];
  const pending = new Map<string, { write: HostWrite; dateAdded: number; record: PortRecord }>();

  const drop = (portKey: string, record: PortRecord) => {
    // A stored record may also have an update queued from earlier in this batch: cancel it too.
    pending.delete(recordKeyOf(portKey, record.fpKey));
    if (record.id !== undefined) toDelete.push(record.id);
  };

  for (const write of writes) {
    const portKey = portKeyOf(write);
    let records = ports.get(portKey);
    if (!records) {
      records = [];
      ports.set(portKey, records);
    }
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
    let record = same;
    if (record) {
      record.observedAt = write.observedAt;
      dateAdded = record.dateAdded ?? dateAdded;
      counts.updated++;
    } else {
      record = { fpKey: write.fpKey, observedAt: write.observedAt, dateAdded };
      records.push(record);
      counts.inserted++;
    }
    // A stored record keeps its date_added (the upsert never updates it).
    pending.set(recordKeyOf(portKey, write.fpKey), { write, dateAdded, record });
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

  for (let i = 0; i < toDelete.length; i += CHUNK) {
    const chunk = toDelete.slice(i, i + CHUNK);
    await tx.run(`DELETE FROM hosts WHERE id IN (${chunk.map(() => '?').join(',')})`, chunk);
  }
  // A stored record observed again with the same content only moves in time: a narrow update,
  // and a change-log entry that carries the time, so tailing indexes need not read it back.
  const rows: Array<{ write: HostWrite; dateAdded: number; content: SqlValue[] }> = [];
  const retimed: Array<{ id: number; observedAt: number }> = [];
  for (const { write, dateAdded, record } of pending.values()) {
    const content = contentOf(write);
    if (record.id !== undefined && sameValues(record.content!, content))
      retimed.push({ id: record.id, observedAt: write.observedAt });
    else rows.push({ write, dateAdded, content });
  }
  const changed = await upsertRows(tx, rows);
  await retime(tx, retimed);
  await logChanges(tx, toDelete, true, now);
  await logChanges(tx, changed, false, now);
  await logRetimes(tx, retimed, now);
  return counts;
}

async function upsertRows(
  tx: Sql,
  rows: Array<{ write: HostWrite; dateAdded: number; content: SqlValue[] }>,
): Promise<number[]> {
  const changed: number[] = [];
  const columns = ['ip', 'ip_key', 'port', 'protocol', 'fp_key', 'date_added', 'observed_at', ...CONTENT_COLUMNS];
  const placeholders = `(${columns.map(() => '?').join(', ')})`;
  const updates = ['observed_at', ...CONTENT_COLUMNS].map((column) => `${column} = excluded.${column}`).join(', ');
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const returned = await tx.all<{ id: number }>(
      `INSERT INTO hosts (${columns.join(', ')}) VALUES ${chunk.map(() => placeholders).join(', ')}
       ON CONFLICT (ip_key, port, protocol, fp_key) DO UPDATE SET ${updates}
       RETURNING id`,
      chunk.flatMap(({ write, dateAdded, content }) => [
        write.ip,
        write.ipKey,
        write.port,
        write.protocol,
        write.fpKey,
        dateAdded,
        write.observedAt,
        ...content,
      ]),
    );
    for (const { id } of returned) changed.push(id);
  }
  return changed;
}

async function retime(tx: Sql, retimed: Array<{ id: number; observedAt: number }>): Promise<void> {
  if (tx.engine === 'sqlite') {
    // One prepared statement per record: SQLite's planner answers the set-wise UPDATE … FROM
    // (VALUES …) below with a scan of the whole key index per statement (seen at 10M records).
    for (const { id, observedAt } of retimed)
      await tx.run(`UPDATE hosts SET observed_at = ? WHERE id = ?`, [observedAt, id]);
    return;
  }
  for (let i = 0; i < retimed.length; i += CHUNK * 2) {
    const chunk = retimed.slice(i, i + CHUNK * 2);
    await tx.run(
      `UPDATE hosts SET observed_at = v.column2
       FROM (VALUES ${chunk.map(() => '(CAST(? AS BIGINT), CAST(? AS BIGINT))').join(', ')}) AS v
       WHERE hosts.id = v.column1`,
      chunk.flatMap(({ id, observedAt }) => [id, observedAt]),
    );
  }
}

async function logRetimes(tx: Sql, retimed: Array<{ id: number; observedAt: number }>, now: number): Promise<void> {
  for (let i = 0; i < retimed.length; i += CHUNK * 4) {
    const chunk = retimed.slice(i, i + CHUNK * 4);
    await tx.run(
      `INSERT INTO host_changes (host_id, deleted, changed_at, observed_at) VALUES ${chunk.map(() => '(?, 0, ?, ?)').join(', ')}`,
      chunk.flatMap(({ id, observedAt }) => [id, now, observedAt]),
    );
  }
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
    const rows = await tx.all<
      { id: number; ip_key: string; port: number; protocol: string; fp_key: string; observed_at: number } & Record<
        string,
        SqlValue
      >
    >(
      `SELECT id, ip_key, port, protocol, fp_key, observed_at, ${CONTENT_COLUMNS.join(', ')} FROM hosts
       WHERE (ip_key, port, protocol) IN (VALUES ${chunk.map(() => '(?, CAST(? AS INTEGER), ?)').join(', ')})`,
      chunk.flatMap((w) => [w.ipKey, w.port, w.protocol]),
    );
    for (const row of rows) {
      const key = portKeyOf({ ipKey: row.ip_key, port: row.port, protocol: row.protocol });
      let records = ports.get(key);
      if (!records) {
        records = [];
        ports.set(key, records);
      }
      records.push({
        id: row.id,
        fpKey: row.fp_key,
        observedAt: row.observed_at,
        content: CONTENT_COLUMNS.map((column) => row[column]!),
      });
    }
  }
  return ports;
}

/** The record's CONTENT_COLUMNS values, in that order. */
function contentOf(write: HostWrite): SqlValue[] {
  return [
    write.hostname,
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

function sameValues(a: SqlValue[], b: SqlValue[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
