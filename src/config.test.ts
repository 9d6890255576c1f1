import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

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
