import type { SnapshotIn, SnapshotOut } from './snapshot/codec.js';

/** Typed arrays indexed by record id that grow as ids grow. */
export class GrowableColumn<T extends Float64Array | Uint32Array | Uint16Array | Uint8Array> {
  private data: T;

  constructor(private readonly make: (length: number) => T) {
    this.data = make(1024);
  }

  get(id: number): number {
    return id < this.data.length ? this.data[id]! : 0;
  }

  set(id: number, value: number): void {
    if (id >= this.data.length) {
      // A quarter more each time, not double: at 10M records doubling left up to 40% of every
      // column unused (hundreds of MB), and copying a typed array is cheap.
      let length = this.data.length;
      while (length <= id) length = Math.ceil(length * 1.25);
      const grown = this.make(length);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[id] = value;
  }

  get bytes(): number {
    return this.data.byteLength;
  }

  /** The values themselves, for a hot loop (ids past its end are 0); valid until the column next grows. */
  get values(): T {
    return this.data;
  }

  /** Writes the values of ids below `length` (those above are all 0). */
  async saveTo(out: SnapshotOut, length: number): Promise<void> {
    await out.array(this.data, Math.min(length, this.data.length));
  }

  async loadFrom(input: SnapshotIn): Promise<void> {
    // Room to grow by a quarter, as set() would have left.
    this.data = (await input.array(this.make, (length) => Math.max(1024, Math.ceil(length * 1.25)))).array;
  }
}

export const float64Column = () => new GrowableColumn((n) => new Float64Array(n));
export const uint32Column = () => new GrowableColumn((n) => new Uint32Array(n));
export const uint16Column = () => new GrowableColumn((n) => new Uint16Array(n));
export const uint8Column = () => new GrowableColumn((n) => new Uint8Array(n));

/**
 * A reusable buffer for one purpose: a query over hundreds of thousands of ids would otherwise
 * allocate fresh ones each time, and each allocation of external memory nudges V8 toward another
 * collection of a heap that holds a whole index. Callers copy out what they keep.
 */
export class ScratchIds {
  private buffer = new Uint32Array(1024);

  /** A buffer of at least `size` ids (contents undefined). */
  ofSize(size: number): Uint32Array {
    if (this.buffer.length < size) this.buffer = new Uint32Array(Math.max(size, this.buffer.length * 2));
    return this.buffer;
  }
}
