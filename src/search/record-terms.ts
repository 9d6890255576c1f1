import { parseCpe, type Wfn } from '../core/cpe.js';
import type { Fingerprint } from '../core/observation.js';
import type { IndexEntry } from '../core/host-record.js';
import type { Identity, IdentityCatalog } from './identities.js';
import type { Postings } from './postings.js';

/** Distinct list texts remembered per kind; past this the memo starts over. */
const MEMO_LIMIT = 200_000;

/** Term ids with a key of four numbers that is equal exactly when the term ids are. */
export interface KeyedTerms {
  key: [number, number, number, number];
  termIds: number[];
}

interface FingerprintTerms {
  termIds: number[];
  identities: Array<{ key: string; identity: Identity }>;
}

/**
 * The term ids a record is filed under (deduplicated), in two groups — its lists and its place —
 * except the numeric families the index derives from its columns. Records repeat the same list
 * texts (fingerprints, CVEs, classifications) and the same few
 * values (asn, country, protocol), so each distinct text is parsed and its terms interned once,
 * then found by the text: at 1M records that turned a JSON parse, a JSON key and a dozen string
 * concatenations per record into a few hash lookups.
 */
export class RecordTerms {
  private readonly fingerprintTerms = new Map<string, FingerprintTerms>();
  private readonly cveTerms = new Map<string, number[]>();
  private readonly classificationTerms = new Map<string, number[]>();
  private readonly listIds = new WeakMap<number[], number>();
  private nextListId = 1;
  private readonly networkIds = new Map<string, number>();
  private readonly valueTerms = {
    asn: new Map<string, number>(),
    asname: new Map<string, number>(),
    cc: new Map<string, number>(),
    cn: new Map<string, number>(),
    proto: new Map<string, number>(),
  };

  constructor(
    private readonly postings: Postings,
    private readonly identities: IdentityCatalog,
  ) {}

  /**
   * The terms of the record's lists: CVEs (and whether any is confirmed), fingerprints,
   * classifications; `key` is equal exactly when the terms are, and cheaper to build than joining them.
   */
  listTerms(entry: IndexEntry): KeyedTerms {
    const cves = this.cves(entry.cvesJson);
    const fingerprints = this.fingerprints(entry.fingerprintsJson);
    const classifications = this.classifications(entry.classificationsJson);
    const termIds = [...cves];
    if (entry.confirmed) termIds.push(this.postings.intern('confirmed'));
    for (const id of fingerprints) termIds.push(id);
    for (const id of classifications) termIds.push(id);
    return {
      key: [this.listId(cves), this.listId(fingerprints), this.listId(classifications), entry.confirmed ? 1 : 0],
      termIds,
    };
  }

  /**
   * The terms of where the record is: asn and its name, country code and name, protocol. The key's
   * first number stands for the (asn, as name, protocol) triple and its last is -2, which no list
   * key holds, so a place key never equals a list key.
   */
  placeTerms(entry: IndexEntry): KeyedTerms {
    const asn = entry.asn ? this.value('asn', entry.asn, (v) => `asn:${v.toUpperCase()}`) : -1;
    const asName = entry.asName ? this.value('asname', entry.asName, (v) => `asname:${v}`) : -1;
    const cc = entry.countryCode ? this.value('cc', entry.countryCode, (v) => `cc:${v.toUpperCase()}`) : -1;
    const cn = entry.country ? this.value('cn', entry.country, (v) => `cn:${v.toLowerCase()}`) : -1;
    const proto = this.value('proto', entry.protocol, (v) => `proto:${v.toLowerCase()}`);
    const termIds = [asn, asName, cc, cn, proto].filter((id) => id >= 0);
    return { key: [this.networkId(asn, asName, proto), cc, cn, -2], termIds };
  }

  /** A number for a (asn, as name, protocol) triple of term ids, from the list numbers (never reused). */
  private networkId(asn: number, asName: number, proto: number): number {
    const text = `${asn},${asName},${proto}`;
    let id = this.networkIds.get(text);
    if (id === undefined) {
      if (this.networkIds.size >= MEMO_LIMIT) this.networkIds.clear();
      id = this.nextListId++;
      this.networkIds.set(text, id);
    }
    return id;
  }

  /**
   * A number for a remembered term list (the same array for the same text). Numbers are never
   * reused, so after a memo starts over a text may get a second number, but no two lists share one.
   */
  private listId(terms: number[]): number {
    let id = this.listIds.get(terms);
    if (id === undefined) {
      id = this.nextListId++;
      this.listIds.set(terms, id);
    }
    return id;
  }

  private value(kind: keyof RecordTerms['valueTerms'], value: string, name: (value: string) => string): number {
    const terms = this.valueTerms[kind];
    let id = terms.get(value);
    if (id === undefined) {
      id = this.postings.intern(name(value));
      terms.set(value, id);
    }
    return id;
  }

  private cves(json: string): number[] {
    return remembered(this.cveTerms, json, () => {
      const cves: string[] = JSON.parse(json);
      const names = new Set(cves.map((cve) => `cve:${cve.toUpperCase()}`));
      if (cves.length > 0) names.add('hascve');
      return [...names].map((name) => this.postings.intern(name));
    });
  }

  private classifications(json: string): number[] {
    return remembered(this.classificationTerms, json, () => {
      const names = new Set<string>();
      for (const value of JSON.parse(json) as string[]) {
        names.add(`cls:${value}`);
        const colon = value.indexOf(':');
        names.add(`clt:${colon < 0 ? value : value.slice(0, colon)}`);
      }
      return [...names].map((name) => this.postings.intern(name));
    });
  }

  private fingerprints(json: string): number[] {
    const known = this.fingerprintTerms.get(json);
    if (known) {
      // An identity leaves the catalog when its last record leaves; a record bringing it back revives it.
      for (const { key, identity } of known.identities) {
        if (!this.postings.isLive(identity.termIds[0]!)) this.identities.add(key, identity);
      }
      return known.termIds;
    }
    const termIds = new Set<number>();
    const identities: FingerprintTerms['identities'] = [];
    for (const fp of JSON.parse(json) as Fingerprint[]) {
      const identity = this.identity(fp);
      if (!identity) continue;
      identities.push(identity);
      for (const id of identity.identity.termIds) termIds.add(id);
    }
    if (this.fingerprintTerms.size >= MEMO_LIMIT) this.fingerprintTerms.clear();
    const terms = { termIds: [...termIds], identities };
    this.fingerprintTerms.set(json, terms);
    return terms.termIds;
  }

  private identity(fp: Fingerprint): { key: string; identity: Identity } | undefined {
    const vendor = (fp.vendor ?? '').toLowerCase();
    const product = (fp.product ?? '').toLowerCase();
    const version = (fp.version ?? '').toLowerCase();
    const cpe = fp.cpe?.toLowerCase() ?? '';
    if (!vendor && !product && !version && !cpe) return undefined;
    const key = JSON.stringify([vendor, product, version, cpe]);
    return { key, identity: this.identities.get(key) ?? this.catalogued(key, vendor, product, version, cpe) };
  }

  /** Puts the identity of a live `fp:` term's key back in the catalog (an index read from a snapshot). */
  restoreIdentity(key: string): void {
    const [vendor, product, version, cpe] = JSON.parse(key) as [string, string, string, string];
    this.catalogued(key, vendor, product, version, cpe);
  }

  /** New list numbers start above `highest` (the numbers held by term groups read from a snapshot). */
  numberListsAbove(highest: number): void {
    this.nextListId = Math.max(this.nextListId, highest + 1);
  }

  private catalogued(key: string, vendor: string, product: string, version: string, cpe: string): Identity {
    // The fp: term comes first: its liveness says whether the identity is in the catalog.
    const names = [`fp:${key}`];
    if (vendor) names.push(`v:${vendor}`);
    if (product) names.push(`p:${product}`);
    if (version) names.push(`ver:${version}`);
    const identity: Identity = {
      vendor,
      product,
      version,
      cpe: cpe ? tryParseCpe(cpe) : undefined,
      termIds: names.map((name) => this.postings.intern(name)),
    };
    this.identities.add(key, identity);
    return identity;
  }
}

function remembered(memo: Map<string, number[]>, key: string, compute: () => number[]): number[] {
  let value = memo.get(key);
  if (value === undefined) {
    value = compute();
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(key, value);
  }
  return value;
}

function tryParseCpe(text: string): Wfn | undefined {
  try {
    return parseCpe(text);
  } catch {
    return undefined;
  }
}
