/**
 * Records matched by older rules are brought up to the current ones by a resumable walk: a stopped
 * run keeps its position, the next continues from it, and records end as a fresh ingest makes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MATCHING_RULES_VERSION } from '../../src/core/matching.js';
import { loadFeedSources } from '../../src/ingest/feeds/load.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { readRulesState, remapToCurrentRules } from '../../src/services/matching/rules-remap.js';
import { confirmingMatcher } from '../../src/services/matching/source.js';
import { deleteSetting } from '../../src/storage/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';

const T0 = Date.UTC(2026, 10, 1);
const FEDORA = 'cpe:2.3:o:fedoraproject:fedora:34:*:*:*:*:*:*:*';
const NGINX = 'cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*';
/** Fedora 34's CVE, which the rules before version 2 put on every service of a host guessed to run it. */
const OS_CVE = 'CVE-2021-44832';

describe.each(engineCases())('re-mapping stored records to the current rules ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadFeedSources(t.storage, new FeedRegistry().get('nist-nvd2')!, [fixture('nvd')]);
  });
  afterAll(() => t?.close());

  it('marks a database without records as current at once', async () => {
    // Created by this release: the migrations noted that its records will follow the current rules.
    expect(await readRulesState(t.storage)).toEqual({ version: MATCHING_RULES_VERSION });
    await deleteSetting(t.storage.db, 'matching_rules');
    const summary = await remapToCurrentRules(t.storage, confirmingMatcher(t.storage));
    expect(summary).toMatchObject({ examined: 0, complete: true });
    expect(await readRulesState(t.storage)).toEqual({ version: MATCHING_RULES_VERSION });
  });

  it('re-maps records of older rules in batches, continuing after a stop', async () => {
    await t.ingest(
      [1, 2, 3, 4, 5].map((i) => ({
        ip: `198.51.100.${i}`,
        port: 80,
        timestamp: T0,
        fingerprints: [{ cpe: NGINX }],
        osCpes: [FEDORA],
      })),
    );
    const rows = await t.storage.hosts.scanMatchInputs(0, 100);
    expect(rows).toHaveLength(5);
    expect(rows.every((row) => !row.knowledgeCves.includes(OS_CVE))).toBe(true);
    // What the older rules stored: the OS guess's CVE on the web server, and no record of the rules.
    const legacy = [...rows[0]!.knowledgeCves, OS_CVE].sort();
    await t.storage.hosts.updateKnowledgeCves(rows.map((row) => ({ id: row.id, knowledgeCves: legacy, cves: legacy })));
    await deleteSetting(t.storage.db, 'matching_rules');

    let batches = 0;
    const first = await remapToCurrentRules(t.storage, confirmingMatcher(t.storage), {
      batchSize: 2,
      stopped: () => batches >= 1,
      onProgress: () => batches++,
    });
    expect(first).toMatchObject({ examined: 2, changed: 2, afterId: rows[1]!.id, complete: false });
    expect(await readRulesState(t.storage)).toEqual({ version: MATCHING_RULES_VERSION, afterId: rows[1]!.id });

    // A restart: the next run starts after the saved position.
    const rest = await remapToCurrentRules(t.storage, confirmingMatcher(t.storage), { batchSize: 2 });
    expect(rest).toMatchObject({ examined: 3, changed: 3, complete: true });
    expect(await readRulesState(t.storage)).toEqual({ version: MATCHING_RULES_VERSION });
    await t.context.hostIndex.refresh();
    const { body } = await t.get('/v3/index/target-intel?cidr=198.51.100.0/24');
    expect(body.data).toHaveLength(5);
    for (const record of body.data) expect(record.cve).toEqual(['CVE-2013-2028', 'CVE-2021-23017']);
    const osCve = await t.get(`/v3/index/target-intel?cve=${OS_CVE}`);
    expect(osCve.body._meta.total_documents).toBe(0);

    const again = await remapToCurrentRules(t.storage, confirmingMatcher(t.storage));
    expect(again).toMatchObject({ examined: 0, complete: true });
  });
});
