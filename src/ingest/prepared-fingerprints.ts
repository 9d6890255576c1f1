import { classifyFingerprints } from '../core/fingerprint-rules.js';
import { fingerprintKey, normaliseFingerprint } from '../core/fingerprint.js';
import { boundedMemo } from '../core/memo.js';
import type { Fingerprint } from '../core/observation.js';

/** What an observation's fingerprint list gives its record. Shared between records: never mutated. */
export interface PreparedFingerprints {
  fingerprints: Fingerprint[];
  /** The service identity (see fingerprintKey). */
  fpKey: string;
  /** Classifications the fingerprint rules imply. */
  implied: string[];
}

const NONE: PreparedFingerprints = Object.freeze({ fingerprints: [], fpKey: '', implied: [] }) as PreparedFingerprints;

/**
 * Normalised fingerprints, identity key and implied classifications of a fingerprint list. Scans
 * repeat the same software on host after host, so the list is worked out once per distinct text:
 * one lookup per record instead of one per step (the steps each looked up their own memo).
 */
export function prepareFingerprints(fingerprints: Fingerprint[]): PreparedFingerprints {
  return fingerprints.length === 0 ? NONE : preparedByText(JSON.stringify(fingerprints));
}

const preparedByText = boundedMemo((text): PreparedFingerprints => {
  const fingerprints = (JSON.parse(text) as Fingerprint[]).map(normaliseFingerprint);
  return { fingerprints, fpKey: fingerprintKey(fingerprints), implied: classifyFingerprints(fingerprints) };
});
