import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBackup } from '../../src/backup/service.js';
import { feedSource } from '../../src/backup/sources.js';
import { BackupStore } from '../../src/backup/store.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import { FEED, loadFeed, local, startBackupApp, type BackupTestApp } from '../backup/support.js';

/**
 * A 503 body named a file path of the server (the backup directory, in the driver's message).
 * Error bodies never carry paths, SQL or stack traces: a 5xx carries only its stable public
 * message, and the log keeps the detail.
 */

const noServerDetail = (text: string, backupDir: string) => {
  expect(text).not.toContain(backupDir);
  expect(text).not.toMatch(/ENOENT|ENOTDIR|scandir|no such file|not a directory|SELECT|\.ts:\d+|\/tmp\//);
};

describe.each(engineCases())('5xx bodies carry no server detail ($name)', (engine) => {
  let t: BackupTestApp;
  let downloadUrl: string;
  beforeAll(async () => {
    t = await startBackupApp(engine);
    await loadFeed(t, 3);
    await writeBackup(new BackupStore(t.backupDir), feedSource(t.storage, FEED, 'test'), 3);
    downloadUrl = local((await t.get(`/v4/backup/${FEED}`)).body.url_mrap);
  });
  afterAll(async () => t?.close());

  const backupUrls = () => ['/v4/backup', `/v4/backup/${FEED}`, '/v3/backup', '/v3/backup/target-intel', downloadUrl];

  const expectSanitised503 = async (url: string) => {
    const response = await t.get(url);
    expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBe(503);
    expect(response.body).toEqual({ error: true, errors: ['backup storage is unavailable; try again later'] });
    expect(describeErrors(validateAgainst('search.ErrorResponse', response.body))).toEqual([]);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    noServerDetail(JSON.stringify(response.body), t.backupDir);
  };

  it('backup routes with the backup directory missing: a 503 naming no path; the log names it', async () => {
    const moved = `${t.backupDir}.moved`;
    fs.renameSync(t.backupDir, moved);
    try {
      const before = t.logs.length;
      for (const url of backupUrls()) await expectSanitised503(url);
      expect(t.logs.slice(before).join('')).toContain(t.backupDir);
    } finally {
      fs.renameSync(moved, t.backupDir);
    }
    expect((await t.get(`/v4/backup/${FEED}`)).status).toBe(200);
  });

  it('backup routes with a file where the backup directory should be: a 503 naming no path', async () => {
    const moved = `${t.backupDir}.moved`;
    fs.renameSync(t.backupDir, moved);
    fs.writeFileSync(t.backupDir, 'not a directory');
    try {
      for (const url of backupUrls()) await expectSanitised503(url);
    } finally {
      fs.rmSync(t.backupDir);
      fs.renameSync(moved, t.backupDir);
    }
  });

  it('/healthz with storage unreachable: a 503 that names no file, host or driver message', async () => {
    const db = t.context.storage.db as { ping(): Promise<void> };
    const ping = db.ping;
    const secretPath = '/var/lib/vulnscope/secret.db';
    db.ping = async () => {
      throw new Error(`SQLITE_CANTOPEN: unable to open database file ${secretPath}`);
    };
    try {
      const before = t.logs.length;
      const response = await t.get('/healthz', null);
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ status: 'unavailable', live: true, ready: false, rate_limit: 'memory' });
      expect(response.headers['retry-after']).toBe('5');
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(secretPath);
      expect(text).not.toContain(t.context.storage.db.description);
      expect(text).not.toMatch(/SQLITE_CANTOPEN/);
      expect(t.logs.slice(before).join('')).toContain(secretPath);
    } finally {
      db.ping = ping;
    }
    expect((await t.get('/healthz', null)).status).toBe(200);
  });
});
