import type { TermGroups } from '../term-groups.js';
import type { FacetTerms } from './facet-terms.js';

/** Garbage entries from which the runs are dropped and made again as groups are next counted. */
const GARBAGE_LIMIT = 1 << 20;

/**
 * Each term group's facet values — the counted term and its field, once per distinct value — as
 * one run of two contiguous arrays, made the first time a count reaches the group and again when
 * its id is reused for other terms. Counting reads every term of every group the matches hold,
 * and reading them through each group's own term array and per-term tables was most of a
 * count's time (random reads, several per term).
 */
export class GroupFacetValues {
  private termIdsOf = new Uint32Array(1 << 16);
  private fieldsOf = new Uint8Array(1 << 16);
  private used = 0;
  private garbage = 0;
  private dropped = 0;
  private starts = new Uint32Array(1024);
  private ends = new Uint32Array(1024);
  /** The generation of the group each run was made for (0: none): a reused group id has another. */
  private madeFor = new Float64Array(1024);
  /** Per group, the fields (bit i: FACET_FIELDS[i]) it holds more than one value of. */
  private several = new Uint16Array(1024);

  constructor(
    private readonly groups: TermGroups,
    private readonly terms: FacetTerms,
  ) {}

  /** Per entry, the term counted for a value. Read again after prepare(): it may grow. */
  get termIds(): Uint32Array {
    return this.termIdsOf;
  }

  /** Per entry, the value's field (its index in FACET_FIELDS). Read again after prepare(). */
  get fields(): Uint8Array {
    return this.fieldsOf;
  }

  get bytes(): number {
    return (
      this.termIdsOf.byteLength +
      this.fieldsOf.byteLength +
      this.starts.byteLength +
      this.ends.byteLength +
      this.madeFor.byteLength
    );
  }

  startOf(group: number): number {
    return this.starts[group]!;
  }

  endOf(group: number): number {
    return this.ends[group]!;
  }

  /** The fields the group holds several values of, as bits (after prepare). */
  severalOf(group: number): number {
    return this.several[group]!;
  }

  /** Counts the times every run was dropped: runs prepared before a change of it are gone. */
  get drops(): number {
    return this.dropped;
  }

  /** Makes the group's run if it has none for its current terms. */
  prepare(group: number): void {
    const made = this.madeFor[group];
    if (made === undefined || made === 0 || made !== this.groups.generationOf(group)) this.make(group);
  }

  private make(group: number): void {
    const current = this.groups.termsOf(group);
    if ((this.madeFor[group] ?? 0) !== 0) this.garbage += this.ends[group]! - this.starts[group]!;
    if (this.garbage > GARBAGE_LIMIT && this.garbage * 2 > this.used) this.forgetAll();
    this.ensureRoom(group, current.length);
    const start = this.used;
    let end = start;
    let held = 0;
    let several = 0;
    for (let i = 0; i < current.length; i++) {
      const field = this.terms.fieldOf(current[i]!);
      if (field < 0) continue;
      const counted = this.terms.canonicalOf(current[i]!);
      // Several fingerprint terms may name one CPE: it is one value.
      if (this.holds(start, end, counted)) continue;
      this.termIdsOf[end] = counted;
      this.fieldsOf[end] = field;
      end++;
      several |= held & (1 << field);
      held |= 1 << field;
    }
    this.several[group] = several;
    this.used = end;
    this.starts[group] = start;
    this.ends[group] = end;
    this.madeFor[group] = this.groups.generationOf(group);
  }

  private holds(start: number, end: number, termId: number): boolean {
    for (let at = start; at < end; at++) if (this.termIdsOf[at] === termId) return true;
    return false;
  }

  private forgetAll(): void {
    this.dropped++;
    this.used = 0;
    this.garbage = 0;
    this.madeFor.fill(0);
  }

  private ensureRoom(group: number, entries: number): void {
    if (group >= this.starts.length) {
      const length = Math.max(group + 1, this.starts.length * 2);
      this.starts = grown(this.starts, new Uint32Array(length));
      this.ends = grown(this.ends, new Uint32Array(length));
      this.madeFor = grown(this.madeFor, new Float64Array(length));
      this.several = grown(this.several, new Uint16Array(length));
    }
    if (this.used + entries > this.termIdsOf.length) {
      const length = Math.max(this.used + entries, this.termIdsOf.length * 2);
      this.termIdsOf = grown(this.termIdsOf, new Uint32Array(length));
      this.fieldsOf = grown(this.fieldsOf, new Uint8Array(length));
    }
  }
}

function grown<T extends Uint32Array | Uint16Array | Uint8Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
