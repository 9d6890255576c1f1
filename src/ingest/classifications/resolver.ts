import { classifyFingerprints } from '../../core/fingerprint-rules.js';
import type { Fingerprint } from '../../core/observation.js';
import type { StoredClassificationEntry } from '../../core/classification.js';

/**
 * Answers "which list classifications cover this IP" from all loaded lists, and combines them
 * with the observation's own classifications and the fingerprint rules into a record's effective
 * set. Keys are the storage's IP sort keys, which compare correctly as strings.
 */
export class ClassificationResolver {
  private readonly entries: StoredClassificationEntry[];
  /** maxLast[i] = the greatest lastKey among entries[0..i], to stop the backward scan early. */
  private readonly maxLast: string[];

  constructor(entries: StoredClassificationEntry[]) {
    this.entries = [...entries].sort((a, b) => (a.firstKey < b.firstKey ? -1 : a.firstKey > b.firstKey ? 1 : 0));
    this.maxLast = [];
    let max = '';
    for (const entry of this.entries) {
      if (entry.lastKey > max) max = entry.lastKey;
      this.maxLast.push(max);
    }
  }

  /** List classifications covering the IP with this sort key. */
  forIp(ipKey: string): string[] {
    const found = new Set<string>();
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.entries[mid]!.firstKey <= ipKey) low = mid + 1;
      else high = mid;
    }
    for (let i = low - 1; i >= 0 && this.maxLast[i]! >= ipKey; i--) {
      const entry = this.entries[i]!;
      if (entry.lastKey >= ipKey) found.add(entry.classification);
    }
    return [...found];
  }

  effective(observed: string[], fingerprints: Fingerprint[], ipKey: string): string[] {
    return this.combine(observed, classifyFingerprints(fingerprints), ipKey);
  }

  /** As `effective`, given the classifications the fingerprint rules imply (sorted, unique). */
  combine(observed: string[], implied: string[], ipKey: string): string[] {
    const listed = this.entries.length === 0 ? [] : this.forIp(ipKey);
    // Most records have no classification from any source: no set to build.
    if (observed.length === 0 && listed.length === 0) return implied;
    return [...new Set([...observed, ...implied, ...listed])].sort();
  }
}
