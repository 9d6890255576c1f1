import type { Fingerprint } from './observation.js';
import { classificationType } from './classification.js';
import { boundedMemo } from './memo.js';

/**
 * One rule: when `pattern` matches one of `fields` of a fingerprint, the port carries
 * `classification`. Rules only name software that is unambiguous by its name (or, for Dionaea,
 * by its default certificate); general-purpose software that is merely *often* abused (Squid,
 * nginx as a proxy, Metasploit's RPC daemon) is left to lists and analysts.
 */
export interface FingerprintRule {
  classification: string;
  /** Fingerprint fields searched, or 'any' for every field (scanner extras included). */
  fields: readonly string[] | 'any';
  pattern: RegExp;
  /** What the rule recognises, for docs/classifications.md. */
  note: string;
}

/** Fields that name the software: matching a word here is specific enough for any rule. */
const NAME_FIELDS = ['vendor', 'product', 'nmap_product', 'cpe'] as const;
/** Name fields plus the raw banner, for names too distinctive to appear there by accident. */
const NAME_AND_BANNER_FIELDS = [...NAME_FIELDS, 'banner'] as const;

const honeypot = (product: string, pattern: RegExp, fields: readonly string[] = NAME_AND_BANNER_FIELDS) => ({
  classification: `honeypot:${product}`,
  fields,
  pattern,
  note: `${product} honeypot`,
});

export const FINGERPRINT_RULES: readonly FingerprintRule[] = [
  honeypot('dionaea', /\bdionaea\b/i),
  {
    classification: 'honeypot:dionaea',
    fields: 'any',
    pattern: /dionaea\.carnivore\.it|Nepenthes Development Team/i,
    note: "Dionaea's default TLS certificate (O=dionaea.carnivore.it, CN=Nepenthes Development Team), e.g. in nmap's ssl-cert output",
  },
  honeypot('cowrie', /\bcowrie\b/i),
  honeypot('kippo', /\bkippo\b/i),
  honeypot('conpot', /\bconpot\b/i),
  honeypot('glastopf', /\bglastopf\b/i),
  honeypot('elasticpot', /\belasticpot\b/i),
  honeypot('t-pot', /\bt-?pot\b/i),
  honeypot('honeytrap', /\bhoneytrap\b/i),
  honeypot('honeyd', /\bhoneyd\b/i),
  honeypot('adbhoney', /\badbhoney\b/i),
  honeypot('citrixhoneypot', /\bcitrixhoneypot\b/i),
  honeypot('redishoneypot', /\bredishoneypot\b/i),
  honeypot('log4pot', /\blog4pot\b/i),
  honeypot('mailoney', /\bmailoney\b/i),
  honeypot('ddospot', /\bddospot\b/i),
  honeypot('dicompot', /\bdicompot\b/i),
  honeypot('medpot', /\bmedpot\b/i),
  honeypot('ipphoney', /\bipphoney\b/i),
  honeypot('sentrypeer', /\bsentrypeer\b/i),
  // Short or common words: only where they name the software, never in free banner text.
  honeypot('amun', /^amun\b/i, NAME_FIELDS),
  honeypot('heralding', /\bheralding\b/i, NAME_FIELDS),
  {
    classification: 'honeypot',
    fields: NAME_AND_BANNER_FIELDS,
    pattern: /\bhoney ?pot\b/i,
    note: 'software that calls itself a honeypot (e.g. nmap\'s "Kippo SSH honeypot")',
  },
  c2('cobalt_strike', /\bcobalt ?strike\b/i, 'Cobalt Strike team server / beacon'),
  c2('sliver', /\bsliver\b/i, 'Sliver C2'),
  c2('mythic', /\bmythic\b/i, 'Mythic C2'),
  c2('havoc', /\bhavoc\b/i, 'Havoc C2'),
  c2('brute_ratel_c4', /\bbrute ?ratel\b/i, 'Brute Ratel C4 (same value as the C2-Tracker list gives)'),
  c2('poshc2', /\bposhc2\b/i, 'PoshC2'),
  {
    classification: 'proxy:tor',
    fields: ['product', 'nmap_product'],
    pattern: /^tor(\s|$)/i,
    note: 'a Tor relay or SOCKS port identified as "Tor" (exit nodes come from the Tor exit list)',
  },
];

function c2(product: string, pattern: RegExp, note: string): FingerprintRule {
  return { classification: `c2:${product}`, fields: NAME_FIELDS, pattern, note };
}

/** Classifications implied by what runs on the port, e.g. honeypot software. Sorted, unique. */
export function classifyFingerprints(fingerprints: Fingerprint[]): string[] {
  if (fingerprints.length === 0) return [];
  const found = new Set<string>();
  for (const fingerprint of fingerprints) {
    for (const classification of classificationsOfFingerprint(JSON.stringify(fingerprint))) found.add(classification);
  }
  if (found.size === 0) return [];
  // A bare type says nothing more once a specific product of that type was recognised.
  const typedProducts = new Set([...found].filter((value) => value.includes(':')).map(classificationType));
  return [...found].filter((value) => value.includes(':') || !typedProducts.has(value)).sort();
}

/**
 * Matches wherever any rule's pattern matches (any field, case-insensitive), so one test per field
 * rules out the fingerprints no rule names (nearly all of them) instead of ~100 tests each.
 */
const ANY_RULE = new RegExp(
  FINGERPRINT_RULES.map((rule) => {
    if (rule.pattern.flags.replace('i', '') !== '')
      throw new Error(`rule ${rule.classification}: only the i flag is supported`);
    return `(?:${rule.pattern.source})`;
  }).join('|'),
  'i',
);

/** Scans repeat the same fingerprints: the rules run once per distinct one (keyed by its JSON). */
const classificationsOfFingerprint = boundedMemo((json): string[] => {
  const fingerprint = JSON.parse(json) as Fingerprint;
  if (!Object.values(fingerprint).some((value) => typeof value === 'string' && ANY_RULE.test(value))) return [];
  return FINGERPRINT_RULES.filter((rule) => matches(rule, fingerprint)).map((rule) => rule.classification);
});

function matches(rule: FingerprintRule, fingerprint: Fingerprint): boolean {
  const fields = rule.fields === 'any' ? Object.keys(fingerprint) : rule.fields;
  return fields.some((field) => {
    const value = fingerprint[field];
    return typeof value === 'string' && rule.pattern.test(value);
  });
}
