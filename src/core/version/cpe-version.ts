/**
 * The comparable version of a CPE name (reference-matching.md §3.3 step 2): NVD stores OpenSSH
 * 7.9p1 as `version=7.9, update=p1`, so a patch-like update is folded into the version before a
 * range check (`7.9` + `p1` → `7.9p1`, `5.1.52` + `sp1` → `5.1.52sp1`). A pre-release update
 * (`beta7`, `rc1`, `milestone3`) becomes a pre-release suffix (`2.0-beta7`); ANY and NA updates,
 * and neutral ones (`ga`, `final`), are ignored.
 */
import { concreteWfnValue as concreteValue, type Wfn } from '../cpe.js';

/** Post-release words an update may start with, mapped to the spelling the version gets. */
const PATCH_WORDS: Record<string, string> = {
  p: 'p',
  pl: 'pl',
  patch: 'patch',
  post: 'post',
  sp: 'sp',
  u: 'u',
  update: 'update',
  cumulative_update: 'update',
  cu: 'update',
  r: 'r',
  rev: 'rev',
  hotfix: 'hotfix',
  fix: 'fix',
  build: 'build',
  errata: 'errata',
};
const PATCH_UPDATE = /^([a-z]+(?:_[a-z]+)?)[._-]?(\d.*)$/;
const PRE_RELEASE_UPDATE = /^(?:dev|snapshot|ea|alpha|beta|milestone|rc|cr|pre|preview|a|b|m)[._-]?\d*$/;
const NEUTRAL_UPDATE = /^(?:ga|final|release|stable)$/;

/** Appends a concrete `update` to a plain version string. */
export function foldUpdate(version: string, update: string): string {
  const lowered = update.trim().toLowerCase();
  if (lowered === '' || NEUTRAL_UPDATE.test(lowered)) return version;
  const patch = PATCH_UPDATE.exec(lowered);
  // Own keys only: an update such as `constructor1` must not find what every object inherits.
  if (patch) {
    const word = patch[1]!; // both groups always take part in a match
    if (Object.hasOwn(PATCH_WORDS, word)) return version + PATCH_WORDS[word]! + patch[2]!;
  }
  if (PRE_RELEASE_UPDATE.test(lowered)) return `${version}-${lowered}`;
  // A bare number (a build) extends the version; anything else is kept for the comparator to rank.
  if (/^\d+$/.test(lowered)) return `${version}.${lowered}`;
  return `${version}-${lowered}`;
}

/**
 * The version to compare for a CPE name, or `undefined` when the name has no concrete version
 * (ANY, NA, or a wildcard pattern such as `2.4.*`).
 */
export function versionOfWfn(wfn: Wfn): string | undefined {
  const version = concreteValue(wfn.version);
  if (version === undefined) return undefined;
  const update = concreteValue(wfn.update);
  return update === undefined ? version : foldUpdate(version, update);
}
