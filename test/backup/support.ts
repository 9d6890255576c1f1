import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { startTestApp, type TestApp } from '../support/app.js';
import type { EngineCase } from '../support/engines.js';
import { advisory, loadRecords } from '../advisories/support.js';

export const FEED = 'backup-feed';

export interface BackupTestApp extends TestApp {
  backupDir: string;
}

export async function startBackupApp(engine: EngineCase, env: Record<string, string> = {}): Promise<BackupTestApp> {
  const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-backups-'));
  const app = await startTestApp(engine, {
    VULNSCOPE_BACKUP_DIR: backupDir,
    VULNSCOPE_PUBLIC_URL: 'https://vulnscope.example',
    ...env,
  });
  return {
    ...app,
    backupDir,
    async close() {
      await app.close();
      fs.rmSync(backupDir, { recursive: true, force: true });
    },
  };
}

/** `count` advisory records of FEED (ids CVE-2024-00001…). */
export function feedRecords(count: number, tag = 'a') {
  return Array.from({ length: count }, (_, i) =>
    advisory(`CVE-2024-${String(i + 1).padStart(5, '0')}`, {
      descriptions: [{ lang: 'en', value: `record ${i} ${tag}` }],
    }),
  );
}

export async function loadFeed(app: TestApp, count: number, tag = 'a', feed = FEED) {
  return loadRecords(app.storage, feed, feedRecords(count, tag));
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export interface ZipMember {
  name: string;
  text: string;
}

/** Every member of a zip (held in memory: test archives are small). */
export function unzip(data: Buffer): Promise<ZipMember[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const members: ZipMember[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(err);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            members.push({ name: entry.fileName, text: Buffer.concat(chunks).toString('utf8') });
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(members));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Records of the `.json` members, in member order (NDJSON). */
export function recordsOf(members: ZipMember[]): unknown[] {
  return members
    .filter((member) => member.name.endsWith('.json'))
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((member) =>
      member.text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as unknown),
    );
}

/** The path and query of an absolute URL, for `inject`. */
export const local = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

export async function download(app: TestApp, url: string, headers: Record<string, string> = {}) {
  const response = await app.app.inject({ method: 'GET', url: local(url), headers });
  return { status: response.statusCode, headers: response.headers, body: response.rawPayload };
}

/** All records the API serves for FEED (cursor paging). */
export async function apiFeedRecords(app: TestApp, feed = FEED): Promise<unknown[]> {
  const records: unknown[] = [];
  let url = `/v4/advisory?name=${feed}&limit=100&start_cursor=true`;
  for (;;) {
    const { status, body } = await app.get(url);
    if (status !== 200) throw new Error(`${url}: ${status} ${JSON.stringify(body)}`);
    records.push(...body.data);
    if (!body._meta.next_cursor) return records;
    url = `/v4/advisory?name=${feed}&limit=100&cursor=${encodeURIComponent(body._meta.next_cursor)}`;
  }
}

/** All target-intel records the API serves (cursor paging). */
export async function apiTargetIntel(app: TestApp): Promise<unknown[]> {
  const records: unknown[] = [];
  let url = `/v3/index/target-intel?limit=2000&start_cursor=true`;
  for (;;) {
    const { status, body } = await app.get(url);
    if (status !== 200) throw new Error(`${url}: ${status} ${JSON.stringify(body)}`);
    records.push(...body.data);
    if (!body._meta.next_cursor) return records;
    url = `/v3/index/target-intel?limit=2000&cursor=${encodeURIComponent(body._meta.next_cursor)}`;
  }
}

export const sortedJson = (records: unknown[]) => records.map((record) => JSON.stringify(record)).sort();
