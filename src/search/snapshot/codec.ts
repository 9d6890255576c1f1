import { RoaringBitmap32, type Bitmap } from '../bitmap.js';
import { SLICE_MS } from '../slices.js';
import { FRAME_TARGET_BYTES, type FrameReader, FrameTag, type FrameWriter, SnapshotCorrupt } from './frames.js';

type NumberArray = Float64Array | Uint32Array | Int32Array | Uint16Array | Uint8Array;

/** Strings per frame: joining and encoding them is one slice of work. */
const STRINGS_PER_FRAME = 10_000;

const bytesOf = (array: NumberArray) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

/**
 * The values a component writes into a snapshot: small lists of numbers, typed arrays (raw, in
 * frames), strings (UTF-16 code units, exact for any JavaScript string) and bitmaps (roaring's
 * portable format, packed many to a frame). Every write awaits the file, so the event loop turns
 * between frames and a write never holds it for long.
 */
export class SnapshotOut {
  constructor(private readonly frames: FrameWriter) {}

  async numbers(values: readonly number[]): Promise<void> {
    await this.frames.frame(FrameTag.Numbers, bytesOf(Float64Array.from(values)));
  }

  /** The first `length` elements of `array`. */
  async array(array: NumberArray, length = array.length): Promise<void> {
    const bytes = bytesOf(array).subarray(0, length * array.BYTES_PER_ELEMENT);
    await this.numbers([length]);
    for (let at = 0; at < bytes.byteLength; at += FRAME_TARGET_BYTES) {
      await this.frames.frame(FrameTag.Bytes, bytes.subarray(at, at + FRAME_TARGET_BYTES));
    }
  }

  async strings(values: readonly string[]): Promise<void> {
    await this.numbers([values.length]);
    for (let at = 0; at < values.length; at += STRINGS_PER_FRAME) {
      const slice = values.slice(at, at + STRINGS_PER_FRAME);
      const lengths = Uint32Array.from(slice, (value) => value.length);
      const count = Uint32Array.of(slice.length);
      await this.frames.frame(
        FrameTag.Strings,
        bytesOf(count),
        bytesOf(lengths),
        Buffer.from(slice.join(''), 'utf16le'),
      );
    }
  }

  /** Bitmaps under numeric keys; `count` must be how many `entries` yields. */
  async bitmaps(count: number, entries: Iterable<readonly [number, Bitmap]>): Promise<void> {
    await this.numbers([count]);
    let buffer = Buffer.alloc(FRAME_TARGET_BYTES);
    let used = 0;
    let written = 0;
    // A frame also ends after a slice of time: small bitmaps cost a native call or two each, and a
    // frame of hundreds of thousands of them held the event loop for a few hundred ms.
    let sliceStarted = performance.now();
    for (const [key, bitmap] of entries) {
      const size = bitmap.getSerializationSizeInBytes('portable');
      const sliceUsed = (written & 255) === 0 && performance.now() - sliceStarted >= SLICE_MS;
      if (used > 0 && (used + 8 + size > buffer.byteLength || sliceUsed)) {
        await this.frames.frame(FrameTag.Bitmaps, buffer.subarray(0, used));
        used = 0;
        sliceStarted = performance.now();
      }
      if (8 + size > buffer.byteLength) buffer = Buffer.alloc(8 + size);
      buffer.writeUInt32LE(key, used);
      buffer.writeUInt32LE(size, used + 4);
      bitmap.serialize('portable', buffer.subarray(used + 8, used + 8 + size));
      used += 8 + size;
      written++;
    }
    if (used > 0) await this.frames.frame(FrameTag.Bitmaps, buffer.subarray(0, used));
    if (written !== count) throw new Error(`snapshot: ${written} bitmaps written, ${count} announced`);
  }
}

/** Reads what SnapshotOut wrote, in the same order; anything inconsistent is SnapshotCorrupt. */
export class SnapshotIn {
  constructor(private readonly frames: FrameReader) {}

  /** A list of numbers, `expected` of them when given. */
  async numbers(expected?: number): Promise<number[]> {
    const payload = await this.frames.frame(FrameTag.Numbers);
    if (payload.byteLength % 8 !== 0 || (expected !== undefined && payload.byteLength !== expected * 8)) {
      throw new SnapshotCorrupt('numbers frame of a wrong size');
    }
    const values = new Float64Array(payload.byteLength / 8);
    bytesOf(values).set(payload);
    return Array.from(values);
  }

  async number(): Promise<number> {
    const [value = 0] = await this.numbers(1);
    return value;
  }

  /** A typed array made by `make`, `capacity(length)` long (a column read into its own room to grow). */
  async array<T extends NumberArray>(
    make: (length: number) => T,
    capacity = (length: number) => length,
  ): Promise<{ array: T; length: number }> {
    const length = await this.count();
    const array = make(Math.max(length, capacity(length)));
    const bytes = bytesOf(array);
    const total = length * array.BYTES_PER_ELEMENT;
    for (let at = 0; at < total; ) {
      const payload = await this.frames.frame(FrameTag.Bytes);
      if (at + payload.byteLength > total) throw new SnapshotCorrupt('array longer than announced');
      bytes.set(payload, at);
      at += payload.byteLength;
      if (payload.byteLength === 0) throw new SnapshotCorrupt('empty array frame');
    }
    return { array, length };
  }

  async strings(): Promise<string[]> {
    const total = await this.count();
    const values: string[] = [];
    while (values.length < total) {
      const payload = await this.frames.frame(FrameTag.Strings);
      const count = payload.readUInt32LE(0);
      if (count === 0 || values.length + count > total || payload.byteLength < 4 + count * 4) {
        throw new SnapshotCorrupt('strings frame inconsistent');
      }
      const text = payload.toString('utf16le', 4 + count * 4);
      let offset = 0;
      for (let i = 0; i < count; i++) {
        const length = payload.readUInt32LE(4 + i * 4);
        values.push(text.slice(offset, offset + length));
        offset += length;
      }
      if (offset !== text.length) throw new SnapshotCorrupt('strings frame inconsistent');
    }
    return values;
  }

  /** Calls `each` per bitmap written. */
  async bitmaps(each: (key: number, bitmap: Bitmap) => void): Promise<void> {
    const total = await this.count();
    let read = 0;
    while (read < total) {
      const payload = await this.frames.frame(FrameTag.Bitmaps);
      for (let at = 0; at < payload.byteLength; ) {
        if (at + 8 > payload.byteLength) throw new SnapshotCorrupt('bitmap frame inconsistent');
        const key = payload.readUInt32LE(at);
        const size = payload.readUInt32LE(at + 4);
        if (at + 8 + size > payload.byteLength) throw new SnapshotCorrupt('bitmap frame inconsistent');
        each(key, RoaringBitmap32.deserialize(payload.subarray(at + 8, at + 8 + size), 'portable'));
        at += 8 + size;
        read++;
      }
    }
    if (read !== total) throw new SnapshotCorrupt('more bitmaps than announced');
  }

  private async count(): Promise<number> {
    const value = await this.number();
    if (!Number.isSafeInteger(value) || value < 0) throw new SnapshotCorrupt('a count was expected');
    return value;
  }
}
