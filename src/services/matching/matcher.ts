/**
 * Fingerprint CPEs → CVEs. A record's context is its fingerprints' CPEs plus the host's OS CPEs
 * (AND configurations need the platform). Candidate CVEs come from the criteria index (one lookup
 * per distinct fingerprint name, names reached through renames included; OS guesses never make a
 * CVE the record's, so they add no candidates); each candidate's whole applicability is then
 * evaluated by the pure rules against the whole context, which decide what is confirmed.
 *
 * Scans repeat the same software endlessly, so results are cached per context and per name; the
 * caches are dropped whenever the knowledge generation moves.
 */
import { ANY, formatCpe23, parseCpe, quoteWfnValue, type Wfn } from '../../core/cpe.js';
import { unionOfSorted } from '../../core/sorted-union.js';
import {
  confirmedAlone,
  confirmedByMarks,
  type Marks,
  marksOf,
  mayBeConfirmed,
  mayMark,
  productsOf,
} from '../../core/applicability/confirmed.js';
import { evaluateApplicability, standsAlone } from '../../core/applicability/evaluate.js';
import { hostLookupOf, productKeyOf, productLookupOf, type NameLookup } from '../../core/applicability/index-keys.js';
import type { ContextCpe, CveApplicability, CveEvidence } from '../../core/applicability/types.js';
import type { ContextMatch, CveMatcher, MatchContext } from '../../core/matching.js';
import { takeTurn } from '../../search/loop-turns.js';
import { LruCache } from '../../core/lru.js';
import { VersionLists } from './version-lists.js';

/** A concrete name as the criteria index looks it up for a host (core: hostLookupOf). */
export type CandidateName = NameLookup;

/** What the matcher needs from knowledge storage. */
export interface KnowledgeSource {
  /** Moves whenever applicability, names or aliases change. */
  generation(): Promise<number>;
  /** Product keys (`part:vendor:product`) reachable from each key through renames, excluding itself. */
  aliases(productKeys: string[]): Promise<Map<string, string[]>>;
  /**
   * Whether any criterion names the name's product (part, vendor, product; wildcards included).
   * `generation`: the knowledge generation the caller read, which the answer may be as of.
   */
  productHasCriteria(name: CandidateName, generation?: number): Promise<boolean>;
  /** CVE ids whose criteria could match the name (ascending); `generation` as for productHasCriteria. */
  candidates(name: CandidateName, generation?: number): Promise<string[]>;
  applicability(cveIds: string[]): Promise<CveApplicability[]>;
  /**
   * For a fingerprint name of a concrete product: the CVEs it confirms by itself (ascending), and
   * the CVEs it is the vulnerable element of that the rules must evaluate (undefined: use `candidates`).
   */
  confirmations?(
    wfn: Wfn,
    cpe: string,
    generation?: number,
  ): Promise<{ confirmed: string[]; evaluate: string[] } | undefined>;
}

export interface MatcherOptions {
  /**
   * Keep each context's evidence (default true). Ingest and re-mapping only need the confirmed
   * CVEs; the evidence of a context on a CVE-dense product is hundreds of KiB, so a matcher that
   * caches tens of thousands of contexts without it stays small.
   */
  evidence?: boolean;
  /** Estimated bytes of context results kept (default 64 MiB). */
  contextCacheBytes?: number;
  /** Estimated bytes of per-name results kept (default 128 MiB). */
  nameCacheBytes?: number;
  applicabilityCacheSize?: number;
}

/** Estimated heap bytes: an entry, its key, and a pointer per CVE (the id strings are shared). */
const ENTRY_BYTES = 96;
const weighContext = (match: ContextMatch, key: string) =>
  ENTRY_BYTES + key.length + 8 * match.confirmed.length + 160 * match.evidence.length;
const weighNames = (cves: string[], key: string) => ENTRY_BYTES + key.length + 8 * cves.length;
// Estimated: a typed array's object and buffer take about 100 bytes besides its contents.
const weighMarks = (marks: Marks, key: string) => ENTRY_BYTES + key.length + 100 + marks.byteLength;
function weighConfirmation(result: NameConfirmation, key: string): number {
  let bytes = ENTRY_BYTES + key.length + 8 * result.confirmed.length;
  // The entry, its typed array and that array's buffer once worked out: ~290 bytes measured per conditional CVE.
  for (const { app } of result.conditional) bytes += 289 + criteriaCount(app);
  return bytes;
}

function criteriaCount(app: CveApplicability): number {
  let count = 0;
  for (const statement of app.statements)
    for (const configuration of statement.configurations)
      for (const node of configuration.nodes) count += node.cpeMatch.length;
  return count;
}

const MIB = 2 ** 20;
const NO_MATCH: ContextMatch = Object.freeze({ confirmed: [], evidence: [] }) as ContextMatch;

/** A CVE that needs more of the context than one name, with what that name does to its criteria once a context needs it. */
interface Conditional {
  app: CveApplicability;
  marks?: Marks;
}

/** What one fingerprint name confirms by itself, and the CVEs that need the rest of the context. */
interface NameConfirmation {
  confirmed: string[];
  conditional: Conditional[];
}

const NOTHING_CONFIRMED: NameConfirmation = Object.freeze({ confirmed: [], conditional: [] }) as NameConfirmation;

function parseOrSkip(text: string): Wfn | undefined {
  try {
    return parseCpe(text);
  } catch {
    return undefined;
  }
}

/** `part:vendor:product` → the name with those attributes replaced (the product may contain `:`). */
function renamed(wfn: Wfn, productKey: string): Wfn | undefined {
  const first = productKey.indexOf(':');
  const second = productKey.indexOf(':', first + 1);
  try {
    return {
      ...wfn,
      part: productKey.slice(0, first),
      vendor: quoteWfnValue(productKey.slice(first + 1, second)),
      product: quoteWfnValue(productKey.slice(second + 1)),
    };
  } catch {
    return undefined;
  }
}

const hasConcreteIdentity = (wfn: Wfn) => wfn.part !== ANY && wfn.vendor !== ANY && wfn.product !== ANY;

/** The lookup of a context name; names with ANY part, vendor or product are not looked up. */
export function candidateNameOf(wfn: Wfn): CandidateName | undefined {
  return hasConcreteIdentity(wfn) ? hostLookupOf(wfn) : undefined;
}

const nameKey = (name: CandidateName) =>
  `${name.part}:${name.vendor}:${name.product}\u0000${name.rawKey ?? ''}\u0000${name.foldedKey ?? ''}\u0000${name.familyEndKey ?? ''}`;
export const contextKey = (context: MatchContext) =>
  `${[...context.fingerprintCpes].sort().join('\u0001')}\u0000${[...context.osCpes].sort().join('\u0001')}`;

export class KnowledgeMatcher implements CveMatcher {
  private generation: number | undefined;
  private readonly contexts: LruCache<string, ContextMatch>;
  private readonly names: LruCache<string, string[]>;
  private readonly applicabilities: LruCache<string, CveApplicability | null>;
  private readonly aliasCache = new Map<string, string[]>();
  /** Per product (`part:vendor:product`): whether knowledge names it at all. Scans carry a few thousand products in tens of thousands of versions. */
  private readonly productsWithCriteria = new LruCache<string, boolean>(100_000);
  /** Per fingerprint name (and the renamed name used): what it confirms alone (confirmed-only matching). */
  private readonly nameConfirmations: LruCache<string, NameConfirmation>;
  private readonly keepEvidence: boolean;
  /** CVEs that CVE 5 version lists decide, per product: found by a name's version (confirmed-only matching). */
  private readonly versionLists = new VersionLists();
  /** Marks of context names on other names' candidate CVEs (see marksOf), held to 16 MiB of estimated bytes. */
  private readonly otherMarks = new LruCache<string, Marks>(16 * MIB, weighMarks);

  constructor(
    private readonly source: KnowledgeSource,
    options: MatcherOptions = {},
  ) {
    this.keepEvidence = options.evidence ?? true;
    this.contexts = new LruCache(options.contextCacheBytes ?? 64 * MIB, weighContext);
    this.names = new LruCache(options.nameCacheBytes ?? 128 * MIB, weighNames);
    this.applicabilities = new LruCache(options.applicabilityCacheSize ?? 50_000);
    this.nameConfirmations = new LruCache(options.nameCacheBytes ?? 128 * MIB, weighConfirmation);
  }

  /** Matches many records' contexts; equal contexts are evaluated once. */
  async matchAll(contexts: MatchContext[]): Promise<ContextMatch[]> {
    await this.checkGeneration();
    const results: ContextMatch[] = new Array(contexts.length);
    /** Contexts not cached: their key → the positions that have it. */
    const pending = new Map<string, number[]>();
    contexts.forEach((context, i) => {
      const key = contextKey(context);
      const cached = this.contexts.get(key);
      if (cached) results[i] = cached;
      else if (pending.has(key)) pending.get(key)!.push(i);
      else pending.set(key, [i]);
    });
    for (const [key, positions] of pending) {
      // A context of a CVE-dense product takes milliseconds: requests served beside take turns.
      await takeTurn();
      const match = await this.evaluate(contexts[positions[0]!]!);
      this.contexts.set(key, match);
      for (const i of positions) results[i] = match;
    }
    return results;
  }

  async match(context: MatchContext): Promise<ContextMatch> {
    return (await this.matchAll([context]))[0]!; // one match per context
  }

  /** Forgets everything cached (knowledge changed in this process). */
  reset(): void {
    this.contexts.clear();
    this.names.clear();
    this.applicabilities.clear();
    this.aliasCache.clear();
    this.productsWithCriteria.clear();
    this.nameConfirmations.clear();
    this.versionLists.clear();
    this.otherMarks.clear();
  }

  private async checkGeneration(): Promise<void> {
    const generation = await this.source.generation();
    if (generation !== this.generation) {
      this.reset();
      this.generation = generation;
    }
  }

  private async evaluate(context: MatchContext): Promise<ContextMatch> {
    const inputs = await this.contextCpes(context);
    if (inputs.length === 0) return NO_MATCH;
    if (!this.keepEvidence) return this.confirmedOnly(inputs);
    const cveIds = new Set<string>();
    for (const input of inputs) {
      // Only the record's own fingerprints can be vulnerable; OS guesses are looked at as platforms.
      if (input.role !== 'fingerprint') continue;
      const name = candidateNameOf(input.wfn);
      if (name) for (const cve of await this.candidatesOf(name)) cveIds.add(cve);
    }
    if (cveIds.size === 0) return NO_MATCH;
    const evidence: CveEvidence[] = [];
    for (const app of await this.applicabilityOf([...cveIds].sort()))
      evidence.push(...evaluateApplicability(app, inputs));
    if (evidence.length === 0) return NO_MATCH;
    const confirmed = [...new Set(evidence.filter((e) => e.confirmed).map((e) => e.cve))].sort();
    return { confirmed, evidence };
  }

  /**
   * The confirmed CVEs without evidence: per fingerprint name, what the name confirms by itself
   * (remembered, so a name costs its evaluation once, whatever the contexts it appears in), then
   * the CVEs whose configurations need more than one name, evaluated against the whole context.
   */
  private async confirmedOnly(inputs: ContextCpe[]): Promise<ContextMatch> {
    const byName: Array<{ owner: ContextCpe; result: NameConfirmation }> = [];
    for (const input of inputs)
      if (input.role === 'fingerprint') byName.push({ owner: input, result: await this.confirmedByName(input) });
    const products = productsOf(inputs);
    const byContext: string[] = [];
    const looked = new Set<string>();
    for (const { owner, result } of byName) {
      for (const entry of result.conditional) {
        const app = entry.app;
        if (looked.has(app.cveId)) continue;
        looked.add(app.cveId);
        // Most AND configurations name a platform the context does not hold: no marks needed to say no.
        if (!mayBeConfirmed(app, products)) continue;
        const marks: Marks[] = [];
        for (const input of inputs) {
          if (input === owner) {
            entry.marks ??= marksOf(app, input);
            marks.push(entry.marks);
          } else if (mayMark(app, input.wfn.product)) marks.push(this.marksOf(app, input));
        }
        if (confirmedByMarks(app, marks)) byContext.push(app.cveId);
      }
    }
    const lists: string[][] = [];
    for (const { result } of byName) if (result.confirmed.length > 0) lists.push(result.confirmed);
    // One name and nothing more: its own sorted list, shared with every context that has it.
    if (lists.length === 1 && byContext.length === 0) return { confirmed: lists[0]!, evidence: [] };
    if (byContext.length > 0) lists.push(byContext.sort());
    const confirmed = unionOfSorted(lists);
    return confirmed.length === 0 ? NO_MATCH : { confirmed, evidence: [] };
  }

  /** A context name's marks on another name's candidate CVE (the platform side of its configurations, say): they recur across contexts. */
  private marksOf(app: CveApplicability, input: ContextCpe): Marks {
    const key = `${input.role}\u0000${input.alias ?? input.cpe}\u0000${app.cveId}`;
    let marks = this.otherMarks.get(key);
    if (marks === undefined) {
      marks = marksOf(app, input);
      this.otherMarks.set(key, marks);
    }
    return marks;
  }

  private async confirmedByName(input: ContextCpe): Promise<NameConfirmation> {
    // The name evaluated: the renamed one when the input follows a rename.
    const key = input.alias ?? input.cpe;
    const known = this.nameConfirmations.get(key);
    if (known) return known;
    let result = NOTHING_CONFIRMED;
    if (hasConcreteIdentity(input.wfn)) {
      const split = await this.source.confirmations?.(input.wfn, key, this.generation);
      /** Confirmed CVEs: those the index gives in ascending order, and the rest. */
      let sorted: readonly string[] = [];
      const confirmed: string[] = [];
      let evaluate: CveApplicability[];
      if (split) {
        const listed = await this.versionLists.split(input.wfn, await this.applicabilityOf(split.evaluate));
        sorted = split.confirmed;
        confirmed.push(...listed.confirmed);
        evaluate = listed.evaluate;
      } else {
        const listed = await this.versionLists.confirmedByLists(input.wfn, async () =>
          this.applicabilityOf(await this.candidatesOf(productLookupOf(input.wfn))),
        );
        confirmed.push(...listed.confirmed);
        evaluate =
          listed.undecided.size === 0
            ? []
            : await this.applicabilityOf(
                (await this.candidatesOf(hostLookupOf(input.wfn))).filter((id) => listed.undecided.has(id)),
              );
      }
      const conditional: Conditional[] = [];
      for (const app of evaluate) {
        if (!standsAlone(app)) conditional.push({ app });
        else if (confirmedAlone(app, input)) confirmed.push(app.cveId);
      }
      // Sorted once here: a context of this name alone shares the list.
      if (sorted.length > 0 || confirmed.length > 0 || conditional.length > 0)
        result = { confirmed: unionOfSorted([sorted, [...new Set(confirmed)].sort()]), conditional };
    }
    this.nameConfirmations.set(key, result);
    return result;
  }

  /** The context's names, plus the same names under every product they were renamed to or from. */
  private async contextCpes(context: MatchContext): Promise<ContextCpe[]> {
    const inputs: ContextCpe[] = [];
    const add = (cpe: string, role: ContextCpe['role']) => {
      const wfn = parseOrSkip(cpe);
      if (wfn) inputs.push({ cpe, wfn, role });
    };
    for (const cpe of new Set(context.fingerprintCpes)) add(cpe, 'fingerprint');
    for (const cpe of new Set(context.osCpes)) add(cpe, 'os');
    const aliases = await this.aliasesOf(inputs.map((input) => productKeyOf(input.wfn)));
    const withAliases = [...inputs];
    for (const input of inputs) {
      for (const target of aliases.get(productKeyOf(input.wfn)) ?? []) {
        const wfn = renamed(input.wfn, target);
        if (wfn) withAliases.push({ cpe: input.cpe, wfn, role: input.role, alias: formatCpe23(wfn) });
      }
    }
    return withAliases;
  }

  private async aliasesOf(productKeys: string[]): Promise<Map<string, string[]>> {
    const missing = [...new Set(productKeys)].filter((key) => !this.aliasCache.has(key));
    if (missing.length > 0) {
      const found = await this.source.aliases(missing);
      for (const key of missing) this.aliasCache.set(key, found.get(key) ?? []);
    }
    return new Map(productKeys.map((key) => [key, this.aliasCache.get(key) ?? []]));
  }

  private async candidatesOf(name: CandidateName): Promise<string[]> {
    const product = `${name.part}:${name.vendor}:${name.product}`;
    let known = this.productsWithCriteria.get(product);
    if (known === undefined) {
      known = await this.source.productHasCriteria(name, this.generation);
      this.productsWithCriteria.set(product, known);
    }
    if (!known) return [];
    const key = nameKey(name);
    let cves = this.names.get(key);
    if (!cves) {
      cves = await this.source.candidates(name, this.generation);
      this.names.set(key, cves);
    }
    return cves;
  }

  private async applicabilityOf(cveIds: string[]): Promise<CveApplicability[]> {
    const missing = cveIds.filter((id) => !this.applicabilities.has(id));
    if (missing.length > 0) {
      const loaded = new Map((await this.source.applicability(missing)).map((app) => [app.cveId, app]));
      for (const id of missing) this.applicabilities.set(id, loaded.get(id) ?? null);
    }
    const out: CveApplicability[] = [];
    for (const id of cveIds) {
      const app = this.applicabilities.get(id);
      if (app) out.push(app);
    }
    return out;
  }
}
