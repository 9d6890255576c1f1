import type { StoredClassificationEntry } from '../core/classification.js';
import type { Database } from './database.js';

export interface ClassificationListInfo {
  name: string;
  loadedAt: number;
  entryCount: number;
}

/** Classification lists (IP ranges → classification), replaced whole when reloaded. */
export class ClassificationListRepository {
  constructor(private readonly db: Database) {}

  /** Replaces the named list atomically; returns the entries it had before. */
  async replace(name: string, entries: StoredClassificationEntry[]): Promise<StoredClassificationEntry[]> {
    return this.db.transaction(async (tx) => {
      const existing = await tx.get<{ id: number }>(`SELECT id FROM classification_lists WHERE name = ?`, [name]);
      let previous: StoredClassificationEntry[] = [];
      if (existing) {
        previous = (
          await tx.all<{ first_key: string; last_key: string; classification: string }>(
            `SELECT first_key, last_key, classification FROM classification_entries WHERE list_id = ?`,
            [existing.id],
          )
        ).map((row) => ({ firstKey: row.first_key, lastKey: row.last_key, classification: row.classification }));
        await tx.run(`DELETE FROM classification_entries WHERE list_id = ?`, [existing.id]);
        await tx.run(`DELETE FROM classification_lists WHERE id = ?`, [existing.id]);
      }
      const list = await tx.get<{ id: number }>(
        `INSERT INTO classification_lists (name, loaded_at, entry_count) VALUES (?, ?, ?) RETURNING id`,
        [name, Date.now(), entries.length],
      );
      for (const entry of entries) {
        await tx.run(
          `INSERT INTO classification_entries (list_id, first_key, last_key, classification) VALUES (?, ?, ?, ?)`,
          [list!.id, entry.firstKey, entry.lastKey, entry.classification],
        );
      }
      return previous;
    });
  }

  async allEntries(): Promise<StoredClassificationEntry[]> {
    const rows = await this.db.all<{ first_key: string; last_key: string; classification: string }>(
      `SELECT first_key, last_key, classification FROM classification_entries ORDER BY first_key`,
    );
    return rows.map((row) => ({ firstKey: row.first_key, lastKey: row.last_key, classification: row.classification }));
  }

  /** The entries classified `type` or `type:<product>`, of every list, by first address. */
  async entriesOfType(type: string): Promise<StoredClassificationEntry[]> {
    const prefix = `${type}:`;
    const rows = await this.db.all<{ first_key: string; last_key: string; classification: string }>(
      `SELECT first_key, last_key, classification FROM classification_entries
        WHERE classification = ? OR substr(classification, 1, ?) = ? ORDER BY first_key, last_key`,
      [type, prefix.length, prefix],
    );
    return rows.map((row) => ({ firstKey: row.first_key, lastKey: row.last_key, classification: row.classification }));
  }

  /** Changes whenever a list is loaded, replaced or removed: whether entries read before are still current. */
  async version(): Promise<string> {
    const rows = await this.db.all<{ id: number; loaded_at: number; entry_count: number }>(
      `SELECT id, loaded_at, entry_count FROM classification_lists ORDER BY id`,
    );
    return rows.map((row) => `${row.id}:${row.loaded_at}:${row.entry_count}`).join(',');
  }

  async list(): Promise<ClassificationListInfo[]> {
    const rows = await this.db.all<{ name: string; loaded_at: number; entry_count: number }>(
      `SELECT name, loaded_at, entry_count FROM classification_lists ORDER BY name`,
    );
    return rows.map((row) => ({ name: row.name, loadedAt: row.loaded_at, entryCount: row.entry_count }));
  }
}
