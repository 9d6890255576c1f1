/**
 * GET /v3/cpe keeps the answers of lookups without an exact version: on the knowledge bench's
 * synthetic data (thousands of names per product; ranges, exact versions, ANY, platform criteria
 * with vulnerable false), a kept answer equals the one united afresh and the per-name evaluation of
 * every candidate criterion, and follows knowledge and name changes written by another connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKnowledgeModel, generateCves, generateDictionary } from '../../bench/knowledge-dataset.js';
import { cpeMatches, parseCpe } from '../../src/core/cpe.js';
import { convertNvdCve } from '../../src/ingest/advisories/nvd.js';
import type { AdvisoryItem } from '../../src/ingest/advisories/types.js';
import { loadFeedItems } from '../../src/ingest/feeds/load.js';
import { ingestCpeDictionary } from '../../src/ingest/knowledge/dictionary.js';
import { CpeNameIndex } from '../../src/search/cpe-names/index.js';
import { lookupCpe, unitedCves } from '../../src/server/routes/cpe-lookup/lookup.js';
import { type CpeLookup, parseCpeLookup } from '../../src/server/routes/cpe-lookup/query.js';
import { cvesOfNamesByEvaluation } from '../../src/services/matching/name-cves.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { oneCriterion, writeOf } from '../search/cpe-cves/random-knowledge.js';
import { engineCases } from '../support/engines.js';

const NOW = Date.UTC(2026, 10, 1);
const FEED = { name: 'nist-nvd2', description: 'Synthetic NVD', adapter: 'nist-nvd2' };
const KERNEL = 'cpe:2.3:o:linux:linux_kernel';

/** The per-name evaluation of every candidate criterion, united (the reference of CPE search's `cves`). */
async function evaluatedUnion(storage: Storage, names: CpeNameIndex, lookup: CpeLookup): Promise<string[]> {
  const cpes: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await names.search({ ...lookup.names, order: 'asc', offset, limit: 1000 });
    for (const name of page.names)
      if (!lookup.filterExtras || cpeMatches(lookup.wfn, parseCpe(name.cpe))) cpes.push(name.cpe);
    if (offset + 1000 >= page.total) break;
  }
  if (lookup.ownName !== undefined) cpes.push(lookup.ownName);
  return [...new Set((await cvesOfNamesByEvaluation(storage, cpes, lookup.isVulnerable)).flat())].sort();
}

describe.each(engineCases())('GET /v3/cpe kept answers ($name)', (engine) => {
  let storage: Storage;
  /** Another connection: what it writes, the lookups learn only from the database. */
  let writer: Storage;
  let drop: () => Promise<void>;
  let names: CpeNameIndex;

  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
    writer = await createStorage(fresh.config, { migrate: false });
    const model = buildKnowledgeModel(20_000, 5);
    async function* items(): AsyncIterable<AdvisoryItem> {
      for (const cve of generateCves(model, 3000, { seed: 6, now: NOW })) {
        const record = convertNvdCve(cve);
        yield { kind: 'record', record, sourceId: record.cveMetadata.cveId };
      }
    }
    await loadFeedItems(writer, FEED, items(), { source: 'test' });
    await ingestCpeDictionary(writer, generateDictionary(model, NOW));
    names = new CpeNameIndex(storage.knowledge);
  }, 300_000);
  afterAll(async () => {
    await writer?.close();
    await storage?.close();
    await drop?.();
  });

  const answers = async (cpe: string, isVulnerable = false) => {
    const lookup = parseCpeLookup({ cpe, isVulnerable });
    const first = await lookupCpe(storage, names, lookup);
    const again = await lookupCpe(storage, names, lookup);
    return { lookup, first, again, afresh: (await unitedCves(storage, names, lookup)).ids };
  };

  it.each([
    [KERNEL, false],
    [KERNEL, true],
    ['cpe:/o:linux:linux_kernel', false],
    ['cpe:2.3:*:linux:linux_kernel', false],
    ['cpe:2.3:a:apache:http_server', false],
    ['cpe:2.3:a:apache:http_server', true],
    ['cpe:2.3:a:apache:http_server:2.4.*', false],
    ['cpe:2.3:a:openbsd:openssh', true],
    ['cpe:2.3:a:openbsd:openssh:*:p1', false],
    ['cpe:2.3:o:microsoft:windows_10:*:*:*:*:*:*:x64', false],
    ['cpe:2.3:o:microsoft:windows_10:*:*:*:*:*:*:x64', true],
    ['cpe:2.3:a:openssl:openssl', false],
    ['cpe:2.3:*:mozilla', false],
    ['cpe:2.3:a:*:node.js', true],
  ])('%s (isVulnerable %s): kept, equal to the union afresh and to the evaluation', async (cpe, isVulnerable) => {
    const { lookup, first, again, afresh } = await answers(cpe, isVulnerable);
    expect(again).toBe(first);
    expect(first).toEqual(afresh);
    expect(first).toEqual(await evaluatedUnion(storage, names, lookup));
  });

  it('covers hundreds of names and CVEs (the comparison is not of small answers)', async () => {
    const kernel = parseCpeLookup({ cpe: KERNEL });
    expect((await names.search({ ...kernel.names, order: 'asc', offset: 0, limit: 1 })).total).toBeGreaterThan(500);
    expect((await lookupCpe(storage, names, kernel)).length).toBeGreaterThan(100);
  });

  it('follows knowledge and name changes of the product, and keeps the answer through others', async () => {
    const kernel = (isVulnerable = false) => lookupCpe(storage, names, parseCpeLookup({ cpe: KERNEL, isVulnerable }));
    const expectFresh = async (isVulnerable = false, cpe = KERNEL) => {
      const lookup = parseCpeLookup({ cpe, isVulnerable });
      const kept = await lookupCpe(storage, names, lookup);
      expect(kept).toEqual((await unitedCves(storage, names, lookup)).ids);
      return kept;
    };
    const before = await kernel();
    const beforeVulnerable = await kernel(true);

    // Another product's knowledge and names change: the kernel's answers stay kept.
    await writer.knowledge.replace([
      writeOf('CVE-2099-0001', oneCriterion('cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*')),
    ]);
    await writer.knowledge.upsertCpeNames([
      { cpe: 'cpe:2.3:a:apache:http_server:9.9.9:*:*:*:*:*:*:*', kind: 'product' },
    ]);
    expect(await kernel()).toEqual(before);

    // A CVE of every kernel version.
    await writer.knowledge.replace([writeOf('CVE-2099-0002', oneCriterion(`${KERNEL}:*:*:*:*:*:*:*:*`))]);
    expect(await expectFresh()).toContain('CVE-2099-0002');
    expect(await expectFresh(true)).toContain('CVE-2099-0002');

    // A CVE of versions below 2.0 when the product's names are all 5.x, then a name 1.5.
    const widget = 'cpe:2.3:a:acme:kept_widget';
    const widgetName = (version: string) => ({ cpe: `${widget}:${version}:*:*:*:*:*:*:*`, kind: 'product' as const });
    await writer.knowledge.upsertCpeNames(Array.from({ length: 100 }, (_, i) => widgetName(`5.${i}`)));
    await writer.knowledge.replace([writeOf('CVE-2099-0003', oneCriterion(`${widget}:*:*:*:*:*:*:*:*`, '2.0'))]);
    expect(await expectFresh(false, widget)).toEqual([]);
    await writer.knowledge.upsertCpeNames([widgetName('1.5')]);
    expect(await expectFresh(false, widget)).toEqual(['CVE-2099-0003']);

    // The kernel as a platform only (vulnerable false): in the answer, not with isVulnerable.
    const platform = oneCriterion(`${KERNEL}:*:*:*:*:*:*:*:*`);
    platform.statements[0]!.configurations[0]!.nodes[0]!.cpeMatch[0]!.vulnerable = false;
    await writer.knowledge.replace([writeOf('CVE-2099-0004', platform)]);
    expect(await expectFresh()).toContain('CVE-2099-0004');
    expect(await expectFresh(true)).not.toContain('CVE-2099-0004');

    await writer.knowledge.remove(['CVE-2099-0002', 'CVE-2099-0003', 'CVE-2099-0004']);
    expect(await expectFresh()).toEqual(before);
    expect(await expectFresh(true)).toEqual(beforeVulnerable);
  });
});
