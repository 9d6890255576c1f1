/**
 * The NVD CPE dictionary as knowledge: CPE names (searchable by `/v3/search/cpe`) and product
 * renames from deprecations. Reads NVD CPE API 2.0 product objects (`{cpe: {cpeName, deprecated,
 * deprecatedBy, titles, lastModified, …}}` or the bare `cpe` object) and NVD Match Criteria API 2.0
 * objects (`{matchString: {criteria, matches: [{cpeName}], …}}`), whose `matches[].cpeName` are
 * dictionary names too — as JSON Lines, API response pages (`{products: […]}` / `{matchStrings:
 * […]}`, streamed element by element), gzip, directories or zips. Memory stays bounded by one
 * batch; a bad line or object is reported with where it was and skipped.
 */
import { stat } from 'node:fs/promises';
import { parseCpe, unquoteWfnValue, type Wfn } from '../../core/cpe.js';
import { invalidInput } from '../../core/errors.js';
import { documentValues } from '../advisories/document-values.js';
import { sourceDocuments } from '../advisories/sources.js';
import { JSON_NAME, LINES_NAME } from '../advisories/common.js';
import { isObject, reasonOf, type JsonObject } from '../advisories/types.js';
import type { Storage } from '../../storage/index.js';
import { concreteName, type CpeAlias, type CpeNameEntry } from '../../storage/index.js';

/** A value read from a source with where it was, or a problem found there. */
export type CpeDictionaryInput = { at: string; value: unknown } | { at: string; error: string };

/** Where a rename found in the dictionary comes from (cpe_aliases.source). */
export const DICTIONARY_ALIAS_SOURCE = 'nvd-cpe-dictionary';

const PAGE_KEYS = ['products', 'matchStrings'] as const;

const acceptName = (path: string) => JSON_NAME.test(path) || LINES_NAME.test(path);

/** The JSON values of CPE dictionary sources (files, directories, zips; gzip ok), API pages streamed element by element. */
export async function* readCpeDictionarySources(sources: readonly string[]): AsyncGenerator<CpeDictionaryInput> {
  for (const source of sources) {
    try {
      await stat(source);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw invalidInput(`CPE dictionary source not found: ${source}`);
      if (code === 'EACCES') throw invalidInput(`cannot read ${source}: permission denied`);
      throw error;
    }
    for await (const doc of sourceDocuments(source, acceptName)) {
      for await (const item of documentValues(doc, PAGE_KEYS)) {
        if ('error' in item) yield { at: item.at, error: item.error };
        else yield { at: item.at, value: item.value };
      }
    }
  }
}

export interface CpeDictionaryRejection {
  at: string;
  reason: string;
}

export interface CpeDictionaryOptions {
  /** Names per write transaction. */
  batchSize?: number;
  onRejected?: (rejection: CpeDictionaryRejection) => void;
  onProgress?: (progress: { read: number; names: number; rejected: number }) => void;
  /** Called once at the end with the products at both ends of new renames (host re-mapping plugs in here). */
  onKnowledgeChanged?: (touchedProducts: string[]) => Promise<unknown>;
}

export interface CpeDictionarySummary {
  /** Values read (product objects, match criteria, page elements) and rejections. */
  read: number;
  products: number;
  matchStrings: number;
  /** Names written (a name repeated in the input counts each time). */
  names: number;
  deprecated: number;
  /** New product renames. */
  aliases: number;
  rejected: number;
  /** Products at both ends of new renames. */
  touchedProducts: string[];
  durationMs: number;
}

const DEFAULT_BATCH = 1000;

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

function isInput(item: unknown): item is CpeDictionaryInput {
  return (
    isObject(item) &&
    typeof item.at === 'string' &&
    ('value' in item || typeof item.error === 'string') &&
    Object.keys(item).length === 2
  );
}

type Classified =
  | { kind: 'product'; cpe: JsonObject }
  | { kind: 'match'; matchString: JsonObject }
  | { kind: 'page'; elements: Array<{ at: string; value: unknown }> };

/** What an input value is: a product, a match criterion, or a whole API page. */
function classify(value: unknown, at: string): Classified {
  if (!isObject(value)) throw new Error('not a JSON object');
  if (isObject(value.cpe)) return { kind: 'product', cpe: value.cpe };
  if (isObject(value.matchString)) return { kind: 'match', matchString: value.matchString };
  for (const key of PAGE_KEYS) {
    if (Array.isArray(value[key])) {
      return {
        kind: 'page',
        elements: (value[key] as unknown[]).map((element, i) => ({ at: `${at}#/${key}/${i}`, value: element })),
      };
    }
  }
  if (typeof value.cpeName === 'string') return { kind: 'product', cpe: value };
  if (typeof value.criteria === 'string' && 'matchCriteriaId' in value) return { kind: 'match', matchString: value };
  throw new Error(
    'not an NVD CPE API 2.0 product ({cpe: {cpeName, …}}) or Match Criteria API 2.0 object ({matchString: {criteria, …}})',
  );
}

function checkedName(cpe: unknown, what: string): { cpe: string; wfn: Wfn } {
  const text = str(cpe);
  if (!text) throw new Error(`${what} has no cpeName`);
  let wfn: Wfn;
  try {
    wfn = parseCpe(text);
  } catch (error) {
    throw new Error(`${what} ${JSON.stringify(text)} is not a CPE name: ${reasonOf(error)}`);
  }
  if (!concreteName(text, wfn))
    throw new Error(
      `${what} ${JSON.stringify(text)} is not a concrete CPE name (wildcards or ANY part, vendor or product)`,
    );
  return { cpe: text, wfn };
}

function title(cpe: JsonObject): string | undefined {
  const titles = Array.isArray(cpe.titles) ? cpe.titles.filter(isObject) : [];
  const english = titles.find((t) => str(t.lang)?.toLowerCase() === 'en' && str(t.title));
  return str((english ?? titles.find((t) => str(t.title)))?.title);
}

const product = (wfn: Wfn) => ({
  part: wfn.part,
  vendor: unquoteWfnValue(wfn.vendor),
  product: unquoteWfnValue(wfn.product),
});

/** A dictionary product → its name entry and the renames its deprecation implies. */
export function productEntry(cpe: JsonObject): { entry: CpeNameEntry; aliases: CpeAlias[] } {
  const { cpe: name, wfn } = checkedName(cpe.cpeName, 'product');
  const deprecated = cpe.deprecated === true;
  const replacements: Array<{ cpe: string; wfn: Wfn }> = [];
  for (const item of Array.isArray(cpe.deprecatedBy) ? cpe.deprecatedBy : []) {
    const replacement = isObject(item) ? item.cpeName : item;
    if (replacement === undefined || replacement === null) continue;
    replacements.push(checkedName(replacement, 'deprecatedBy'));
  }
  const entry: CpeNameEntry = { cpe: name, kind: 'product', deprecated };
  if (replacements.length > 0) entry.deprecatedBy = replacements.map((r) => r.cpe);
  const text = title(cpe);
  if (text) entry.title = text;
  const lastModified = str(cpe.lastModified);
  if (lastModified) entry.lastModified = lastModified;
  const from = product(wfn);
  const aliases: CpeAlias[] = [];
  if (deprecated) {
    for (const replacement of replacements) {
      const to = product(replacement.wfn);
      if (to.part !== from.part || to.vendor !== from.vendor || to.product !== from.product) {
        aliases.push({ from, to, source: DICTIONARY_ALIAS_SOURCE });
      }
    }
  }
  return { entry, aliases };
}

/** A match criterion → the dictionary names it lists. */
export function matchEntries(matchString: JsonObject): CpeNameEntry[] {
  if (typeof matchString.criteria !== 'string') throw new Error('match criteria object without criteria');
  const matches = Array.isArray(matchString.matches) ? matchString.matches : [];
  return matches.map((match) => ({
    cpe: checkedName(isObject(match) ? match.cpeName : undefined, 'matches[]').cpe,
    kind: 'match' as const,
  }));
}

/**
 * Writes dictionary items into knowledge. Items are raw API values — product objects, match
 * criteria objects or whole API pages — or `{at, value}` / `{at, error}` inputs from
 * {@link readCpeDictionarySources} (so rejections say where they were).
 */
export async function ingestCpeDictionary(
  storage: Storage,
  items: AsyncIterable<unknown> | Iterable<unknown>,
  options: CpeDictionaryOptions = {},
): Promise<CpeDictionarySummary> {
  const started = Date.now();
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const summary = { read: 0, products: 0, matchStrings: 0, names: 0, deprecated: 0, aliases: 0, rejected: 0 };
  const touched = new Set<string>();
  const knownAliases = new Set<string>();
  let entries: CpeNameEntry[] = [];
  let aliases: CpeAlias[] = [];
  let entryAt: string[] = [];

  const reject = (at: string, reason: string) => {
    summary.rejected++;
    options.onRejected?.({ at, reason });
  };
  const flush = async () => {
    if (entries.length > 0) {
      const { written, rejected } = await storage.knowledge.upsertCpeNames(entries);
      summary.names += written;
      // Entries were checked before; anything the store still refuses is reported, never dropped silently.
      for (const entry of rejected)
        reject(entryAt[entries.indexOf(entry)] ?? '', `not a concrete CPE name: ${entry.cpe}`);
    }
    if (aliases.length > 0) {
      const result = await storage.knowledge.upsertAliases(aliases);
      summary.aliases += result.added;
      for (const key of result.touchedProducts) touched.add(key);
    }
    entries = [];
    aliases = [];
    entryAt = [];
    options.onProgress?.({ read: summary.read, names: summary.names, rejected: summary.rejected });
  };

  const handle = async (at: string, value: unknown): Promise<void> => {
    let classified: Classified;
    try {
      classified = classify(value, at);
    } catch (error) {
      summary.read++;
      reject(at, reasonOf(error));
      return;
    }
    if (classified.kind === 'page') {
      for (const element of classified.elements) await handle(element.at, element.value);
      return;
    }
    summary.read++;
    try {
      if (classified.kind === 'product') {
        const { entry, aliases: renames } = productEntry(classified.cpe);
        summary.products++;
        if (entry.deprecated) summary.deprecated++;
        entries.push(entry);
        entryAt.push(at);
        for (const alias of renames) {
          const key = `${alias.from.part}:${alias.from.vendor}:${alias.from.product}\u0000${alias.to.part}:${alias.to.vendor}:${alias.to.product}`;
          if (knownAliases.has(key)) continue;
          knownAliases.add(key);
          aliases.push(alias);
        }
      } else {
        const names = matchEntries(classified.matchString);
        summary.matchStrings++;
        for (const entry of names) {
          entries.push(entry);
          entryAt.push(at);
        }
      }
    } catch (error) {
      reject(at, reasonOf(error));
    }
    if (entries.length >= batchSize) await flush();
  };

  let index = 0;
  for await (const item of items) {
    index++;
    if (isInput(item)) {
      if ('error' in item) {
        summary.read++;
        reject(item.at, item.error);
      } else await handle(item.at, item.value);
    } else await handle(`item ${index}`, item);
  }
  await flush();
  const touchedProducts = [...touched].sort();
  if (touchedProducts.length > 0) await options.onKnowledgeChanged?.(touchedProducts);
  return { ...summary, touchedProducts, durationMs: Date.now() - started };
}
