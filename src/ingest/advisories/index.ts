/**
 * Advisory adapters and the built-in advisory feeds. Every adapter streams (memory bounded by the
 * largest single record), yields records that validate against the contract's
 * `advisory.MitreCVEListV5Ref`, and reports a record it cannot convert as a `rejected` item with
 * the source id, position and reason, then goes on. Field mapping: docs/advisory-feeds.md.
 */
import { mitreCvelistV5 } from './cve5.js';
import { cisaKev } from './kev.js';
import { nistNvd2 } from './nvd.js';
import { osv } from './osv.js';
import { invalidInput } from '../../core/errors.js';
import type { AdvisoryAdapter } from './types.js';

export type { AdvisoryAdapter, AdvisoryItem, AdvisoryRecord } from './types.js';

export const ADVISORY_ADAPTERS: Record<'mitre-cvelist-v5' | 'nist-nvd2' | 'cisa-kev' | 'osv', AdvisoryAdapter> = {
  'mitre-cvelist-v5': mitreCvelistV5,
  'nist-nvd2': nistNvd2,
  'cisa-kev': cisaKev,
  osv,
};

export const BUILTIN_FEEDS: Array<{ name: string; description: string; adapter: keyof typeof ADVISORY_ADAPTERS }> = [
  {
    name: 'mitre-cvelist-v5',
    description: 'CVE List V5 records (CVE Record Format 5.x; CVE JSON 4.0 converted), with CNA and ADP containers',
    adapter: 'mitre-cvelist-v5',
  },
  {
    name: 'nist-nvd2',
    description: 'NIST NVD CVE API 2.0 records: descriptions, CVSS metrics, CWEs and CPE configurations',
    adapter: 'nist-nvd2',
  },
  {
    name: 'cisa-kev',
    description: 'CISA Known Exploited Vulnerabilities catalog: date added, due date, required action, ransomware use',
    adapter: 'cisa-kev',
  },
  {
    name: 'go-vulndb',
    description: 'Go vulnerability database (OSV): affected Go modules, packages and symbols',
    adapter: 'osv',
  },
  {
    name: 'pypa',
    description: 'PyPA advisory database (OSV): affected PyPI packages and versions',
    adapter: 'osv',
  },
  {
    name: 'rustsec',
    description: 'RustSec advisory database (OSV): affected crates.io crates and versions',
    adapter: 'osv',
  },
];

export type AdapterName = keyof typeof ADVISORY_ADAPTERS;

export interface RegisteredFeed {
  name: string;
  description: string;
  adapter: AdapterName;
  source?: string;
}

export const adapterNames = () => Object.keys(ADVISORY_ADAPTERS) as AdapterName[];

export function isAdapterName(name: string): name is AdapterName {
  return Object.hasOwn(ADVISORY_ADAPTERS, name);
}

export function adapterFor(name: AdapterName): AdvisoryAdapter {
  return ADVISORY_ADAPTERS[name];
}

export function checkAdapterName(name: string, where: string): AdapterName {
  if (!isAdapterName(name)) {
    throw invalidInput(`${where}: unknown adapter "${name}" (adapters: ${adapterNames().join(', ')})`);
  }
  return name;
}

/** The feeds a sync may name (the feed registry of the services layer is one). */
export interface FeedLookup {
  get(name: string): RegisteredFeed | undefined;
  list(): RegisteredFeed[];
}
