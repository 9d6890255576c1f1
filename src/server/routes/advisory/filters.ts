/** Validates the filter parameters of `/v4/advisory`; each bad value is a 400 naming its parameter. */
import type { AdvisoryFilters } from '../../../core/advisory/filters.js';
import { normalizeLang, normalizeText, purlKey } from '../../../core/advisory/terms.js';
import { concreteWfnValue, parseCpeQuery } from '../../../core/cpe.js';
import { parseDateMath } from '../../../core/date-math.js';
import { FEED_NAME } from '../../../core/entitlements.js';
import { badRequest } from '../../../core/errors.js';
import { parsePurl } from '../../../core/purl.js';
import { isComparableVendorVersion } from '../../../core/version/vendor.js';

const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;
const ADVISORY_ID = /^[A-Za-z][A-Za-z0-9]*-[A-Za-z0-9][A-Za-z0-9._:-]{0,100}$/;
const LANG = /^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/;
const MAX_TEXT = 500;

/** Runs a core parser, turning its invalid-input error into a 400 that names the parameter. */
function named<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw badRequest(`parameter "${name}": ${(error as Error).message}`);
  }
}

function text(name: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw badRequest(`parameter "${name}" must not be blank`);
  if (trimmed.length > MAX_TEXT) throw badRequest(`parameter "${name}" is longer than ${MAX_TEXT} characters`);
  return trimmed;
}

function version(name: string, value: string): string {
  const trimmed = text(name, value);
  if (!isComparableVendorVersion(trimmed)) {
    throw badRequest(`parameter "${name}" must be a concrete version such as 2.4.49, got "${value}"`);
  }
  return trimmed;
}

export interface ParsedFilters {
  /** The feed asked for with `name`. */
  feed?: string;
  filters: AdvisoryFilters;
}

export function parseAdvisoryFilters(params: Record<string, string>, now = Date.now()): ParsedFilters {
  const filters: AdvisoryFilters = {};
  let feed: string | undefined;
  for (const [name, value] of Object.entries(params)) {
    switch (name) {
      case 'name': {
        const feedName = text(name, value).toLowerCase();
        if (!FEED_NAME.test(feedName)) throw badRequest(`parameter "name": unknown feed "${value}"`);
        feed = feedName;
        break;
      }
      case 'cve_id': {
        // Records without a CVE (some OSV advisories) are served under their own id, e.g. GO-2022-0001.
        const id = value.trim();
        if (CVE_ID.test(id)) filters.cveId = id.toUpperCase();
        else if (ADVISORY_ID.test(id)) filters.cveId = id;
        else
          throw badRequest(
            `parameter "cve_id" must look like CVE-YYYY-NNNN (or an advisory id such as GO-2022-0001), got "${value}"`,
          );
        break;
      }
      case 'vendor':
      case 'product':
      case 'platform':
        filters[name] = normalizeText(text(name, value));
        break;
      case 'package_name':
        filters.packageName = text(name, value).toLowerCase();
        break;
      case 'version':
        filters.version = version(name, value);
        break;
      case 'cpe': {
        const cpe = named(name, () => parseCpeQuery(text(name, value)));
        // The vendor (or product) selects the criteria to compare; with neither, every criterion would be read.
        if (concreteWfnValue(cpe.vendor) === undefined && concreteWfnValue(cpe.product) === undefined) {
          throw badRequest(
            'parameter "cpe" must name a vendor or a product without wildcards (e.g. cpe:2.3:a:apache:http_server:*)',
          );
        }
        filters.cpe = cpe;
        break;
      }
      case 'purl': {
        const purl = named(name, () => parsePurl(text(name, value)));
        filters.packageKey = purlKey(purl);
        if (purl.version !== undefined) {
          const purlVersion = version(name, purl.version);
          if (params.version !== undefined && params.version.trim() !== purlVersion) {
            throw badRequest(
              `parameters "purl" and "version" name different versions ("${purlVersion}" and "${params.version}")`,
            );
          }
          filters.version = purlVersion;
        }
        break;
      }
      case 'reference_url':
        filters.referenceUrl = text(name, value);
        break;
      case 'reference_tag':
        filters.referenceTag = normalizeText(text(name, value));
        break;
      case 'description_lang':
        if (!LANG.test(value.trim()))
          throw badRequest(`parameter "description_lang" must be a language tag such as en or en-US, got "${value}"`);
        filters.descriptionLang = normalizeLang(value);
        break;
      case 'updatedAfter':
        filters.updatedAfter = named(name, () => parseDateMath(value, now));
        break;
      case 'updatedBefore':
        filters.updatedBefore = named(name, () => parseDateMath(value, now));
        break;
    }
  }
  return { ...(feed !== undefined ? { feed } : {}), filters };
}
