import fs from 'node:fs';
import { createInterface } from 'node:readline';
import type { DatabaseConfig } from '../src/config.js';
import { openDatabase } from '../src/storage/index.js';
import { migrate } from '../src/storage/index.js';

const BATCH = 1000;

/**
 * The physical floor for ingest: the same rows, read from the same file, inserted with plain
 * batched INSERTs into the hosts table alone — no normalising, enrichment, upsert rules or change
 * log. Uses the engine directly (multi-row INSERT, one transaction per batch).
 */
export async function rawInsert(
  config: DatabaseConfig,
  dataset: string,
): Promise<{ rows: number; rowsPerSecond: number }> {
  const db = await openDatabase(config);
  await migrate(db);
  const started = performance.now();
  let rows = 0;
  let batch: Array<Array<string | number | null>> = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const values = batch;
    batch = [];
    const placeholders = values.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    await db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO hosts (ip, ip_key, port, protocol, fp_key, hostname, observed_at, date_added, asn, as_name, country_code,
          fingerprints, os_cpes, scanner_cves, cves, observed_classifications, classifications, as_domain)
         VALUES ${placeholders} ON CONFLICT DO NOTHING`,
        values.flat(),
      );
    });
  };
  for await (const line of createInterface({ input: fs.createReadStream(dataset) })) {
    const o = JSON.parse(line) as {
      ip: string;
      port: number;
      protocol: string;
      hostname?: string;
      timestamp: string;
      asn: string;
      as_name: string;
      country_code: string;
      fingerprints: unknown[];
      cves: string[];
      classifications?: string[];
    };
    const t = Date.parse(o.timestamp);
    const classifications = JSON.stringify(o.classifications ?? []);
    batch.push([
      o.ip,
      o.ip,
      o.port,
      o.protocol,
      '',
      o.hostname ?? '',
      t,
      t,
      o.asn,
      o.as_name,
      o.country_code,
      JSON.stringify(o.fingerprints),
      '[]',
      JSON.stringify(o.cves),
      JSON.stringify(o.cves),
      classifications,
      classifications,
      null,
    ]);
    rows++;
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  const seconds = (performance.now() - started) / 1000;
  await db.close();
  return { rows, rowsPerSecond: rows / seconds };
}
