/**
 * JSON records of a scan input, whatever the layout: one object per line (NDJSON/JSONL),
 * pretty-printed objects one after another (`jq .` output, a Shodan host-API file), or one
 * top-level JSON array (masscan -oJ, old versions' trailing comma included; `nuclei -je`-style
 * exports). The layout is told by the first significant byte; the reading is done by `json-values.ts`.
 * Memory stays bounded by the largest single record.
 */
import type { Readable } from 'node:stream';
import { type LineItem, readJsonDocument, readJsonLines } from './json-values.js';
import { firstSignificantChar, peekStream } from './peek.js';

/** `at.line` is the record's (first) line, or its 1-based element index in a top-level array. */
export type JsonRecord = LineItem;

export async function* readJsonRecords(input: NodeJS.ReadableStream, file: string): AsyncGenerator<JsonRecord> {
  const { head, stream } = await peekStream(input, (h) => firstSignificantChar(h) !== undefined, 64 * 1024);
  if (firstSignificantChar(head) === '[') yield* arrayRecords(stream, file);
  else yield* readJsonLines(stream, { file, multiLineObjects: true });
}

/**
 * Elements of a top-level array; `at.line` is the 1-based element index (counted on over further
 * top-level values, e.g. arrays of several files concatenated).
 */
async function* arrayRecords(stream: Readable, file: string): AsyncGenerator<JsonRecord> {
  let read = 0;
  for await (const item of readJsonDocument(stream, { trailingComma: true })) {
    if ('value' in item) {
      read++;
      yield { at: { file, line: read }, value: item.value };
    } else {
      yield {
        at: { file, line: read + 1 },
        reason: `invalid JSON array after element ${read}: ${item.invalid}; the rest of the file was not read`,
      };
    }
  }
}
