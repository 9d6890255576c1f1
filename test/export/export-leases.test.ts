/** Export leases: one holder per token until released or run out, renewed only by its holder. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { engineCases } from '../support/engines.js';

describe.each(engineCases())('export leases ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  it('follows the lease rules step by step', async () => {
    const leases = storage.exportLeases;
    // [action, token, holder, at (ms), expected]
    const steps: Array<[string, number, string, number, boolean]> = [
      ['claim', 1, 'p1', 1_000, true],
      ['claim', 1, 'p2', 1_500, false], // held until 61,000
      ['claim', 1, 'p1', 1_500, false], // one export per token, even from the same holder
      ['claim', 2, 'p2', 1_500, true], // another token is free
      ['renew', 1, 'p2', 2_000, false], // only the holder renews
      ['renew', 1, 'p1', 30_000, true], // now held until 90,000
      ['claim', 1, 'p2', 70_000, false],
      ['claim', 1, 'p2', 90_001, true], // ran out: taken over
      ['renew', 1, 'p1', 90_002, false], // the old holder lost it
      ['release', 1, 'p1', 90_003, true], // a non-holder's release changes nothing
      ['claim', 1, 'p3', 90_004, false],
      ['release', 1, 'p2', 90_005, true],
      ['claim', 1, 'p3', 90_006, true],
    ];
    for (const [action, token, holder, at, expected] of steps) {
      const label = `${action} token ${token} by ${holder} at ${at}`;
      if (action === 'claim') expect(await leases.claim(token, holder, 60_000, at), label).toBe(expected);
      else if (action === 'renew') expect(await leases.renew(token, holder, 60_000, at), label).toBe(expected);
      else await leases.release(token, holder);
    }
  });
});
