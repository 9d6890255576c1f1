import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmingMatcher } from '../../src/services/matching/source.js';
import type { ReadItem } from '../../src/core/observation.js';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { runIngest } from '../../src/ingest/pipeline.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { observation } from '../support/app.js';

describe('ingest pipeline and the event loop', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await createStorage({ engine: 'sqlite', file: ':memory:' });
  });
  afterAll(async () => {
    await storage?.close();
  });

  it('lets I/O callbacks run while it prepares input that never waits (database replies are not held up)', async () => {
    const total = 5000;
    let read = 0;
    async function* items(): AsyncIterable<ReadItem> {
      for (let i = 0; i < total; i++) {
        read++;
        const ip = `198.51.${Math.floor(i / 250)}.${i % 250}`;
        yield { kind: 'observation', observation: observation({ ip, port: 443 }), at: { file: 'test', line: i + 1 } };
      }
    }
    let readWhenCallbackRan: number | undefined;
    setImmediate(() => (readWhenCallbackRan = read));
    const summary = await runIngest(
      storage,
      items(),
      { classifier: new ClassificationResolver([]), matcher: confirmingMatcher(storage) },
      { retentionDays: 0, batchSize: 500 },
    );
    expect(summary.inserted).toBe(total);
    // Everything here is synchronous underneath (an in-memory database, a generator): only the
    // pipeline's own pauses let the callback run before the end.
    expect(readWhenCallbackRan).toBeLessThan(total);
  });
});
