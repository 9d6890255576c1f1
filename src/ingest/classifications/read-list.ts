import {
  classificationType,
  normaliseClassification,
  normaliseClassificationProduct,
} from '../../core/classification.js';
import { VulnscopeError, invalidInput } from '../../core/errors.js';
import { parseCidr, type IpRange } from '../../core/ip.js';
import { splitCsvLine } from './csv.js';
import { readLines } from './lines.js';

export { readTagMap } from './tag-map.js';

export interface ClassificationEntry {
  range: IpRange;
  classification: string;
  at: { file: string; line: number };
}

export type ListItem =
  | { kind: 'entry'; entry: ClassificationEntry }
  | { kind: 'rejected'; at: { file: string; line: number }; reason: string };

export interface ListOptions {
  /** `type[:product]` for every line of a plain list, or the type for tags (`--as`). */
  as?: string;
  /** CSV column holding the IP or CIDR (`--ip-column`). */
  ipColumn?: string;
  /** CSV column holding a tag to turn into a classification (`--tag-column`). */
  tagColumn?: string;
  /** Tag text (lower-cased, trimmed) → classification (`--map FILE`, see readTagMap). */
  map?: Map<string, string>;
}

/** Columns tried, in order, when no `ipColumn` is given. */
const IP_COLUMN_NAMES = ['ip_or_cidr', 'ip', 'ip_address', 'cidr', 'network'];

/** Words list publishers append to a family name (C2-Tracker: "Cobalt Strike C2 IPs"). */
const TAG_NOISE_SUFFIX = /\s+(?:ips?|c2|trojan)$/i;

/**
 * Streams the entries of a classification list file. Formats, decided by the first line that is
 * not blank or a `#` comment:
 *
 * - a plain list (no comma on that line): one IP or CIDR per line, classified as `as`;
 * - a CSV whose header has `ip_or_cidr` and `classification` columns: used as is (a blank
 *   classification cell falls back to `as`);
 * - any other CSV, with `ipColumn` (default: the first of ip_or_cidr, ip, ip_address, cidr,
 *   network) and either `tagColumn` or `as` alone. A tag goes through `map` when one is given
 *   (an unmapped tag rejects the line); otherwise it becomes the product of `as`'s type:
 *   `--as c2` + `Cobalt Strike` → `c2:cobalt_strike`.
 *
 * Tag products drop trailing "IPs", "C2" and "Trojan" words, which list publishers append to the
 * family name: C2-Tracker's tags (`ip,tag,source_file`) are its file names, e.g.
 * "Cobalt Strike C2 IPs" → `c2:cobalt_strike`, "Sliver C2 IPs" → `c2:sliver`,
 * "XtremeRAT Trojan IPs" → `c2:xtremerat`, "Hak5 Cloud C2 IPs" → `c2:hak5_cloud`. Words that
 * are part of a name stay: "Brute Ratel C4 IPs" → `c2:brute_ratel_c4`, "Quasar RAT IPs" →
 * `c2:quasar_rat`, "Mozi Botnet IPs" → `c2:mozi_botnet`.
 *
 * Bad IPs, unknown classification types and unmapped tags are yielded as rejected lines naming
 * file and line. An `as` with an unknown type throws invalid input at once; a header missing a
 * named column, or a plain list without `as`, throws when reading reaches it.
 */
export function readClassificationList(path: string, options: ListOptions): AsyncIterable<ListItem> {
  const as = options.as === undefined ? undefined : normaliseClassification(options.as);
  if (options.tagColumn !== undefined && !options.map && as === undefined) {
    throw invalidInput('a tag column needs --as TYPE (tags become products) or --map FILE');
  }
  return readList(path, { ...options, as });
}

async function* readList(path: string, options: ListOptions): AsyncGenerator<ListItem> {
  let parseLine: LineParser | undefined;
  for await (const { text, line } of readLines(path)) {
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const at = { file: path, line };
    if (parseLine === undefined) {
      const isCsv = options.ipColumn !== undefined || options.tagColumn !== undefined || trimmed.includes(',');
      if (isCsv) {
        parseLine = csvRowParser(trimmed, at, options);
        continue;
      }
      parseLine = plainLineParser(at, options);
    }
    yield parseLine(trimmed, at);
  }
}

type At = { file: string; line: number };
type LineParser = (text: string, at: At) => ListItem;

function plainLineParser(at: At, options: ListOptions): LineParser {
  const as = options.as;
  if (as === undefined) throw invalidInput(`${at.file}: a plain IP list needs --as TYPE[:product]`);
  return (text, lineAt) => {
    const address = text.replace(/\s+#.*$/, '');
    return entryOrRejection(address, () => as, lineAt);
  };
}

function csvRowParser(headerLine: string, at: At, options: ListOptions): LineParser {
  const header = csvHeader(headerLine, at);
  const column = (name: string) => {
    const index = header.indexOf(name.trim().toLowerCase());
    if (index < 0) {
      throw invalidInput(`${at.file}:${at.line}: no column "${name}" in the header (columns: ${header.join(', ')})`);
    }
    return index;
  };
  const ipName = options.ipColumn ?? IP_COLUMN_NAMES.find((name) => header.includes(name));
  if (ipName === undefined) {
    throw invalidInput(
      `${at.file}:${at.line}: no IP column in the header (columns: ${header.join(', ')}); name one with --ip-column`,
    );
  }
  const ipIndex = column(ipName);
  const classify = rowClassifier(header, column, options, at);
  return (text, lineAt) => {
    let fields: string[];
    try {
      fields = splitCsvLine(text);
    } catch (error) {
      if (error instanceof VulnscopeError) return rejected(lineAt, error.message);
      throw error;
    }
    return entryOrRejection(fields[ipIndex]?.trim() ?? '', () => classify(fields), lineAt);
  };
}

function csvHeader(line: string, at: At): string[] {
  try {
    return splitCsvLine(line).map((name) => name.trim().toLowerCase());
  } catch (error) {
    throw error instanceof VulnscopeError ? invalidInput(`${at.file}:${at.line}: header: ${error.message}`) : error;
  }
}

/** How a CSV row becomes a classification; the returned function throws with a reason. */
function rowClassifier(
  header: string[],
  column: (name: string) => number,
  options: ListOptions,
  at: At,
): (fields: string[]) => string {
  const { as, map } = options;
  if (options.tagColumn !== undefined) {
    const tagIndex = column(options.tagColumn);
    if (map) {
      return (fields) => {
        const tag = (fields[tagIndex] ?? '').trim().toLowerCase();
        if (tag === '') throw invalidInput(`empty tag in column "${options.tagColumn}"`);
        const mapped = map.get(tag);
        if (mapped === undefined) throw invalidInput(`tag "${tag}" is not in the tag map`);
        return mapped;
      };
    }
    const type = classificationType(as!);
    return (fields) => {
      const product = tagProduct(fields[tagIndex] ?? '');
      return product === '' ? as! : normaliseClassification(`${type}:${product}`);
    };
  }
  if (header.includes('classification')) {
    const classificationIndex = column('classification');
    return (fields) => {
      const value = (fields[classificationIndex] ?? '').trim();
      if (value === '' && as === undefined) throw invalidInput('empty classification');
      return value === '' ? as! : normaliseClassification(value);
    };
  }
  if (as === undefined) {
    throw invalidInput(
      `${at.file}:${at.line}: no classification column in the header; give --as TYPE[:product] or --tag-column`,
    );
  }
  return () => as;
}

/** The product a tag names: trimmed, trailing noise words dropped, normalised. */
export function tagProduct(tag: string): string {
  let product = tag.trim();
  for (let shorter = product.replace(TAG_NOISE_SUFFIX, ''); shorter !== product; ) {
    product = shorter;
    shorter = product.replace(TAG_NOISE_SUFFIX, '');
  }
  return normaliseClassificationProduct(product);
}

function entryOrRejection(address: string, classify: () => string, at: At): ListItem {
  if (address === '') return rejected(at, 'missing IP or CIDR');
  try {
    const range = parseCidr(address);
    const classification = classify();
    return { kind: 'entry', entry: { range, classification, at } };
  } catch (error) {
    if (error instanceof VulnscopeError) return rejected(at, error.message);
    throw error;
  }
}

function rejected(at: At, reason: string): ListItem {
  return { kind: 'rejected', at, reason };
}
