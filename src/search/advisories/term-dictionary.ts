import { TERM, type TermKind } from '../../core/advisory/terms.js';
import { uint32Column } from '../columns.js';
import { NameArena } from '../name-arena.js';

/** Kinds whose values a query may ask for by prefix (`en` finds `en-US`; a CPE vendor's products). */
const PREFIX_KINDS = new Set<TermKind>([TERM.descriptionLang, TERM.cpe]);

/**
 * Every (kind, value) term the held records carry, as a small id (from 1), counted by the records
 * holding it so an id is freed with its last record. Values live as UTF-8 in one buffer: a
 * million distinct reference URLs cost bytes, not a million strings for the garbage collector.
 */
export class TermDictionary {
  private readonly arena = new NameArena();
  private readonly holders = uint32Column();
  private readonly free: number[] = [];
  private next = 1;
  /** Values of the prefix kinds by id, and ids by kind (few: languages, CPE vendor:product). */
  private readonly prefixValues = new Map<number, string>();
  private readonly prefixIds = new Map<TermKind, Set<number>>();

  private static key(kind: TermKind, value: string): string {
    return `${String.fromCharCode(0x40 + kind)}${value}`;
  }

  /** The id of the term, taken by one more record. */
  acquire(kind: TermKind, value: string): number {
    const key = TermDictionary.key(kind, value);
    let id = this.arena.idOf(key);
    if (id === 0) {
      id = this.free.pop() ?? this.next++;
      this.arena.set(id, key);
      if (PREFIX_KINDS.has(kind)) {
        this.prefixValues.set(id, value);
        const ids = this.prefixIds.get(kind) ?? new Set<number>();
        ids.add(id);
        this.prefixIds.set(kind, ids);
      }
    }
    this.holders.set(id, this.holders.get(id) + 1);
    return id;
  }

  /** One record less holds the term. */
  release(id: number): void {
    const holders = this.holders.get(id) - 1;
    this.holders.set(id, holders);
    if (holders > 0) return;
    this.arena.clear(id);
    if (this.prefixValues.delete(id)) for (const ids of this.prefixIds.values()) ids.delete(id);
    this.free.push(id);
  }

  /** The id of the term, 0 when no record holds it. */
  idOf(kind: TermKind, value: string): number {
    return this.arena.idOf(TermDictionary.key(kind, value));
  }

  /** Ids of the terms of a prefix kind whose value satisfies `test`. */
  idsWhere(kind: TermKind, test: (value: string) => boolean): number[] {
    const out: number[] = [];
    for (const id of this.prefixIds.get(kind) ?? []) if (test(this.prefixValues.get(id)!)) out.push(id);
    return out;
  }

  /** Ids are below this. */
  get idLimit(): number {
    return this.next;
  }

  get byteLength(): number {
    return this.arena.byteLength + this.holders.bytes + this.free.length * 8 + this.prefixValues.size * 64;
  }
}
