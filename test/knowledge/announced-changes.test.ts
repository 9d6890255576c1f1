/**
 * On PostgreSQL the CPE name index and the CPE → CVE index read storage before a query only after
 * a commit that changed names or criteria was announced (LISTEN), and still see every change.
 */
import { describe, expect, it } from 'vitest';
import { CpeCveIndex } from '../../src/search/cpe-cves/cpe-cve-index.js';
import { CpeNameIndex } from '../../src/search/cpe-names/index.js';
import { createStorage, type KnowledgeRepository } from '../../src/storage/index.js';
import { oneCriterion, writeOf } from '../search/cpe-cves/random-knowledge.js';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';

const NAME = 'cpe:2.3:a:acme:widget:1.2.0:*:*:*:*:*:*:*';

const vulnerableBelow = (end: string) => oneCriterion('cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*', end);

/** Counts the reads of the methods a query would call to catch up. */
function countReads(knowledge: KnowledgeRepository, methods: Array<'latestCpeNameChange' | 'productChangesSince'>) {
  const counter = { reads: 0 };
  for (const method of methods) {
    const original = knowledge[method].bind(knowledge) as (...args: unknown[]) => unknown;
    (knowledge as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      counter.reads++;
      return original(...args);
    };
  }
  return counter;
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 100 && !done(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe.runIf(POSTGRES_URL)('knowledge indexes listening for announced changes (postgres)', () => {
  it('read nothing while no change was announced, and see a change once it is', async () => {
    const fresh = await postgresCase.fresh();
    const reader = await createStorage(fresh.config);
    const writer = await createStorage(fresh.config, { migrate: false });
    const names = new CpeNameIndex(reader.knowledge);
    const cves = new CpeCveIndex(reader.knowledge);
    const fail = (error: unknown) => {
      throw error;
    };
    try {
      await writer.knowledge.upsertCpeNames([{ cpe: NAME, kind: 'product' }]);
      await writer.knowledge.replace([writeOf('CVE-2024-0001', vulnerableBelow('2.0'))]);
      await names.build();
      await names.listen(fail);
      await cves.listen(fail);
      expect((await names.search({ vendor: 'acme', order: 'asc', offset: 0, limit: 10 })).total).toBe(1);
      expect(await cves.cvesOfNames([NAME], false)).toEqual([['CVE-2024-0001']]);

      const counted = countReads(reader.knowledge, ['latestCpeNameChange', 'productChangesSince']);
      for (let i = 0; i < 5; i++) {
        await names.search({ vendor: 'acme', order: 'asc', offset: 0, limit: 10 });
        await cves.cvesOfNames([NAME], false);
      }
      expect(counted.reads).toBe(0);

      await writer.knowledge.upsertCpeNames([{ cpe: 'cpe:2.3:a:acme:widget:2.0.0:*:*:*:*:*:*:*', kind: 'product' }]);
      await writer.knowledge.replace([writeOf('CVE-2024-0002', vulnerableBelow('1.1'))]);
      const total = await eventually(
        async () => (await names.search({ vendor: 'acme', order: 'asc', offset: 0, limit: 10 })).total,
        (value) => value === 2,
      );
      expect(total).toBe(2);
      const listed = await eventually(
        () => cves.cvesOfNames([NAME], false),
        (value) => value[0]?.length === 1 && value[0][0] === 'CVE-2024-0001',
      );
      // CVE-2024-0002 ends below 1.2.0; CVE-2024-0001 still covers it.
      expect(listed).toEqual([['CVE-2024-0001']]);
      await writer.knowledge.replace([writeOf('CVE-2024-0002', vulnerableBelow('3.0'))]);
      const changed = await eventually(
        () => cves.cvesOfNames([NAME], false),
        (value) => value[0]?.length === 2,
      );
      expect(changed).toEqual([['CVE-2024-0001', 'CVE-2024-0002']]);
      expect(counted.reads).toBeGreaterThan(0);
    } finally {
      await names.stop();
      await cves.stop();
      await reader.close();
      await writer.close();
      await fresh.drop();
    }
  });
});
