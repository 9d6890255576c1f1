import { normaliseClassification } from '../../core/classification.js';
import { VulnscopeError, invalidInput } from '../../core/errors.js';
import { splitCsvLine } from './csv.js';
import { readLines } from './lines.js';

/**
 * Reads a tag map (`--map FILE`): one `tag<TAB>classification` or `tag,classification` line per
 * tag (CSV quoting allowed), `#` comments, and an optional `…,classification` header. Keys are
 * lower-cased and trimmed; values are validated and normalised. Any bad line throws invalid input
 * naming file and line, since a half-loaded map would silently reject good list lines.
 */
export async function readTagMap(path: string): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  let seenFirstLine = false;
  for await (const { text, line } of readLines(path)) {
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const fail = (reason: string) => invalidInput(`${path}:${line}: ${reason}`);
    let fields: string[];
    try {
      fields = splitCsvLine(trimmed, trimmed.includes('\t') ? '\t' : ',');
    } catch (error) {
      throw error instanceof VulnscopeError ? fail(error.message) : error;
    }
    const [tag, value] = fields.map((field) => field.trim());
    const isHeader = !seenFirstLine && value?.toLowerCase() === 'classification';
    seenFirstLine = true;
    if (isHeader) continue;
    if (!tag || !value) throw fail('expected "tag<TAB or comma>classification"');
    let classification: string;
    try {
      classification = normaliseClassification(value);
    } catch (error) {
      throw error instanceof VulnscopeError ? fail(error.message) : error;
    }
    const key = tag.toLowerCase();
    const earlier = map.get(key);
    if (earlier !== undefined && earlier !== classification) {
      throw fail(`tag "${key}" is mapped to both ${earlier} and ${classification}`);
    }
    map.set(key, classification);
  }
  return map;
}
