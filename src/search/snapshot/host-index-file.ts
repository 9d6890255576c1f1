import fs from 'node:fs/promises';
import path from 'node:path';
import { HostIndex } from '../host-index.js';
import { SnapshotIn, SnapshotOut } from './codec.js';
import { FrameReader, FrameWriter, SnapshotCorrupt } from './frames.js';

/** Raise whenever what HostIndex writes, or how it files records under terms, changes. */
export const HOST_INDEX_SNAPSHOT_FORMAT = 2;
const MAGIC = 'vulnscope host index snapshot';

/** What a snapshot must match to be used: the storage schema and the database it was made from. */
export interface SnapshotIdentity {
  /** The storage migration the database is at. */
  schema: number;
  /** A fingerprint of the database (derived from a value kept in it, never the value itself). */
  database: string;
}

export interface SnapshotHeader extends SnapshotIdentity {
  format: number;
  /** The change-log position the index reflects. */
  seq: number;
  records: number;
  writtenAt: number;
}

export interface SnapshotWritten {
  seq: number;
  records: number;
  bytes: number;
  ms: number;
}

/**
 * Writes `index` (at change-log position `seq`) to `file` through a temporary file and a rename,
 * so a reader sees the previous snapshot or this one, never part of one. The index must not change
 * until the returned promise settles.
 */
export async function writeHostIndexSnapshot(
  file: string,
  index: HostIndex,
  identity: SnapshotIdentity,
  seq: number,
): Promise<SnapshotWritten> {
  const started = performance.now();
  await fs.mkdir(path.dirname(file), { recursive: true });
  const frames = await FrameWriter.create(file);
  try {
    const header: SnapshotHeader = {
      format: HOST_INDEX_SNAPSHOT_FORMAT,
      schema: identity.schema,
      database: identity.database,
      seq,
      records: index.size,
      writtenAt: Date.now(),
    };
    const out = new SnapshotOut(frames);
    await out.strings([MAGIC, JSON.stringify(header)]);
    await index.saveTo(out);
    await frames.commit();
  } catch (error) {
    await frames.abort();
    throw error;
  }
  return { seq, records: index.size, bytes: frames.size, ms: performance.now() - started };
}

export type SnapshotRead = { index: HostIndex; header: SnapshotHeader } | { rejected: string; header?: SnapshotHeader };

/**
 * The index in `file`, or why it cannot be used (missing, corrupt, another format, schema or
 * database, or what `objection` finds in its header, asked before the index is read).
 */
export async function readHostIndexSnapshot(
  file: string,
  expected: SnapshotIdentity,
  objection: (header: SnapshotHeader) => Promise<string | undefined> = async () => undefined,
): Promise<SnapshotRead> {
  let frames: FrameReader;
  try {
    frames = await FrameReader.open(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rejected: 'no snapshot' };
    return { rejected: `snapshot unreadable: ${(error as Error).message}` };
  }
  try {
    const input = new SnapshotIn(frames);
    const [magic, headerText] = await input.strings();
    if (magic !== MAGIC || headerText === undefined) return { rejected: 'not a host index snapshot' };
    const header = JSON.parse(headerText) as SnapshotHeader;
    if (header.format !== HOST_INDEX_SNAPSHOT_FORMAT) {
      return { rejected: `snapshot format ${header.format}, this version reads ${HOST_INDEX_SNAPSHOT_FORMAT}`, header };
    }
    if (header.schema !== expected.schema) {
      return { rejected: `snapshot of schema version ${header.schema}, the database is at ${expected.schema}`, header };
    }
    if (header.database !== expected.database) return { rejected: 'snapshot of another database', header };
    const objected = await objection(header);
    if (objected) return { rejected: objected, header };
    const index = new HostIndex();
    await index.loadFrom(input);
    await frames.end();
    if (index.size !== header.records) throw new SnapshotCorrupt('record count differs from the header');
    return { index, header };
  } catch (error) {
    // Whatever failed (a checksum, a length, the file itself), a rebuild is the exact answer.
    return { rejected: `snapshot corrupt (${(error as Error).message})` };
  } finally {
    await frames.close().catch(() => {});
  }
}
