import { LruCache } from '../../core/lru.js';

/** Stored record texts by row id, as storage reads them (a purged row is absent). */
export type ReadRecordTexts = (rowIds: readonly number[]) => Promise<Map<number, string>>;

/** Bytes of record text kept by default: about 40,000 NVD-sized records. */
export const RECORD_TEXT_CACHE_BYTES = 64 * 2 ** 20;

const utf8 = new TextEncoder();

/**
 * The stored JSON of the records pages show, as UTF-8 bytes a response copies without encoding
 * them again, the recently served ones kept in memory: a row's text never changes and row ids
 * are never reused, so a kept text is never stale. A cursor walk's next page is read ahead while
 * the client handles the current one.
 */
export class RecordTexts {
  private readonly kept: LruCache<number, Uint8Array>;
  /** Reads under way, by each row id they cover, so a request never reads a row a read-ahead is reading. */
  private readonly reading = new Map<number, Promise<Map<number, Uint8Array>>>();

  constructor(
    private readonly read: ReadRecordTexts,
    maxBytes = RECORD_TEXT_CACHE_BYTES,
  ) {
    this.kept = new LruCache(maxBytes, (bytes) => bytes.byteLength + 64);
  }

  /** The texts of `rowIds` (a row purged from storage and not kept is absent). */
  async get(rowIds: readonly number[]): Promise<Map<number, Uint8Array>> {
    const texts = new Map<number, Uint8Array>();
    const missing: number[] = [];
    const reads = new Set<Promise<Map<number, Uint8Array>>>();
    for (const id of rowIds) {
      const text = this.kept.get(id);
      if (text !== undefined) texts.set(id, text);
      else {
        const read = this.reading.get(id);
        if (read === undefined) missing.push(id);
        else reads.add(read);
      }
    }
    if (missing.length > 0) reads.add(this.readAndKeep(missing));
    for (const read of reads) {
      for (const [id, text] of await read) texts.set(id, text);
    }
    return texts;
  }

  /** Reads `rowIds` not yet kept after the current turn of the event loop, so a response is written first. */
  readAhead(rowIds: readonly number[]): void {
    setImmediate(() => {
      const missing = rowIds.filter((id) => !this.kept.has(id) && !this.reading.has(id));
      // A failed read-ahead costs nothing: the request that needs the rows reads them again.
      if (missing.length > 0) this.readAndKeep(missing).catch(() => {});
    });
  }

  /** Bytes of text kept (estimated). */
  get byteLength(): number {
    return this.kept.stats.weight;
  }

  private readAndKeep(rowIds: number[]): Promise<Map<number, Uint8Array>> {
    const read = this.read(rowIds).then((texts) => {
      const encoded = new Map<number, Uint8Array>();
      for (const [id, text] of texts) {
        const bytes = utf8.encode(text);
        encoded.set(id, bytes);
        this.kept.set(id, bytes);
      }
      return encoded;
    });
    for (const id of rowIds) this.reading.set(id, read);
    const done = () => {
      for (const id of rowIds) if (this.reading.get(id) === read) this.reading.delete(id);
    };
    read.then(done, done);
    return read;
  }
}
