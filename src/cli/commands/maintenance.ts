import type { Config } from '../../config.js';
import { expireObservations } from '../../services/expiry.js';
import { openDatabase } from '../../storage/index.js';
import { createStorage } from '../../storage/index.js';
import { migrate } from '../../storage/index.js';
import { printSummary } from '../output.js';
import { Progress } from '../progress.js';

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
  const progress = new Progress('expiring', { unit: 'records' });
  try {
    const summary = await expireObservations(storage, config.retentionDays, Date.now(), undefined, (p) => {
      progress.setTotal(p.total);
      progress.update(p.examined, `${p.expired.toLocaleString('en-US')} removed`);
    });
    progress.finish();
    printSummary(`expiry (retention ${config.retentionDays ? `${config.retentionDays} days` : 'disabled'})`, {
      expired: summary.expired,
      'change-log entries pruned': summary.prunedChanges,
      seconds: (summary.durationMs / 1000).toFixed(2),
    });
  } finally {
    progress.finish();
    await storage.close();
  }
}
