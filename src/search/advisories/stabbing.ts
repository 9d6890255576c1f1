/**
 * Items whose answer is a set of intervals on the sorted boundaries of one version class, and a
 * query "which items hold at V". Positions are doubled: boundary i sits at 2i+1, the versions
 * strictly between boundaries i-1 and i at 2i. Each interval is stored in the O(log n) nodes of a
 * segment tree that cover it, so V costs one binary search and the union of one root-to-leaf path.
 */
import type { Order } from '../../core/version/comparison.js';
import { versionSortKey } from '../../core/version/sort-key.js';
import { RoaringBitmap32, type Bitmap } from '../bitmap.js';
import { orderIn, type VersionClass } from './version-classes.js';

/** Node contents this large are kept as bitmaps; smaller ones as plain id arrays. */
const BITMAP_FROM = 256;

const sign = (n: number): Order => (n < 0 ? -1 : n > 0 ? 1 : 0);

export interface StabbingInput {
  item: number;
  boundaries: string[];
  /** The item's answer for V, given V's order against each of its boundaries. */
  holds: (orderOf: (text: string) => Order) => boolean;
}

export class SortedBoundaries {
  /** One representative text per distinct boundary, ascending. */
  readonly texts: string[] = [];
  /** For the vendor class, each text's byte-sortable key (sort-key.ts). */
  private keys: string[] | undefined;
  private readonly indexOfText = new Map<string, number>();

  private constructor(readonly cls: VersionClass) {}

  /**
   * The distinct boundaries of texts sorted in the class order; `keyOf` gives the vendor class's
   * sort keys, `tick` lets a long list yield.
   */
  static async of(
    cls: VersionClass,
    sorted: string[],
    keyOf: ((text: string) => string) | undefined,
    tick: () => Promise<void>,
  ): Promise<SortedBoundaries> {
    const boundaries = new SortedBoundaries(cls);
    const keys: string[] = [];
    for (const text of sorted) {
      const last = boundaries.texts[boundaries.texts.length - 1];
      const key = keyOf?.(text);
      const distinct =
        last === undefined || (key !== undefined ? key !== keys[keys.length - 1] : orderIn(cls, last, text) !== 0);
      if (distinct) {
        boundaries.texts.push(text);
        if (key !== undefined) keys.push(key);
      }
      boundaries.indexOfText.set(text, boundaries.texts.length - 1);
      await tick();
    }
    if (keyOf) boundaries.keys = keys;
    return boundaries;
  }

  get positions(): number {
    return 2 * this.texts.length + 1;
  }

  index(text: string): number {
    return this.indexOfText.get(text)!;
  }

  /** The doubled position of a version exact in the class. */
  position(version: string): number {
    const key = this.keys ? versionSortKey(version)! : undefined;
    const order = (i: number): Order => {
      if (key !== undefined) {
        const other = this.keys![i]!;
        return key < other ? -1 : key > other ? 1 : 0;
      }
      return orderIn(this.cls, version, this.texts[i]!);
    };
    let low = 0;
    let high = this.texts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const o = order(mid);
      if (o === 0) return 2 * mid + 1;
      if (o > 0) low = mid + 1;
      else high = mid;
    }
    return 2 * low;
  }
}

export class Stabbing {
  /** Node lists while items are added; frozen into `offsets`/`items`/`bitmaps`. */
  private nodes: Array<number[] | undefined> = [];
  /** Frozen: node n's short list is items[offsets[n]..offsets[n + 1]), its long one bitmaps.get(n). */
  private offsets: Uint32Array = new Uint32Array(1);
  private items: Uint32Array = new Uint32Array(0);
  private readonly bitmaps = new Map<number, Bitmap>();

  constructor(readonly boundaries: SortedBoundaries) {}

  /** Adds an item: its answer is computed once per stretch of positions its own boundaries delimit. */
  add({ item, boundaries, holds }: StabbingInput): void {
    const last = this.boundaries.positions - 1;
    const points = [...new Set(boundaries.map((text) => 2 * this.boundaries.index(text) + 1))].sort((a, b) => a - b);
    const segments: Array<[number, number]> = [];
    let start = 0;
    for (const point of points) {
      if (point > start) segments.push([start, point - 1]);
      segments.push([point, point]);
      start = point + 1;
    }
    if (start <= last) segments.push([start, last]);
    let open: number | undefined;
    for (const [from, to] of segments) {
      const at = from;
      const inside = holds((text) => sign(at - (2 * this.boundaries.index(text) + 1)));
      if (inside && open === undefined) open = from;
      if (!inside && open !== undefined) {
        this.insert(1, 0, last, open, from - 1, item);
        open = undefined;
      }
      if (inside && to === last) this.insert(1, 0, last, open!, last, item);
    }
  }

  private insert(node: number, left: number, right: number, from: number, to: number, item: number): void {
    if (from <= left && right <= to) {
      let list = this.nodes[node];
      if (!list) this.nodes[node] = list = [];
      list.push(item);
      return;
    }
    const mid = (left + right) >>> 1;
    if (from <= mid) this.insert(2 * node, left, mid, from, to, item);
    if (to > mid) this.insert(2 * node + 1, mid + 1, right, from, to, item);
  }

  /**
   * Packs the node lists once every item is added — short ones into one shared array, long ones
   * into bitmaps — so a structure is a handful of heap objects, not one per node; `tick` lets a
   * long packing yield.
   */
  async freeze(tick: () => Promise<void>): Promise<void> {
    const nodes = this.nodes;
    const offsets = new Uint32Array(nodes.length + 1);
    let total = 0;
    for (let i = 0; i < nodes.length; i++) {
      offsets[i] = total;
      const list = nodes[i];
      if (list && list.length < BITMAP_FROM) total += list.length;
    }
    offsets[nodes.length] = total;
    const items = new Uint32Array(total);
    for (let i = 0; i < nodes.length; i++) {
      const list = nodes[i];
      if (!list) continue;
      if (list.length >= BITMAP_FROM) this.bitmaps.set(i, new RoaringBitmap32(list));
      else items.set(list, offsets[i]!);
      await tick();
    }
    this.offsets = offsets;
    this.items = items;
    this.nodes = [];
  }

  /** Adds to `out` every item holding at the doubled position. */
  stab(position: number, out: Bitmap): void {
    const { offsets, items, bitmaps } = this;
    let node = 1;
    let left = 0;
    let right = this.boundaries.positions - 1;
    for (;;) {
      if (node < offsets.length - 1) {
        const from = offsets[node]!;
        const to = offsets[node + 1]!;
        if (to > from) out.addMany(items.subarray(from, to));
        else if (bitmaps.size > 0) {
          const bitmap = bitmaps.get(node);
          if (bitmap) out.orInPlace(bitmap);
        }
      }
      if (left === right) return;
      const mid = (left + right) >>> 1;
      if (position <= mid) {
        node = 2 * node;
        right = mid;
      } else {
        node = 2 * node + 1;
        left = mid + 1;
      }
    }
  }
}
