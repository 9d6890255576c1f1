/**
 * The product catalog behind host matching (whether a product has criteria, which row keys to
 * read, whether to prepare it) follows every knowledge write after it was read: a product gaining
 * its first criteria, a wildcard row naming it, losing all its rows, from another storage handle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpeCveIndex } from '../../../src/search/cpe-cves/cpe-cve-index.js';
import { createStorage, type Storage } from '../../../src/storage/index.js';
import { engineCases } from '../../support/engines.js';
import { oneCriterion, writeOf } from './random-knowledge.js';

const WIDGET = { part: 'a', vendor: 'acme', product: 'widget' };
const GADGET = { part: 'a', vendor: 'beta', product: 'gadget' };
const NAME = 'cpe:2.3:a:acme:widget:1.2:*:*:*:*:*:*:*';

describe.each(engineCases())('product catalog ($name)', (engine) => {
  let reader: Storage;
  let writer: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    reader = await createStorage(fresh.config);
    writer = await createStorage(fresh.config, { migrate: false });
  });
  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await drop?.();
  });

  it('sees products gain and lose criteria after it was read', async () => {
    await writer.knowledge.replace([
      writeOf('CVE-2024-0001', oneCriterion('cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*', '2.0')),
    ]);
    const index = new CpeCveIndex(reader.knowledge);
    expect(await index.hasCriteria(WIDGET)).toBe(true);
    expect(await index.hasCriteria(GADGET)).toBe(false);
    expect(await index.cvesOfNames([NAME], true)).toEqual([['CVE-2024-0001']]);

    // A row naming any vendor's gadget, and then one naming every product of acme.
    await writer.knowledge.replace([writeOf('CVE-2024-0002', oneCriterion('cpe:2.3:a:*:gadget:*:*:*:*:*:*:*:*'))]);
    expect(await index.hasCriteria(GADGET)).toBe(true);
    expect(await index.hasCriteria({ part: 'a', vendor: 'gamma', product: 'gadget' })).toBe(true);
    await writer.knowledge.replace([writeOf('CVE-2024-0003', oneCriterion('cpe:2.3:a:acme:*:*:*:*:*:*:*:*:*'))]);
    expect(await index.cvesOfNames([NAME], true)).toEqual([['CVE-2024-0001', 'CVE-2024-0003']]);

    await writer.knowledge.remove(['CVE-2024-0002']);
    expect(await index.hasCriteria(GADGET)).toBe(false);
    await writer.knowledge.remove(['CVE-2024-0001', 'CVE-2024-0003']);
    expect(await index.hasCriteria(WIDGET)).toBe(false);
    expect(await index.cvesOfNames([NAME], true)).toEqual([[]]);
  });

  it('reads the change log only for a generation it has not seen', async () => {
    const index = new CpeCveIndex(reader.knowledge);
    let reads = 0;
    const original = reader.knowledge.productChangesSince.bind(reader.knowledge);
    reader.knowledge.productChangesSince = (...args) => {
      reads++;
      return original(...args);
    };
    try {
      await writer.knowledge.replace([writeOf('CVE-2024-0004', oneCriterion('cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*'))]);
      const seen = await reader.knowledge.generation();
      expect(await index.hasCriteria(WIDGET, seen)).toBe(true);
      expect(reads).toBe(1);
      expect(await index.hasCriteria(WIDGET, seen)).toBe(true);
      expect(await index.hasCriteria(GADGET, seen - 1)).toBe(false);
      expect(reads).toBe(1);
      await writer.knowledge.remove(['CVE-2024-0004']);
      expect(await index.hasCriteria(WIDGET, await reader.knowledge.generation())).toBe(false);
      expect(reads).toBe(2);
    } finally {
      reader.knowledge.productChangesSince = original;
    }
  });
});
