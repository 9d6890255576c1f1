import type { ReadItem, SourcePosition } from '../../core/observation.js';

export type ScanFormat = 'ndjson' | 'nmap' | 'shodan' | 'masscan';

/** Turns one (already gunzipped) input stream into observations and rejections, in input order. */
export type ScanReader = (input: NodeJS.ReadableStream, file: string) => AsyncIterable<ReadItem>;

export const rejected = (at: SourcePosition, reason: string): ReadItem => ({
  kind: 'rejected',
  at,
  reason,
});

/** The message of whatever a record conversion threw, used as the rejection reason. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
