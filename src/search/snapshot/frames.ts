import fs from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * The snapshot container: a sequence of frames, each `[u32 payload length][u32 CRC-32 of the
 * payload][u8 tag]` then the payload, ending with an end frame. Frames are verified one at a time
 * as they are read, so a corrupt or truncated file is rejected before any of its bytes are used,
 * and neither side ever holds more than one frame.
 */
export const FrameTag = {
  Numbers: 1,
  Bytes: 2,
  Strings: 3,
  Bitmaps: 4,
  End: 5,
} as const;
export type FrameTag = (typeof FrameTag)[keyof typeof FrameTag];

export const FRAME_HEADER_BYTES = 9;
/** The payload size writers aim for: large enough for few system calls, small enough to fill in a few ms. */
export const FRAME_TARGET_BYTES = 4 << 20;

export class SnapshotCorrupt extends Error {}

/** Writes frames to a temporary file beside `file`; `commit` makes it `file` atomically. */
export class FrameWriter {
  private readonly header = Buffer.alloc(FRAME_HEADER_BYTES);
  private bytesWritten = 0;

  private constructor(
    private readonly handle: fs.FileHandle,
    private readonly temporary: string,
    private readonly file: string,
  ) {}

  static async create(file: string): Promise<FrameWriter> {
    await removeStaleTemporaries(file);
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    return new FrameWriter(await fs.open(temporary, 'wx'), temporary, file);
  }

  get size(): number {
    return this.bytesWritten;
  }

  /** Writes one frame whose payload is the concatenation of `parts`. */
  async frame(tag: FrameTag, ...parts: Uint8Array[]): Promise<void> {
    let length = 0;
    let checksum = 0;
    for (const part of parts) {
      length += part.byteLength;
      checksum = crc32(part, checksum);
    }
    this.header.writeUInt32LE(length, 0);
    this.header.writeUInt32LE(checksum, 4);
    this.header.writeUInt8(tag, 8);
    await this.writeAll(this.header);
    for (const part of parts) await this.writeAll(part);
  }

  private async writeAll(data: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < data.byteLength) {
      const { bytesWritten } = await this.handle.write(data, offset, data.byteLength - offset);
      offset += bytesWritten;
    }
    this.bytesWritten += data.byteLength;
  }

  /** Ends the file, flushes it to disk and puts it in place of `file`. */
  async commit(): Promise<void> {
    await this.frame(FrameTag.End);
    await this.handle.sync();
    await this.handle.close();
    await fs.rename(this.temporary, this.file);
  }

  async abort(): Promise<void> {
    await this.handle.close().catch(() => {});
    await fs.rm(this.temporary, { force: true });
  }
}

/** A temporary file untouched this long was left by a process that stopped mid-write. */
const STALE_TEMPORARY_MS = 3_600_000;

/** Removes what writers of `file` that died mid-write left (each as large as a snapshot). */
async function removeStaleTemporaries(file: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const stat = await fs.stat(path.join(dir, name)).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > STALE_TEMPORARY_MS) await fs.rm(path.join(dir, name), { force: true });
  }
}

/** Reads and verifies frames in order; a payload is valid until the next read. */
export class FrameReader {
  private buffer = Buffer.alloc(FRAME_TARGET_BYTES + FRAME_HEADER_BYTES);
  private position = 0;

  private constructor(private readonly handle: fs.FileHandle) {}

  static async open(file: string): Promise<FrameReader> {
    return new FrameReader(await fs.open(file, 'r'));
  }

  /** The next frame's payload, which must carry `tag`. */
  async frame(tag: FrameTag): Promise<Buffer> {
    const header = await this.read(FRAME_HEADER_BYTES, 0);
    const length = header.readUInt32LE(0);
    const checksum = header.readUInt32LE(4);
    const found = header.readUInt8(8);
    if (found !== tag) throw new SnapshotCorrupt(`expected a frame of kind ${tag}, found ${found}`);
    if (this.buffer.byteLength < length + FRAME_HEADER_BYTES) this.buffer = Buffer.alloc(length + FRAME_HEADER_BYTES);
    const payload = await this.read(length, FRAME_HEADER_BYTES);
    if (crc32(payload) !== checksum) throw new SnapshotCorrupt('checksum mismatch');
    return payload;
  }

  /** Reads the end frame and checks nothing follows it. */
  async end(): Promise<void> {
    await this.frame(FrameTag.End);
    const { bytesRead } = await this.handle.read(this.buffer, 0, 1, this.position);
    if (bytesRead !== 0) throw new SnapshotCorrupt('data after the end frame');
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  private async read(length: number, at: number): Promise<Buffer> {
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(this.buffer, at + done, length - done, this.position);
      if (bytesRead === 0) throw new SnapshotCorrupt('truncated');
      done += bytesRead;
      this.position += bytesRead;
    }
    return this.buffer.subarray(at, at + length);
  }
}
