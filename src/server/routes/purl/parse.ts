/** Reads the purls of `/v3/purl` and `/v3/purls`: each must parse and carry a comparable version. */
import { purlKey } from '../../../core/advisory/terms.js';
import { badRequest } from '../../../core/errors.js';
import { type PackageUrl, parsePurl } from '../../../core/purl.js';
import { isComparableVendorVersion } from '../../../core/version/vendor.js';
import { hasControlCharacter } from '../../plugins/request-text.js';

export interface PurlQuestion {
  purl: PackageUrl;
  /** Package key `type:name`, as the advisory index keys packages. */
  key: string;
  version: string;
}

/** Parses one purl; `where` names it in the 400 (`parameter "purl"`, `item 3 of the request body`). */
export function parsePurlQuestion(text: string, where: string): PurlQuestion {
  if (hasControlCharacter(text)) throw badRequest(`${where} must not contain control characters`);
  let purl: PackageUrl;
  try {
    purl = parsePurl(text);
  } catch (error) {
    throw badRequest(`${where}: ${(error as Error).message}`);
  }
  const version = purl.version?.trim();
  if (!version) throw badRequest(`${where} must name a version (pkg:type/name@version), got "${text.slice(0, 200)}"`);
  if (!isComparableVendorVersion(version)) {
    throw badRequest(`${where} must name a concrete version such as 1.2.3, got "${version.slice(0, 100)}"`);
  }
  return { purl, key: purlKey(purl), version };
}

/** The purl's components as VulnCheck's `purl_struct` carries them: every part present, "" when absent. */
export function purlStruct(purl: PackageUrl) {
  return {
    type: purl.type,
    namespace: purl.namespace ?? '',
    name: purl.name,
    version: purl.version ?? '',
    qualifiers: Object.entries(purl.qualifiers ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ key, value })),
    subpath: purl.subpath ?? '',
  };
}

/** The body of `POST /v3/purls`, checked before schema validation (which would coerce a number to a string). */
export function checkPurlList(body: unknown): void {
  if (!Array.isArray(body)) throw badRequest('the request body must be a JSON array of purl strings');
  const bad = body.findIndex((item) => typeof item !== 'string');
  if (bad >= 0) {
    const item: unknown = body[bad];
    throw badRequest(
      `item ${bad} of the request body must be a purl string, got ${item === null ? 'null' : Array.isArray(item) ? 'an array' : `a ${typeof item}`}`,
    );
  }
}
