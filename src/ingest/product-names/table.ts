/**
 * Scanner product names (`Apache httpd`, nmap's and Shodan's `product`) → the CPE product they
 * name (`a:apache:http_server`), so a fingerprint that carries no CPE still gets a vendor, a
 * product and CVE matching. The scanner's text stays in the fingerprint.
 */
import { ANY, formatCpe23, quoteWfnValue, type Wfn } from '../../core/cpe.js';
import type { Fingerprint } from '../../core/observation.js';
import { fingerprintFromCpe } from '../readers/fingerprint-cpe.js';

/** A CPE product as WFN values (quoted where CPE 2.3 needs it). */
export interface CpeProduct {
  part: string;
  vendor: string;
  product: string;
}

/** Case and runs of spaces do not tell product names apart. */
export const productNameKey = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

export class ProductNameTable {
  constructor(
    private readonly names: ReadonlyMap<string, CpeProduct>,
    /** Where the table came from, for reports. */
    readonly source: string,
  ) {}

  lookup(text: string): CpeProduct | undefined {
    return this.names.get(productNameKey(text));
  }

  get size(): number {
    return this.names.size;
  }

  /**
   * The fingerprint with the CPE its product text names (its version in the CPE when it can be a
   * CPE value); a fingerprint with a CPE, without a product, or with an unknown one, as it is.
   */
  identify(fingerprint: Fingerprint): Fingerprint {
    if (fingerprint.cpe !== undefined || fingerprint.product === undefined) return fingerprint;
    const named = this.lookup(fingerprint.product);
    if (!named) return fingerprint;
    const version = fingerprint.version?.trim();
    const wfn = wfnOf(named, version);
    if (!wfn) return fingerprint;
    const { vendor: _vendor, product: _product, version: _version, ...extras } = fingerprint;
    const identity = fingerprintFromCpe({ wfn, cpe: formatCpe23(wfn) });
    const kept: Record<string, string> = {};
    // The scanner's own words stay: nmap's readers keep them as nmap_product / nmap_version already.
    if (extras.nmap_product === undefined) kept.scanner_product = fingerprint.product;
    if (version && identity.version === undefined && extras.nmap_version === undefined) kept.scanner_version = version;
    return { ...identity, ...extras, ...kept };
  }
}

function wfnOf(named: CpeProduct, version: string | undefined): Wfn | undefined {
  const blank: Wfn = {
    part: named.part,
    vendor: named.vendor,
    product: named.product,
    version: ANY,
    update: ANY,
    edition: ANY,
    language: ANY,
    sw_edition: ANY,
    target_sw: ANY,
    target_hw: ANY,
    other: ANY,
  };
  if (!version) return blank;
  try {
    return { ...blank, version: quoteWfnValue(version) };
  } catch {
    // A version that cannot be a CPE value (spaces, non-ASCII): the product is still known.
    return blank;
  }
}
