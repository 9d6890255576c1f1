/**
 * Per-record lists of term ids, kept so a record can be removed from every posting it is in.
 * Stored in one pooled array (one object for millions of records); replaced lists leave holes
 * that a compaction reclaims once they are half the pool.
 */
export class TermLists {
  private pool = new Uint32Array(1 << 16);
  private used = 0;
  private wasted = 0;
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);

  get(id: number): Uint32Array {
    if (id >= this.lengths.length) return new Uint32Array(0);
    const offset = this.offsets[id]!;
    return this.pool.subarray(offset, offset + this.lengths[id]!);
  }

  set(id: number, terms: number[]): void {
    this.clear(id);
    this.ensureRecord(id);
    this.ensurePool(terms.length);
    this.pool.set(terms, this.used);
    this.offsets[id] = this.used;
    this.lengths[id] = terms.length;
    this.used += terms.length;
  }

  clear(id: number): void {
    if (id < this.lengths.length && this.lengths[id]! > 0) {
      this.wasted += this.lengths[id]!;
      this.lengths[id] = 0;
      if (this.wasted > 1 << 20 && this.wasted * 2 > this.used) this.compact();
    }
  }

  get bytes(): number {
    return this.pool.byteLength + this.offsets.byteLength + this.lengths.byteLength;
  }

  private ensureRecord(id: number): void {
    if (id < this.lengths.length) return;
    let length = this.lengths.length;
    while (length <= id) length *= 2;
    const offsets = new Float64Array(length);
    offsets.set(this.offsets);
    const lengths = new Uint32Array(length);
    lengths.set(this.lengths);
    this.offsets = offsets;
    this.lengths = lengths;
  }

  private ensurePool(extra: number): void {
    if (this.used + extra <= this.pool.length) return;
    let length = this.pool.length;
    while (length < this.used + extra) length *= 2;
    const pool = new Uint32Array(length);
    pool.set(this.pool.subarray(0, this.used));
    this.pool = pool;
  }

  private compact(): void {
    const pool = new Uint32Array(Math.max(1 << 16, (this.used - this.wasted) * 2));
    let used = 0;
    for (let id = 0; id < this.lengths.length; id++) {
      const length = this.lengths[id]!;
      if (length === 0) continue;
      const offset = this.offsets[id]!;
      pool.set(this.pool.subarray(offset, offset + length), used);
      this.offsets[id] = used;
      used += length;
    }
    this.pool = pool;
    this.used = used;
    this.wasted = 0;
  }
}
