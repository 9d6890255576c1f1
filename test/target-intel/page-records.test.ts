import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostRecord } from '../../src/core/host-record.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const SHOWN = [
  'id',
  'ip',
  'port',
  'protocol',
  'hostname',
  'observedAt',
  'dateAdded',
  'asn',
  'asName',
  'asDomain',
  'country',
  'countryCode',
  'fingerprints',
  'cves',
  'classifications',
] as const;
const shown = (record: HostRecord) => Object.fromEntries(SHOWN.map((field) => [field, record[field]]));

describe.each(engineCases())('the records of an API page on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await t.ingest([
      {
        ip: '198.51.100.1',
        port: 443,
        hostnames: ['a.example'],
        asn: 'AS64500',
        asName: 'Example',
        country: 'France',
        countryCode: 'FR',
        fingerprints: [{ cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*' }],
        cves: ['CVE-2021-41773'],
        classifications: ['c2:sliver'],
      },
      { ip: '198.51.100.2', port: 22, fingerprints: [{ vendor: 'openbsd', product: 'openssh', version: '8.9' }] },
      { ip: '2001:db8::7', port: 80, protocol: 'udp' },
    ]);
  });
  afterAll(() => t?.close());

  it('holds what the full records hold of every shown field, for the ids that exist', async () => {
    const ids = (await t.storage.hosts.scan(0, 10)).map((record) => record.id);
    expect(ids).toHaveLength(3);
    const full = await t.storage.hosts.getByIds([...ids, 999_999]);
    const page = await t.storage.hosts.getPageRecords([...ids, 999_999]);
    const byId = <T extends { id: number }>(records: T[]) => [...records].sort((a, b) => a.id - b.id);
    expect(byId(page)).toEqual(byId(full).map(shown));
    expect(page.find((record) => record.ip === '198.51.100.1')).toMatchObject({
      asn: 'AS64500',
      countryCode: 'FR',
      cves: ['CVE-2021-41773'],
      classifications: ['c2:sliver'],
    });
  });
});
