/**
 * The product names of nmap's service-probe file (`nmap-service-probes`, installed with nmap; read
 * from the user's installation, never copied into Vulnscope): each `match`/`softmatch` line names
 * a product (`p/Apache httpd/`) and usually the application CPE it is (`cpe:/a:apache:http_server/`).
 * A name whose lines disagree keeps the CPE most of them give, or none when no CPE has a majority.
 */
import fs from 'node:fs/promises';
import { parseCpeQuery } from '../../core/cpe.js';
import { invalidInput } from '../../core/errors.js';
import { type CpeProduct, ProductNameTable, productNameKey } from './table.js';

interface ProbeFields {
  product?: string;
  cpes: string[];
}

/** The `p/…/` and `cpe:/…/` fields of a match line (after its `m|regex|flags`); undefined for other lines. */
export function probeFields(line: string): ProbeFields | undefined {
  const match = /^(?:soft)?match \S+ m(.)/.exec(line);
  if (!match) return undefined;
  const regexEnd = line.indexOf(match[1]!, match[0].length);
  if (regexEnd < 0) return undefined;
  let i = regexEnd + 1;
  while (line[i] === 'i' || line[i] === 's') i++;
  const fields: ProbeFields = { cpes: [] };
  while (i < line.length) {
    if (line[i] === ' ') {
      i++;
      continue;
    }
    const isCpe = line.startsWith('cpe:', i);
    const open = isCpe ? i + 4 : i + 1;
    const delimiter = line[open];
    if (delimiter === undefined) break;
    const close = line.indexOf(delimiter, open + 1);
    if (close < 0) break;
    const value = line.slice(open + 1, close);
    if (isCpe) fields.cpes.push(value);
    else if (line[i] === 'p') fields.product = value;
    i = close + 1;
    // Flags after a field (`cpe:/a:…/a`).
    while (i < line.length && line[i] !== ' ') i++;
  }
  return fields;
}

const applicationOf = (cpes: string[]): CpeProduct | undefined => {
  const text = cpes.find((cpe) => cpe.startsWith('a:'));
  // The version is usually taken from the banner (`:$1`); the vendor and product must not be.
  const identity = text?.split(':').slice(0, 3).join(':');
  if (identity === undefined || identity.includes('$')) return undefined;
  try {
    const wfn = parseCpeQuery(`cpe:/${identity}`);
    return { part: wfn.part, vendor: wfn.vendor, product: wfn.product };
  } catch {
    return undefined;
  }
};

/** Product name key → the CPE product most of its lines give (a strict majority of those with one). */
export function productNamesOfProbes(lines: Iterable<string>): Map<string, CpeProduct> {
  const counts = new Map<string, Map<string, { product: CpeProduct; count: number }>>();
  for (const line of lines) {
    const fields = probeFields(line);
    // `p/$1/`: the name comes from the banner, so the line names no product of its own.
    if (!fields?.product || fields.product.includes('$')) continue;
    const product = applicationOf(fields.cpes);
    if (!product) continue;
    const name = productNameKey(fields.product);
    const byCpe = counts.get(name) ?? new Map();
    counts.set(name, byCpe);
    const key = `${product.part}:${product.vendor}:${product.product}`;
    const entry = byCpe.get(key);
    if (entry) entry.count++;
    else byCpe.set(key, { product, count: 1 });
  }
  const names = new Map<string, CpeProduct>();
  for (const [name, byCpe] of counts) {
    let total = 0;
    let best: { product: CpeProduct; count: number } | undefined;
    for (const entry of byCpe.values()) {
      total += entry.count;
      if (!best || entry.count > best.count) best = entry;
    }
    if (best && best.count * 2 > total) names.set(name, best.product);
  }
  return names;
}

/** Reads an nmap-service-probes file into a product-name table. */
export async function readNmapServiceProbes(file: string): Promise<ProductNameTable> {
  let text: string;
  try {
    text = await fs.readFile(file, 'latin1');
  } catch (error) {
    throw invalidInput(`cannot read the nmap service-probe file ${file}: ${(error as Error).message}`);
  }
  return new ProductNameTable(productNamesOfProbes(text.split('\n')), file);
}
