/**
 * Zeroed counting arrays reused across requests: a facet request over a large index needs arrays
 * of a few MB (one slot per term or term group), and allocating external memory per request sets
 * V8 off into collections of a heap that holds a whole index. Callers give back arrays all zero.
 */
export class ZeroedArrays {
  private readonly free: Uint32Array[] = [];

  constructor(private readonly keep = 8) {}

  /** An all-zero array of at least `length` slots. */
  take(length: number): Uint32Array {
    const at = this.free.findIndex((array) => array.length >= length);
    if (at >= 0) return this.free.splice(at, 1)[0]!;
    return new Uint32Array(Math.ceil(length * 1.25));
  }

  /** Returns an array the caller has set back to all zero. */
  give(array: Uint32Array): void {
    if (this.free.length < this.keep) this.free.push(array);
  }
}

/** The process's pool (counts of different requests interleave, each with arrays of its own). */
export const zeroedArrays = new ZeroedArrays();
