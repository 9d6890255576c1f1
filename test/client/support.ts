/**
 * A listening Vulnscope server for the SDK and the client commands: target-intel records, two
 * advisory feeds, CPE knowledge, backups of a feed and of target-intel, and tokens for the 401,
 * 402 and 429 paths.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseFeedEntitlement } from '../../src/core/entitlements.js';
import type { Observation } from '../../src/core/observation.js';
import { writeBackup } from '../../src/backup/service.js';
import { feedSource, targetIntelSource } from '../../src/backup/sources.js';
import { BackupStore } from '../../src/backup/store.js';
import { loadFeedSources } from '../../src/ingest/feeds/load.js';
import { ingestCpeDictionary, readCpeDictionarySources } from '../../src/ingest/knowledge/dictionary.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { advisory, loadRecords } from '../advisories/support.js';
import { startBackupApp, type BackupTestApp } from '../backup/support.js';
import type { EngineCase } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';

/** Target-intel records served: every third has a CVE, every fifth is on port 443. */
export const HOSTS = 60;
export const WITH_CVE = 20;
export const ON_443 = 12;
/** Feed `alpha` holds ALPHA records, `beta` one. */
export const ALPHA = 25;

export function host(i: number): Partial<Observation> & { ip: string; port: number } {
  return {
    ip: `198.51.100.${i + 1}`,
    port: i % 5 === 0 ? 443 : 8000 + i,
    hostnames: [`host${i}.example.test`],
    cves: i % 3 === 0 ? [`CVE-2024-${1000 + (i % 4)}`] : [],
    countryCode: i % 2 === 0 ? 'DE' : 'FR',
  };
}

export interface ClientTestServer {
  t: BackupTestApp;
  base: string;
  /** Reads every feed; no budget of its own (the server's, generous). */
  token: string;
  /** May read only feed `beta`. */
  betaToken: string;
  /** Two requests per window of each group (2 s for most groups, 10 s for CPE search, 1 h for backups). */
  twoToken: string;
  /** A fresh token with a budget of one request per window, for a test of its own. */
  oneRequestToken(): Promise<string>;
  close(): Promise<void>;
}

export async function startClientTestServer(engine: EngineCase): Promise<ClientTestServer> {
  const t = await startBackupApp(engine, {
    VULNSCOPE_BACKUP_INTERVAL: '0',
    VULNSCOPE_RATE_LIMIT: '1000/2s,search=1000/10s,backup=1000/1h',
  });
  await t.ingest(Array.from({ length: HOSTS }, (_, i) => host(i)));
  await loadRecords(
    t.storage,
    'alpha',
    Array.from({ length: ALPHA }, (_, i) =>
      advisory(`CVE-2024-${String(i + 1).padStart(5, '0')}`, {
        affected: [{ vendor: 'acme', product: i % 2 === 0 ? 'widget' : 'gadget', versions: [] }],
      }),
    ),
  );
  await loadRecords(t.storage, 'beta', [advisory('CVE-2023-00001')]);
  await ingestCpeDictionary(
    t.storage,
    readCpeDictionarySources([
      fixture('cpe/nvd_cpe_dictionary_api2_samples.jsonl'),
      fixture('cpe/nvd_cpematch_api2_samples.jsonl'),
    ]),
  );
  await loadFeedSources(t.storage, new FeedRegistry().get('nist-nvd2')!, [fixture('nvd')]);
  const store = new BackupStore(t.backupDir);
  await writeBackup(store, feedSource(t.storage, 'alpha', 'alpha (test)'), 3);
  await writeBackup(store, targetIntelSource(t.storage), 3);

  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  t.config.publicUrl = base;
  const betaToken = (await t.storage.tokens.create('beta-only', { feeds: parseFeedEntitlement('beta') })).token;
  const twoToken = (await t.storage.tokens.create('two', { rateLimit: 2 })).token;
  let made = 0;
  return {
    t,
    base,
    token: t.token,
    betaToken,
    twoToken,
    async oneRequestToken() {
      return (await t.storage.tokens.create(`one-${++made}`, { rateLimit: 1 })).token;
    },
    close: () => t.close(),
  };
}

/**
 * Budgets count per fixed window aligned to the clock (backups: the hour); a test that needs two
 * requests in one window should not straddle its end.
 */
export async function awayFromWindowEnd(windowMs = 3_600_000, marginMs = 15_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** A stand-in server whose every answer the test writes (for cut streams, stalls and 5xx). */
export async function stubServer(
  handler: (request: http.IncomingMessage, response: http.ServerResponse) => void,
): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
