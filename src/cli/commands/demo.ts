import fs from 'node:fs';
import path from 'node:path';
import type { Config, DatabaseConfig } from '../../config.js';
import { tokenState } from '../../core/tokens.js';
import { confirmingMatcher } from '../../services/matching/source.js';
import { ClassificationResolver } from '../../ingest/classifications/resolver.js';
import { demoObservationStream } from '../../ingest/demo/generate.js';
import { runIngest } from '../../ingest/pipeline.js';
import { SCAN_READERS } from '../../ingest/readers/index.js';
import { createStorage, type Storage } from '../../storage/index.js';
import { serve } from './serve.js';

/**
 * `vulnscope demo`: fills an empty database with the generated demo dataset (through the real
 * NDJSON reader and ingest pipeline), creates a demo token, prints a ready-to-paste curl, serves.
 */
export async function demo(config: Config, options: { records: number; serve: boolean }): Promise<void> {
  const storage = await createStorage(config.database);
  let token: string;
  try {
    if ((await storage.hosts.count()) === 0) {
      process.stderr.write(
        `generating ${options.records.toLocaleString('en-US')} demo observations into ${storage.db.description}\n`,
      );
      const classifier = new ClassificationResolver(await storage.classificationLists.allEntries());
      const items = SCAN_READERS.ndjson(
        demoObservationStream({ count: options.records, now: Date.now() }),
        'demo.ndjson',
      );
      const summary = await runIngest(
        storage,
        items,
        { classifier, matcher: confirmingMatcher(storage) },
        { retentionDays: config.retentionDays },
      );
      // What the API serves: the stored records, after newer scans of a port superseded older
      // ones and observations past the retention window were dropped.
      const served = await storage.hosts.count();
      const dropped = [
        `${count(summary.superseded)} superseded by newer scans of the same port`,
        ...(summary.expired > 0 ? [`${count(summary.expired)} older than the retention window`] : []),
      ];
      process.stderr.write(
        `demo dataset: ${count(served)} target-intel records served (from ${count(summary.read)} observations; ${dropped.join(', ')})\n`,
      );
    } else {
      process.stderr.write(
        `${storage.db.description} already has data (${count(await storage.hosts.count())} target-intel records); not generating the demo dataset\n`,
      );
    }
    const demo = await demoToken(storage, config);
    token = demo.token;
    process.stderr.write(`${demo.note}\n`);
  } finally {
    await storage.close();
  }
  if (!options.serve) {
    process.stdout.write(`${token}\n`);
    return;
  }
  // One process: a cluster's workers would each run the demo command again.
  await serve({ ...config, workers: 1 }, (server) => {
    const url = `${config.publicUrl}/v3/index/target-intel?contains_cve=true&limit=5`;
    process.stdout.write(
      `\nVulnscope demo is serving on ${server.url}\n` +
        `demo token: ${token}\n\n` +
        `  curl -H 'Authorization: Bearer ${token}' '${url}'\n\n` +
        `Stop with Ctrl-C.\n`,
    );
  });
}

const count = (n: number) => n.toLocaleString('en-US');

const DEMO_TOKEN_NAME = 'demo';

/**
 * Where the demo token is kept between runs: beside the SQLite file (`vulnscope.db.demo-token`,
 * mode 0600), because the database holds only its hash. PostgreSQL and in-memory databases have
 * no such place.
 */
export function demoTokenFile(database: DatabaseConfig): string | undefined {
  return database.engine === 'sqlite' && database.file !== ':memory:' ? `${database.file}.demo-token` : undefined;
}

/**
 * The demo token: the one saved beside the database while it is still valid there (not revoked,
 * not idle-expired); otherwise a new one, saved for the next run, after revoking the earlier demo
 * tokens (they cannot be shown again, so they would only pile up).
 */
export async function demoToken(storage: Storage, config: Config): Promise<{ token: string; note: string }> {
  const file = demoTokenFile(config.database);
  const saved = file ? readSaved(file) : undefined;
  if (saved) {
    const info = await storage.tokens.findByToken(saved);
    if (info?.name === DEMO_TOKEN_NAME && tokenState(info, config.tokenIdleDays) === 'active')
      return { token: saved, note: `demo token: reusing token ${info.id}, saved in ${file}` };
  }
  const earlier = (await storage.tokens.list()).filter(
    (info) => info.name === DEMO_TOKEN_NAME && tokenState(info, config.tokenIdleDays) === 'active',
  );
  for (const info of earlier) await storage.tokens.revoke(info.id);
  const { token, info } = await storage.tokens.create(DEMO_TOKEN_NAME);
  const where = file ? save(file, token) : undefined;
  const ids = earlier.map((e) => e.id).join(', ');
  const revoked = earlier.length === 0 ? '' : `; revoked the earlier demo token${earlier.length > 1 ? 's' : ''} ${ids}`;
  return { token, note: `demo token: created token ${info.id}${where ? `, saved in ${where}` : ''}${revoked}` };
}

function readSaved(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Writes the token readable by its owner only; returns where, or undefined when it cannot be saved. */
function save(file: string, token: string): string | undefined {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}`);
  try {
    fs.writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
    return `${file} (mode 0600)`;
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    process.stderr.write(`warning: the demo token cannot be saved in ${file}: ${(error as Error).message}\n`);
    return undefined;
  }
}
