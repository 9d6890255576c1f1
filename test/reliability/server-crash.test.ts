import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../support/cli.js';
import { engineCases } from '../support/engines.js';
import { indexDifferences } from './support/api-view.js';
import { LONG, report, SEED, seededRandom } from './support/figures.js';
import {
  allRecords,
  databaseUrlOf,
  exited,
  killHard,
  type RunningServer,
  sleep,
  startServer,
  stderrOf,
  withStorage,
} from './support/processes.js';
import { scanLines, toNdjson } from './support/scans.js';

/**
 * kill -9 of a server while an ingest runs: a server is killed at a random point of the ingest and
 * started again at once (so it loads while records are still being written), and once the ingest
 * has ended, its index must equal the database: a cursor walk over every record, and each filter
 * class's total, against the same evaluated directly over the stored records.
 */
const LINES = 4000;
const TRIES = LONG ? 6 : 2;

describe.each(engineCases())('kill -9 of a server while ingest runs ($name)', (engine) => {
  let dir: string;
  let scanFile: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-reliability-'));
    scanFile = path.join(dir, 'scan.ndjson');
    fs.writeFileSync(scanFile, toNdjson(scanLines(SEED + 1, LINES)));
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the restarted server’s index equals the database', async () => {
    const random = seededRandom(SEED ^ 0x5e4e);
    const failures: string[] = [];
    const readyMs: number[] = [];
    let duringIngest = 0;
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const database = await engine.fresh();
      const env = {
        VULNSCOPE_DATABASE_URL: databaseUrlOf(database.config),
        VULNSCOPE_RETENTION_DAYS: '0',
        VULNSCOPE_RATE_LIMIT: 'unlimited',
        VULNSCOPE_BACKUP_INTERVAL: '0',
      };
      let server: RunningServer | undefined;
      try {
        const token = await withStorage(
          database.config,
          async (storage) => (await storage.tokens.create('crash')).token,
        );
        server = await startServer(env);
        const ingest = spawnCli(['ingest', 'scans', scanFile, '--batch-size', '100'], env);
        const ingestErr = stderrOf(ingest);
        const ingestDone = exited(ingest);
        await Promise.race([sleep(500 + random() * 2500), ingestDone]);
        const killedDuringIngest = ingest.exitCode === null;
        if (killedDuringIngest) duringIngest++;
        await killHard(server.child);
        const restarted = performance.now();
        server = await startServer(env);
        readyMs.push(performance.now() - restarted);
        expect(await ingestDone, ingestErr()).toBe(0);
        const records = await withStorage(database.config, allRecords);
        const current = server;
        const get = async (url: string) => {
          const response = await fetch(`${current.base}${url}`, { headers: { authorization: `Bearer ${token}` } });
          return { status: response.status, body: (await response.json()) as any };
        };
        // The server follows the change log every 250 ms: give it a few polls to apply the ingest's last batches.
        let differences: string[] = [];
        for (let wait = 0; wait < 40; wait++) {
          differences = await indexDifferences(get, records);
          if (differences.length === 0) break;
          await sleep(250);
        }
        if (differences.length)
          failures.push(`try ${attempt} (killed during ingest: ${killedDuringIngest}): ${differences.join('; ')}`);
      } finally {
        if (server) await killHard(server.child);
        await database.drop();
      }
    }
    const part = `server kill -9 during ingest ${engine.name}`;
    report(part, 'tries (kill while the ingest was running)', `${TRIES} (${duringIngest})`);
    report(part, 'failures (index differs from the database)', failures.length);
    report(part, 'restart until /healthz 200, ms (each try)', readyMs.map((ms) => Math.round(ms)).join(', '));
    expect(failures, `seed ${SEED}`).toEqual([]);
  });
});
