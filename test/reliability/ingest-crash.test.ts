import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../support/cli.js';
import { engineCases } from '../support/engines.js';
import { LONG, report, SEED, seededRandom } from './support/figures.js';
import {
  allRecords,
  databaseUrlOf,
  exited,
  killHard,
  recordsChecksum,
  sleep,
  stderrOf,
  withStorage,
} from './support/processes.js';
import { scanLines, toNdjson } from './support/scans.js';

/**
 * kill -9 of `vulnscope ingest scans` at random points (one or two kills per try), then the same
 * ingest run again to the end: the records read back from storage must equal those of a clean
 * run of the same input (checksum over every field but the row id).
 */
const LINES = 3000;
const BATCH = 100;
const TRIES = LONG ? 12 : 3;

describe.each(engineCases())('kill -9 of an ingest, then a re-run ($name)', (engine) => {
  let dir: string;
  let scanFile: string;
  let cleanChecksum: string;
  let cleanCount: number;
  let cleanMs: number;

  const ingest = (url: string) =>
    runCli(['ingest', 'scans', scanFile, '--batch-size', String(BATCH)], {
      VULNSCOPE_DATABASE_URL: url,
      VULNSCOPE_RETENTION_DAYS: '0',
    });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-reliability-'));
    scanFile = path.join(dir, 'scan.ndjson');
    // A fixed clock, so every run of the test reads the same observations.
    fs.writeFileSync(scanFile, toNdjson(scanLines(SEED, LINES, Date.UTC(2026, 0, 1))));
    const database = await engine.fresh();
    try {
      const started = performance.now();
      const result = await ingest(databaseUrlOf(database.config));
      cleanMs = performance.now() - started;
      expect(result.code, result.stderr).toBe(0);
      const records = await withStorage(database.config, allRecords);
      cleanChecksum = recordsChecksum(records);
      cleanCount = records.length;
    } finally {
      await database.drop();
    }
    report(
      `ingest kill -9 ${engine.name}`,
      'clean run',
      `${LINES} lines → ${cleanCount} records in ${(cleanMs / 1000).toFixed(2)} s`,
    );
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-running after kills at random points gives the clean run’s records', async () => {
    const random = seededRandom(SEED ^ 0x1e57);
    let kills = 0;
    let midway = 0;
    const mismatches: string[] = [];
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const database = await engine.fresh();
      const url = databaseUrlOf(database.config);
      try {
        // The schema exists before the first kill: the crash points are in the ingest, not in a first-start migration.
        const migrated = await runCli(['migrate'], { VULNSCOPE_DATABASE_URL: url });
        expect(migrated.code, migrated.stderr).toBe(0);
        const killCount = 1 + Math.floor(random() * 2);
        for (let k = 0; k < killCount; k++) {
          const child = spawnCli(['ingest', 'scans', scanFile, '--batch-size', String(BATCH)], {
            VULNSCOPE_DATABASE_URL: url,
            VULNSCOPE_RETENTION_DAYS: '0',
          });
          const stderr = stderrOf(child);
          const at = Math.round(cleanMs * (0.15 + 0.8 * random()));
          await Promise.race([sleep(at), exited(child)]);
          const finishedFirst = child.exitCode !== null;
          await killHard(child);
          if (finishedFirst) {
            expect(child.exitCode, stderr()).toBe(0);
            continue;
          }
          kills++;
          const present = await withStorage(database.config, (storage) => storage.hosts.count());
          if (present > 0 && present < cleanCount) midway++;
        }
        const rerun = await ingest(url);
        expect(rerun.code, rerun.stderr).toBe(0);
        const checksum = await withStorage(database.config, async (storage) =>
          recordsChecksum(await allRecords(storage)),
        );
        if (checksum !== cleanChecksum) mismatches.push(`try ${attempt}: ${checksum} ≠ ${cleanChecksum}`);
      } finally {
        await database.drop();
      }
    }
    const part = `ingest kill -9 ${engine.name}`;
    report(part, 'tries', TRIES);
    report(part, 'kills (of which with part of the records written)', `${kills} (${midway})`);
    report(part, 'failures (records differ from the clean run)', mismatches.length);
    expect(mismatches, `seed ${SEED}`).toEqual([]);
    expect(kills).toBeGreaterThan(0);
  });
});
