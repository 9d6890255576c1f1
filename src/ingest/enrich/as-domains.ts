import { VulnscopeError } from '../../core/errors.js';
import { splitCsvLine } from '../classifications/csv.js';
import { readLines } from '../classifications/lines.js';

const ASN = /^(?:AS)?(\d{1,10})$/i;
const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/** Parses `15169` or `AS15169` to 15169; undefined when it is not an AS number. */
export function parseAsn(text: string): number | undefined {
  const match = ASN.exec(text.trim());
  const number = match ? Number(match[1]) : NaN;
  return number >= 1 && number <= 0xffffffff ? number : undefined;
}

/**
 * Reads an `asn,domain` CSV (header optional) into AS number → domain. Bad lines are reported
 * through `onWarning` with file and line and skipped; a later line for the same AS wins.
 */
export async function readAsDomains(path: string, onWarning: (message: string) => void): Promise<Map<number, string>> {
  const domains = new Map<number, string>();
  let seenFirstLine = false;
  for await (const { text, line } of readLines(path)) {
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const isFirstLine = !seenFirstLine;
    seenFirstLine = true;
    const warn = (reason: string) => onWarning(`${path}:${line}: ${reason}; line skipped`);
    let fields: string[];
    try {
      fields = splitCsvLine(trimmed);
    } catch (error) {
      if (!(error instanceof VulnscopeError)) throw error;
      warn(error.message);
      continue;
    }
    const [asnText = '', domainText = ''] = fields.map((field) => field.trim());
    const asn = parseAsn(asnText);
    if (asn === undefined) {
      if (!isFirstLine) warn(`"${asnText}" is not an AS number`);
      continue; // a first line that is no AS number is the header
    }
    const domain = domainText.toLowerCase();
    if (domain === '') {
      warn(`no domain for AS${asn}`);
      continue;
    }
    if (!DOMAIN.test(domain)) {
      warn(`"${domainText}" is not a domain name`);
      continue;
    }
    domains.set(asn, domain);
  }
  return domains;
}
