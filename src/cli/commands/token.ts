import type { Config } from '../../config.js';
import { notFound } from '../../core/errors.js';
import { createStorage } from '../../storage/index.js';
import { tokenState } from '../../storage/tokens.js';

/** Prints only the token on stdout, so scripts can capture it. */
export async function createToken(config: Config, name: string): Promise<void> {
  const storage = await createStorage(config.database);
  try {
    const { token, info } = await storage.tokens.create(name);
    process.stdout.write(`${token}\n`);
    process.stderr.write(`created token ${info.id} "${info.name}" (shown once; store it now)\n`);
  } finally {
    await storage.close();
  }
}

export async function listTokens(config: Config, json: boolean): Promise<void> {
  const storage = await createStorage(config.database);
  try {
    const rows = (await storage.tokens.list()).map((info) => ({
      id: info.id,
      name: info.name,
      created: new Date(info.createdAt).toISOString(),
      last_used: info.lastUsedAt ? new Date(info.lastUsedAt).toISOString() : 'never',
      state: tokenState(info, config.tokenIdleDays),
    }));
    if (json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    const header = { id: 'ID', name: 'NAME', created: 'CREATED', last_used: 'LAST USED', state: 'STATE' };
    const table = [header, ...rows.map((row) => ({ ...row, id: String(row.id) }))];
    const widths = Object.keys(header).map((key) =>
      Math.max(...table.map((row) => String(row[key as keyof typeof header]).length)),
    );
    for (const row of table) {
      process.stdout.write(
        `${Object.keys(header)
          .map((key, i) => String(row[key as keyof typeof header]).padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
      );
    }
  } finally {
    await storage.close();
  }
}

export async function revokeToken(config: Config, id: number): Promise<void> {
  const storage = await createStorage(config.database);
  try {
    if (!(await storage.tokens.revoke(id))) throw notFound(`no token with id ${id}`);
    process.stderr.write(`revoked token ${id}\n`);
  } finally {
    await storage.close();
  }
}
