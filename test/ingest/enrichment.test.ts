import fs from 'node:fs';
import { confirmingMatcher } from '../../src/services/matching/source.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoadRefused } from '../../src/core/load-guard.js';
import { loadClassificationList } from '../../src/ingest/classifications/apply.js';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { openGeoEnricher } from '../../src/ingest/enrich/geo.js';
import { runIngest } from '../../src/ingest/pipeline.js';
import { asItems, observation, startTestApp, type TestApp } from '../support/app.js';

import { engineCases } from '../support/engines.js';
import { writeMmdb } from '../support/mmdb-writer.js';
import { fixture } from '../support/fixtures.js';

const TOR = fixture('ip-lists/tor_exit_nodes.lst');
const C2 = fixture('ip-lists/c2_tracker_ip_tags.csv');

describe.each(engineCases())('enrichment and classification lists on $name', (engine) => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp(engine);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-enrich-'));
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const classificationsOf = async (ip: string) => {
    const response = await t.get(`/v3/index/target-intel?cidr=${encodeURIComponent(ip)}`);
    expect(response.status).toBe(200);
    return response.body.data.map((record: { classifications?: string[] }) => record.classifications ?? []);
  };

  it('fills asn, as_name, as_domain, country and country_code from MaxMind databases and a CSV', async () => {
    const asnDb = path.join(dir, 'asn.mmdb');
    const countryDb = path.join(dir, 'country.mmdb');
    const domains = path.join(dir, 'as-domains.csv');
    await writeMmdb(
      asnDb,
      [
        {
          cidr: '198.51.100.0/24',
          data: { autonomous_system_number: 64496, autonomous_system_organization: 'Example Net' },
        },
        {
          cidr: '2001:db8::/32',
          data: { autonomous_system_number: 64497, autonomous_system_organization: 'Example Six' },
        },
      ],
      { databaseType: 'GeoLite2-ASN' },
    );
    await writeMmdb(
      countryDb,
      [{ cidr: '198.51.100.0/24', data: { country: { iso_code: 'DE', names: { en: 'Germany' } } } }],
      { databaseType: 'GeoLite2-Country' },
    );
    fs.writeFileSync(domains, 'asn,domain\nAS64496,example.net\n');
    const geo = await openGeoEnricher({ asnMmdb: asnDb, countryMmdb: countryDb, asDomainCsv: domains });
    const classifier = new ClassificationResolver([]);
    await runIngest(
      t.storage,
      asItems([
        observation({
          ip: '198.51.100.5',
          port: 80,
          fingerprints: [{ vendor: 'f5', product: 'nginx', version: '1.24.0' }],
        }),
        observation({ ip: '2001:db8::5', port: 22 }),
        observation({ ip: '192.0.2.200', port: 25, asn: 'AS64511', countryCode: 'FR', country: 'France' }),
      ]),
      { geo, classifier, matcher: confirmingMatcher(t.storage) },
      { retentionDays: 0 },
    );
    geo.close();
    await t.context.hostIndex.refresh();

    const v4 = (await t.get('/v3/index/target-intel?cidr=198.51.100.5')).body.data[0];
    expect(v4).toMatchObject({
      asn: 'AS64496',
      as_name: 'Example Net',
      as_domain: 'example.net',
      country: 'Germany',
      country_code: 'DE',
    });
    const v6 = (await t.get('/v3/index/target-intel?cidr=2001:db8::5')).body.data[0];
    expect(v6).toMatchObject({ asn: 'AS64497', as_name: 'Example Six' });
    expect(v6.country).toBeUndefined();
    expect(v6.as_domain).toBeUndefined();
    // Unknown to the databases: the source's own values stay.
    const fromSource = (await t.get('/v3/index/target-intel?cidr=192.0.2.200')).body.data[0];
    expect(fromSource).toMatchObject({ asn: 'AS64511', country_code: 'FR', country: 'France' });

    expect((await t.get('/v3/index/target-intel?asn=AS64496')).body._meta.total_documents).toBe(1);
    expect((await t.get('/v3/index/target-intel?country=germany')).body._meta.total_documents).toBe(1);
    expect((await t.get('/v3/index/target-intel?country_code=de')).body._meta.total_documents).toBe(1);
  });

  it('classifies records from the Tor exit list and the C2-Tracker list, new and existing', async () => {
    await t.ingest([
      observation({
        ip: '198.18.132.233',
        port: 443,
        fingerprints: [{ vendor: 'f5', product: 'nginx', version: '1.24.0' }],
      }),
      observation({ ip: '198.19.222.26', port: 8443 }),
    ]);
    const tor = await loadClassificationList(t.storage, TOR, { as: 'proxy:tor' });
    expect(tor).toMatchObject({ entries: 600, rejected: 0, recordsChanged: 1 });
    const c2 = await loadClassificationList(t.storage, C2, { ipColumn: 'ip', tagColumn: 'tag', as: 'c2' });
    expect(c2).toMatchObject({ entries: 507, rejected: 0, recordsChanged: 1 });
    await t.context.hostIndex.refresh();

    expect(await classificationsOf('198.18.132.233')).toEqual([['proxy:tor']]);
    expect(await classificationsOf('198.19.222.26')).toEqual([['c2:ares_rat']]);

    // A record ingested after the lists were loaded is classified at ingest.
    await t.ingest([observation({ ip: '198.18.153.193', port: 9001 })]);
    expect(await classificationsOf('198.18.153.193')).toEqual([['proxy:tor']]);

    const c2Only = await t.get('/v3/index/target-intel?classifications=c2');
    expect(c2Only.body.data.map((r: { ip: string }) => r.ip)).toEqual(['198.19.222.26']);
    const either = await t.get('/v3/index/target-intel?classifications=c2:ares_rat,proxy:tor&sort=ip&order=asc');
    expect(either.body.data.map((r: { ip: string }) => r.ip)).toEqual([
      '198.18.132.233',
      '198.18.153.193',
      '198.19.222.26',
    ]);
  });

  it('re-applies a replaced list: addresses it no longer has lose the classification', async () => {
    const smaller = path.join(dir, 'tor-smaller.lst');
    fs.writeFileSync(smaller, '198.18.153.193\n');
    const summary = await loadClassificationList(t.storage, smaller, { as: 'proxy:tor', name: 'tor_exit_nodes.lst' });
    expect(summary.entries).toBe(1);
    await t.context.hostIndex.refresh();
    expect(await classificationsOf('198.18.132.233')).toEqual([[]]);
    expect(await classificationsOf('198.18.153.193')).toEqual([['proxy:tor']]);
  });

  it('an empty or mostly rejected file replaces no list (the load guard); --allow-empty / maxRejected override', async () => {
    const name = 'tor_exit_nodes.lst';
    const entryCount = async () =>
      (await t.storage.classificationLists.list()).find((list) => list.name === name)?.entryCount;
    expect(await entryCount()).toBe(1);
    const empty = path.join(dir, 'empty.lst');
    fs.writeFileSync(empty, '# nothing listed today\n\n');
    await expect(loadClassificationList(t.storage, empty, { as: 'proxy:tor', name })).rejects.toThrow(
      new LoadRefused(
        `classification list "${name}" not replaced: nothing was read from ${empty}; it keeps its 1 entry`,
        { allowEmpty: true },
      ),
    );
    const garbage = path.join(dir, 'mostly-garbage.lst');
    fs.writeFileSync(garbage, `198.18.153.193\n${'not an address\n'.repeat(3)}`);
    const rejections: string[] = [];
    await expect(
      loadClassificationList(t.storage, garbage, {
        as: 'proxy:tor',
        name,
        onRejected: (r) => rejections.push(`${r.line}: ${r.reason}`),
      }),
    ).rejects.toMatchObject({
      code: 'load_refused',
      message: expect.stringContaining('3 of 4 lines read from'),
    });
    expect(rejections).toHaveLength(3);
    await t.context.hostIndex.refresh();
    expect(await entryCount()).toBe(1);
    expect(await classificationsOf('198.18.153.193')).toEqual([['proxy:tor']]);
    await expect(
      loadClassificationList(t.storage, garbage, { as: 'proxy:tor', name, guard: { maxRejected: 0.75 } }),
    ).resolves.toMatchObject({ entries: 1, rejected: 3 });
    await expect(
      loadClassificationList(t.storage, empty, { as: 'proxy:tor', name, guard: { allowEmpty: true } }),
    ).resolves.toMatchObject({ entries: 0, recordsChanged: 1 });
    await t.context.hostIndex.refresh();
    expect(await classificationsOf('198.18.153.193')).toEqual([[]]);
  });

  it('classifies honeypot software from fingerprint rules at ingest', async () => {
    await t.ingest([observation({ ip: '192.0.2.99', port: 2222, fingerprints: [{ product: 'Cowrie SSH honeypot' }] })]);
    expect(await classificationsOf('192.0.2.99')).toEqual([['honeypot:cowrie']]);
  });
});
