import { describe, expect, it } from 'vitest';
import { RecordTexts } from './record-texts.js';

/** A storage stand-in over a map of rows, recording each read and able to hold a read open. */
function rowsOf(rows: Map<number, string>) {
  const reads: number[][] = [];
  let hold: Promise<void> | undefined;
  let fail = false;
  return {
    reads,
    holdNext() {
      let release = () => {};
      hold = new Promise<void>((resolve) => (release = resolve));
      return () => release();
    },
    failNext() {
      fail = true;
    },
    async read(ids: readonly number[]) {
      reads.push([...ids]);
      const waiting = hold;
      hold = undefined;
      if (waiting !== undefined) await waiting;
      if (fail) {
        fail = false;
        throw new Error('database gone');
      }
      return new Map(ids.filter((id) => rows.has(id)).map((id) => [id, rows.get(id)!] as const));
    },
  };
}

const rows = new Map([1, 2, 3, 4, 5, 6].map((id) => [id, `{"id":${id}}`] as const));
const turn = () => new Promise((resolve) => setImmediate(resolve));
const text = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString() : undefined);

describe('RecordTexts', () => {
  it('reads only the rows it does not keep', async () => {
    const storage = rowsOf(rows);
    const texts = new RecordTexts((ids) => storage.read(ids));
    const first = await texts.get([1, 2]);
    expect([...first.keys()]).toEqual([1, 2]);
    expect([text(first.get(1)), text(first.get(2))]).toEqual(['{"id":1}', '{"id":2}']);
    expect(text((await texts.get([2, 3])).get(3))).toBe('{"id":3}');
    expect(storage.reads).toEqual([[1, 2], [3]]);
  });

  it('leaves out a row storage no longer has, and reads it again next time', async () => {
    const storage = rowsOf(rows);
    const texts = new RecordTexts((ids) => storage.read(ids));
    expect([...(await texts.get([1, 99])).keys()]).toEqual([1]);
    expect([...(await texts.get([99])).keys()]).toEqual([]);
    expect(storage.reads).toEqual([[1, 99], [99]]);
  });

  it('a request for rows being read ahead waits for that read instead of reading them again', async () => {
    const storage = rowsOf(rows);
    const texts = new RecordTexts((ids) => storage.read(ids));
    const release = storage.holdNext();
    texts.readAhead([4, 5]);
    await turn();
    const answer = texts.get([4, 5, 6]);
    release();
    expect([...(await answer).keys()].sort()).toEqual([4, 5, 6]);
    expect(storage.reads).toEqual([[4, 5], [6]]);
    await texts.get([4, 5]);
    expect(storage.reads).toHaveLength(2);
  });

  it('a failed read-ahead is dropped: the request reads the rows itself', async () => {
    const storage = rowsOf(rows);
    const texts = new RecordTexts((ids) => storage.read(ids));
    storage.failNext();
    texts.readAhead([1]);
    await turn();
    await turn();
    expect(text((await texts.get([1])).get(1))).toBe('{"id":1}');
    expect(storage.reads).toEqual([[1], [1]]);
  });

  it('keeps at most its byte budget, dropping texts not read recently', async () => {
    const storage = rowsOf(rows);
    // Each text weighs its length plus 64: room for two.
    const texts = new RecordTexts((ids) => storage.read(ids), 2 * (8 + 64));
    await texts.get([1, 2]);
    await texts.get([1]);
    await texts.get([3]);
    expect(texts.byteLength).toBe(2 * (8 + 64));
    await texts.get([1, 3]);
    expect(storage.reads).toEqual([[1, 2], [3]]);
    await texts.get([2]);
    expect(storage.reads).toEqual([[1, 2], [3], [2]]);
  });
});
