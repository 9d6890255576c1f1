import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

/** The repository's own test data (see test/fixtures/README.md for sources and licences). */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The path of a fixture; a missing one fails at once, naming the file, instead of a hook timing out. */
export function fixture(relative: string): string {
  const file = path.join(FIXTURES, relative);
  if (!fs.existsSync(file))
    throw new Error(`test fixture missing: test/fixtures/${relative} (regenerate with scripts/make-fixtures.mjs)`);
  return file;
}

/**
 * The whole public data set beside the repository (`../shared/data`), for optional large-data
 * checks: undefined, and the check skipped, on a clone that does not have it.
 */
export function sharedDataFile(relative: string): string | undefined {
  const file = fileURLToPath(new URL(`../../../shared/data/${relative}`, import.meta.url));
  return fs.existsSync(file) ? file : undefined;
}

let heads: string | undefined;

/** The directory of fixture heads, made on first use: a test worker may end without an `exit` event. */
function headsDirectory(): string {
  if (heads) return heads;
  const made = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-fixture-heads-'));
  process.once('exit', () => fs.rmSync(made, { recursive: true, force: true }));
  heads = made;
  return made;
}

/** The first `count` lines of a gzipped JSON Lines fixture, as a temporary plain file. */
export async function fixtureHead(relative: string, count: number): Promise<string> {
  const target = path.join(
    headsDirectory(),
    `${path.basename(relative).replace(/\.(jsonl|ndjson)\.gz$/, '')}-${count}.jsonl`,
  );
  if (fs.existsSync(target)) return target;
  const input = fs.createReadStream(fixture(relative)).pipe(zlib.createGunzip());
  const lines: string[] = [];
  const reader = readline.createInterface({ input, crlfDelay: Infinity });
  for await (const line of reader) {
    if (line.trim() !== '') lines.push(line);
    if (lines.length >= count) break;
  }
  reader.close();
  input.destroy();
  fs.writeFileSync(target, `${lines.join('\n')}\n`);
  return target;
}
