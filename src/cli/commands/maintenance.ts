import type { Config } from '../../config.js';
import { expireObservations } from '../../services/expiry.js';
import { openDatabase } from '../../storage/index.js';
import { createStorage } from '../../storage/index.js';
import { migrate } from '../../storage/index.js';
import { printSummary } from '../output.js';

export async function runMigrations(config: Config): Promise<void> {
  const db = await openDatabase(config.database);
  try {
    const { applied } = await migrate(db);
    process.stderr.write(
      applied.length
        ? `applied migrations ${applied.join(', ')} to ${db.description}\n`
        : `${db.description} is up to date\n`,
    );
  } finally {
    await db.close();
  }
}

export async function runExpiry(config: Config): Promise<void> {
  const storage = await createStorage(config.database);
  try {
    const summary = await expireObservations(storage, config.retentionDays);
    printSummary(`expiry (retention ${config.retentionDays ? `${config.retentionDays} days` : 'disabled'})`, {
      expired: summary.expired,
      'change-log entries pruned': summary.prunedChanges,
      seconds: (summary.durationMs / 1000).toFixed(2),
    });
  } finally {
    await storage.close();
  }
}
