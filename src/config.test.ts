import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, snapshotDirOf } from './config.js';

describe("nmap's service-probe file setting", () => {
  const installed = '/usr/share/nmap/nmap-service-probes';
  it.each([
    { value: 'off', expected: undefined },
    { value: '/srv/nmap/nmap-service-probes', expected: '/srv/nmap/nmap-service-probes' },
    { value: undefined, expected: fs.existsSync(installed) ? installed : undefined },
  ])('VULNSCOPE_NMAP_SERVICE_PROBES=$value', ({ value, expected }) => {
    const env = value === undefined ? {} : { VULNSCOPE_NMAP_SERVICE_PROBES: value };
    expect(loadConfig(env).nmapServiceProbes).toBe(expected);
  });
});

describe('the ingest heap setting', () => {
  it.each([
    { value: undefined, expected: 1280 },
    { value: '0', expected: 0 },
    { value: '4096', expected: 4096 },
    { value: '100', error: /VULNSCOPE_INGEST_HEAP_MB: expected 0 or at least 256/ },
    { value: 'lots', error: /VULNSCOPE_INGEST_HEAP_MB: expected a whole number/ },
  ])('VULNSCOPE_INGEST_HEAP_MB=$value', ({ value, expected, error }) => {
    const env = value === undefined ? {} : { VULNSCOPE_INGEST_HEAP_MB: value };
    if (error) expect(() => loadConfig(env)).toThrow(error);
    else expect(loadConfig(env).ingestHeapMb).toBe(expected);
  });
});

describe('the index snapshot settings', () => {
  it.each([
    { env: {}, expected: path.resolve('./data') },
    { env: { VULNSCOPE_DATABASE_URL: '/srv/vulnscope/main.db' }, expected: '/srv/vulnscope' },
    { env: { VULNSCOPE_DATABASE_URL: 'sqlite::memory:' }, expected: undefined },
    { env: { VULNSCOPE_DATABASE_URL: 'postgres://db.internal/vulnscope' }, expected: path.resolve('./data') },
    { env: { VULNSCOPE_SNAPSHOT_DIR: '/var/lib/vulnscope' }, expected: '/var/lib/vulnscope' },
    { env: { VULNSCOPE_SNAPSHOT_DIR: 'off' }, expected: undefined },
  ])('snapshot directory with $env', ({ env, expected }) => {
    expect(snapshotDirOf(loadConfig(env))).toBe(expected);
  });

  it('follows a database that replaces the loaded one', () => {
    const config = { ...loadConfig({}), database: { engine: 'sqlite' as const, file: '/tmp/elsewhere/test.db' } };
    expect(snapshotDirOf(config)).toBe('/tmp/elsewhere');
  });

  it.each([
    { value: undefined, expected: 600_000 },
    { value: '0', expected: 0 },
    { value: '30m', expected: 1_800_000 },
    { value: 'soon', error: /VULNSCOPE_SNAPSHOT_INTERVAL: expected a duration/ },
  ])('VULNSCOPE_SNAPSHOT_INTERVAL=$value', ({ value, expected, error }) => {
    const env = value === undefined ? {} : { VULNSCOPE_SNAPSHOT_INTERVAL: value };
    if (error) expect(() => loadConfig(env)).toThrow(error);
    else expect(loadConfig(env).snapshotIntervalMs).toBe(expected);
  });
});
