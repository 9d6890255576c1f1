import { afterEach, describe, expect, it } from 'vitest';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { prepare } from '../../src/ingest/pipeline.js';
import { openDatabase, type Database } from '../../src/storage/index.js';
import { createStorage } from '../../src/storage/index.js';
import { migrate } from '../../src/storage/index.js';
import { engineCases } from '../support/engines.js';

const classifier = new ClassificationResolver([]);
const write = (ip: string, port: number, version: string, timestamp: number) =>
  prepare(
    {
      ip,
      port,
      protocol: 'tcp',
      hostnames: [],
      timestamp,
      fingerprints: [{ vendor: 'nginx', product: 'nginx', version }],
      osCpes: [],
      cves: [],
      classifications: [],
    },
    { classifier },
  );

async function indexNames(db: Database): Promise<string[]> {
  const rows =
    db.engine === 'sqlite'
      ? await db.all<{ name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'hosts' AND sql IS NOT NULL`,
        )
      : await db.all<{ name: string }>(
          `SELECT indexname AS name FROM pg_indexes WHERE tablename = 'hosts' AND schemaname = current_schema() AND indexname <> 'hosts_pkey'`,
        );
  return rows.map((row) => row.name).sort();
}

describe.each(engineCases())('migration 5: one key index led by ip_key ($name)', (engine) => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
    drop = undefined;
  });

  it('upgrades a database holding records: the same keys update, IP ranges still resolve', async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    const old = await openDatabase(fresh.config);
    await migrate(old, { through: 4 });
    expect(await indexNames(old)).toEqual(['hosts_ip_key', 'hosts_key']);
    // Records as a version-4 server wrote them (its upsert named the old key).
    for (const w of [write('198.51.100.7', 443, '1.24.0', 1_000), write('2001:db8::1', 80, '1.25.0', 1_000)]) {
      await old.run(
        `INSERT INTO hosts (ip, ip_key, port, protocol, fp_key, date_added, hostname, observed_at, fingerprints, os_cpes, scanner_cves, cves, observed_classifications, classifications)
         VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, '[]', '[]', '[]', '[]', '[]')`,
        [w.ip, w.ipKey, w.port, w.protocol, w.fpKey, w.observedAt, w.observedAt, JSON.stringify(w.fingerprints)],
      );
    }
    await old.close();

    const storage = await createStorage(fresh.config);
    try {
      expect(await indexNames(storage.db)).toEqual(['hosts_identity']);
      const counts = await storage.hosts.upsertBatch([
        write('198.51.100.7', 443, '1.24.0', 2_000),
        write('198.51.100.7', 443, '1.26.0', 3_000),
        write('2001:db8::1', 80, '1.25.0', 500),
        write('198.51.100.8', 22, '1.0', 2_000),
      ]);
      expect(counts).toEqual({ inserted: 2, updated: 1, unchanged: 1, superseded: 1 });
      expect(await storage.hosts.count()).toBe(3);
      const v4 = write('198.51.100.0', 0, '', 0).ipKey;
      const v4End = write('198.51.100.255', 0, '', 0).ipKey;
      const inBlock = await storage.hosts.getByIds(await storage.hosts.idsInIpKeyRange(v4, v4End));
      expect(inBlock.map((r) => `${r.ip}:${r.port} ${r.fingerprints[0]?.version}`).sort()).toEqual([
        '198.51.100.7:443 1.26.0',
        '198.51.100.8:22 1.0',
      ]);
    } finally {
      await storage.close();
    }
  });
});
