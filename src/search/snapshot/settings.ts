import { createHash } from 'node:crypto';
import path from 'node:path';
import type { DatabaseConfig } from '../../config.js';
import { SCHEMA_VERSION, type Storage } from '../../storage/index.js';
import type { SnapshotSettings } from '../index-sync.js';
import type { SnapshotIdentity } from './host-index-file.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The host index snapshot of `database` in `dir`: one file per database (several databases may
 * share a directory), tied to the storage schema and to the database's own secret, by a hash.
 */
export function hostIndexSnapshot(dir: string, database: DatabaseConfig, storage: Storage): SnapshotSettings {
  const location =
    database.engine === 'sqlite' ? database.file : `${withoutPassword(database.url)}#${database.schema ?? ''}`;
  // Asked once: a snapshot written at shutdown must not wait on a database that stopped answering.
  let identity: Promise<SnapshotIdentity> | undefined;
  const ask = async (): Promise<SnapshotIdentity> => ({
    schema: SCHEMA_VERSION,
    database: sha256(`vulnscope host index snapshot\n${await storage.secret()}`),
  });
  return {
    file: path.join(dir, `host-index-${sha256(location).slice(0, 16)}.snapshot`),
    identity: () => {
      identity ??= ask().catch((error: unknown) => {
        identity = undefined;
        throw error;
      });
      return identity;
    },
  };
}

function withoutPassword(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1@');
}
