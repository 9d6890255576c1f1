/**
 * Counting arrays reused across requests: a facet request over a large index needs arrays of a few
 * MB (one slot per term or term group), and allocating memory per request sets V8 off into
 * collections of a heap that holds a whole index.
 */
export class ArrayPool {
  private readonly free: Uint32Array[] = [];

  constructor(private readonly keep = 8) {}

  /** The smallest array kept of at least `length` slots, or a new one (all zero when taken from zeroedArrays). */
  take(length: number): Uint32Array {
    let at = -1;
    for (let i = 0; i < this.free.length; i++) {
      if (this.free[i]!.length >= length && (at < 0 || this.free[i]!.length < this.free[at]!.length)) at = i;
    }
    if (at >= 0) return this.free.splice(at, 1)[0]!;
    return new Uint32Array(Math.ceil(length * 1.25));
  }

  give(array: Uint32Array): void {
    if (this.free.length < this.keep) this.free.push(array);
  }
}

/** Arrays given back all zero (counts of different requests interleave, each with arrays of its own). */
export const zeroedArrays = new ArrayPool();
/** Arrays whose slots are written before they are read: lists of ids, with their length kept beside. */
export const scratchArrays = new ArrayPool();
