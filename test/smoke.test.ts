import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCases } from './support/engines.js';
import { startTestApp, type TestApp } from './support/app.js';

describe.each(engineCases())('smoke on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('serves an ingested record', async () => {
    const summary = await t.ingest([
      {
        ip: '192.0.2.10',
        port: 443,
        hostnames: ['www.example.com'],
        fingerprints: [{ cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*' }],
        cves: ['CVE-2021-41773'],
      },
    ]);
    expect(summary.inserted).toBe(1);
    const response = await t.get('/v3/index/target-intel?cve=CVE-2021-41773');
    expect(response.status).toBe(200);
    expect(response.body._meta.total_documents).toBe(1);
    expect(response.body.data[0]).toMatchObject({
      ip: '192.0.2.10',
      port: 443,
      vendor: ['apache'],
      version: ['2.4.49'],
    });
  });
});
