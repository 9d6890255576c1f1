/**
 * Package URLs (purl-spec PURL-SPECIFICATION, reference-matching.md §2.7): parsing right to left,
 * canonical formatting, type-specific normalisation, and the mappings a vulnerability query needs
 * (purl type → CVE 5 `collectionURL`, → OSV ecosystem, → package name as those sources spell it).
 */
import { invalidInput } from './errors.js';

export interface PackageUrl {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers?: Record<string, string>;
  subpath?: string;
}

const TYPE_PATTERN = /^[a-z.+-][a-z0-9.+-]*$/;
const QUALIFIER_KEY_PATTERN = /^[a-z.\-_][a-z0-9.\-_]*$/;

function invalid(text: string, reason: string): never {
  throw invalidInput(`invalid purl "${text}": ${reason}`);
}

function decode(text: string, component: string, purl: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return invalid(purl, `malformed percent-encoding in the ${component}`);
  }
}

/** Percent-encodes a component; `:` and `+` stay readable, `/` only where it is data (values). */
function encode(text: string, keepSlash = false): string {
  const encoded = encodeURIComponent(text).replace(/%3A/g, ':').replace(/%2B/g, '+');
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

/** Subpath and namespace segments: `/`-separated, empty, `.` and `..` segments dropped. */
function segments(text: string, dropDots: boolean): string[] {
  return text.split('/').filter((s) => s !== '' && !(dropDots && (s === '.' || s === '..')));
}

interface TypeRule {
  lowerNamespace?: boolean;
  lowerName?: boolean;
  normalizeName?: (name: string) => string;
  namespace?: 'required' | 'prohibited';
  versionRequired?: boolean;
  check?: (purl: PackageUrl) => string | undefined;
}

/** Per-type rules from the purl type definitions (PURL-TYPES). Other types are taken as given. */
const TYPE_RULES: Record<string, TypeRule> = {
  pypi: { normalizeName: (name) => name.toLowerCase().replace(/_/g, '-') },
  npm: { lowerNamespace: true, lowerName: true },
  github: { lowerNamespace: true, lowerName: true, namespace: 'required' },
  bitbucket: { lowerNamespace: true, lowerName: true, namespace: 'required' },
  golang: { lowerNamespace: true, lowerName: true, namespace: 'required' },
  composer: { lowerNamespace: true, lowerName: true, namespace: 'required' },
  cargo: { namespace: 'prohibited' },
  maven: { namespace: 'required' },
  swift: { namespace: 'required', versionRequired: true },
  cran: { versionRequired: true },
  conan: {
    check: (purl) =>
      (purl.namespace !== undefined) !== (purl.qualifiers?.channel !== undefined)
        ? 'a conan namespace (user) and the channel qualifier go together'
        : undefined,
  },
};

/** Applies the type's case rules and checks its required/prohibited components. */
function normalize(purl: PackageUrl, text: string): PackageUrl {
  const rule = Object.hasOwn(TYPE_RULES, purl.type) ? TYPE_RULES[purl.type]! : {};
  const namespace = purl.namespace && rule.lowerNamespace ? purl.namespace.toLowerCase() : purl.namespace;
  let name = rule.lowerName ? purl.name.toLowerCase() : purl.name;
  if (rule.normalizeName) name = rule.normalizeName(name);
  const result: PackageUrl = { ...purl, namespace, name };
  if (rule.namespace === 'required' && !namespace) invalid(text, `a ${purl.type} purl needs a namespace`);
  if (rule.namespace === 'prohibited' && namespace) invalid(text, `a ${purl.type} purl has no namespace`);
  if (rule.versionRequired && !purl.version) invalid(text, `a ${purl.type} purl needs a version`);
  const problem = rule.check?.(result);
  if (problem) invalid(text, problem);
  return stripUndefined(result);
}

function stripUndefined(purl: PackageUrl): PackageUrl {
  return Object.fromEntries(Object.entries(purl).filter(([, value]) => value !== undefined)) as unknown as PackageUrl;
}

function checkType(type: string, text: string): void {
  if (type === '') invalid(text, 'a type is required');
  if (!TYPE_PATTERN.test(type)) invalid(text, `type "${type}" may only hold [a-z0-9.+-] and not start with a digit`);
}

function checkQualifierKey(key: string, text: string): void {
  if (!QUALIFIER_KEY_PATTERN.test(key)) {
    invalid(text, `qualifier key "${key}" may only hold [a-z0-9.-_] and not start with a digit`);
  }
}

function parseQualifiers(query: string, text: string): Record<string, string> | undefined {
  const qualifiers: Record<string, string> = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    if (equals <= 0) invalid(text, `qualifier "${pair}" is not key=value`);
    const key = pair.slice(0, equals).toLowerCase();
    checkQualifierKey(key, text);
    if (key in qualifiers) invalid(text, `qualifier "${key}" appears twice`);
    const value = decode(pair.slice(equals + 1), 'qualifiers', text);
    if (value !== '') qualifiers[key] = value;
  }
  return Object.keys(qualifiers).length > 0 ? qualifiers : undefined;
}

/** Parses a purl (`pkg:type/namespace/name@version?qualifiers#subpath`); throws `invalidInput`. */
export function parsePurl(input: string): PackageUrl {
  const text = input.trim();
  let rest = text;
  let subpath: string | undefined;
  const hash = rest.lastIndexOf('#');
  if (hash >= 0) {
    const parts = segments(rest.slice(hash + 1), true).map((s) => decode(s, 'subpath', text));
    subpath = parts.length > 0 ? parts.join('/') : undefined;
    rest = rest.slice(0, hash);
  }
  let qualifiers: Record<string, string> | undefined;
  const question = rest.lastIndexOf('?');
  if (question >= 0) {
    qualifiers = parseQualifiers(rest.slice(question + 1), text);
    rest = rest.slice(0, question);
  }
  const colon = rest.indexOf(':');
  if (colon < 0 || rest.slice(0, colon).toLowerCase() !== 'pkg') invalid(text, 'the scheme must be "pkg:"');
  rest = rest.slice(colon + 1).replace(/^\/+/, '');
  const slash = rest.indexOf('/');
  if (slash < 0) invalid(text, 'a type and a name are required');
  const type = rest.slice(0, slash).toLowerCase();
  checkType(type, text);
  rest = rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
  let version: string | undefined;
  // An `@` before the last `/` is an npm scope (`@babel/core`), not a version separator.
  const at = rest.lastIndexOf('@');
  if (at > rest.lastIndexOf('/')) {
    version = decode(rest.slice(at + 1), 'version', text);
    if (version === '') invalid(text, 'the version is empty');
    rest = rest.slice(0, at);
  }
  const lastSlash = rest.lastIndexOf('/');
  const name = decode(rest.slice(lastSlash + 1), 'name', text);
  if (name === '') invalid(text, 'a name is required');
  const namespaceParts =
    lastSlash >= 0 ? segments(rest.slice(0, lastSlash), false).map((s) => decode(s, 'namespace', text)) : [];
  const namespace = namespaceParts.length > 0 ? namespaceParts.join('/') : undefined;
  return normalize({ type, namespace, name, version, qualifiers, subpath }, text);
}

/** The canonical purl: lower-case type, sorted lower-case qualifier keys, minimal encoding. */
export function formatPurl(purl: PackageUrl): string {
  const type = purl.type.toLowerCase();
  const described = JSON.stringify(purl);
  checkType(type, described);
  if (!purl.name) invalid(described, 'a name is required');
  const qualifiers = Object.entries(purl.qualifiers ?? {})
    .map(([key, value]) => [key.toLowerCase(), value] as const)
    .filter(([, value]) => value !== '');
  for (const [key] of qualifiers) checkQualifierKey(key, described);
  const normalized = normalize({ ...purl, type, qualifiers: Object.fromEntries(qualifiers) }, described);
  let text = `pkg:${type}/`;
  if (normalized.namespace)
    text += `${segments(normalized.namespace, false)
      .map((s) => encode(s))
      .join('/')}/`;
  text += encode(normalized.name);
  if (normalized.version) text += `@${encode(normalized.version)}`;
  if (qualifiers.length > 0) {
    const sorted = [...qualifiers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    text += `?${sorted.map(([key, value]) => `${key}=${encode(value, true)}`).join('&')}`;
  }
  const subpath = normalized.subpath ? segments(normalized.subpath, true) : [];
  if (subpath.length > 0) text += `#${subpath.map((s) => encode(s)).join('/')}`;
  return text;
}

/** purl type → the CVE 5 `collectionURL` of its public registry. */
const COLLECTION_URLS: Record<string, string> = {
  npm: 'https://registry.npmjs.org',
  pypi: 'https://pypi.org',
  maven: 'https://repo.maven.apache.org/maven2',
  golang: 'https://pkg.go.dev',
  cargo: 'https://crates.io',
  gem: 'https://rubygems.org',
  nuget: 'https://www.nuget.org',
  composer: 'https://packagist.org',
  hex: 'https://hex.pm',
  pub: 'https://pub.dev',
  cocoapods: 'https://cocoapods.org',
  hackage: 'https://hackage.haskell.org',
  cran: 'https://cran.r-project.org',
  github: 'https://github.com',
  bitbucket: 'https://bitbucket.org',
  docker: 'https://hub.docker.com',
};

/** Other spellings of the registries seen in real CVE records (`https://pypi.python.org/`). */
const COLLECTION_URL_ALIASES: Record<string, string> = {
  'pypi.python.org': 'pypi',
  'www.npmjs.com': 'npm',
  'npmjs.com': 'npm',
  'repo1.maven.org/maven2': 'maven',
  'proxy.golang.org': 'golang',
  'nuget.org': 'nuget',
  'crates.io/crates': 'cargo',
};

// The lookups read the tables' own keys only: input such as `constructor` or `__proto__` must not
// find what every object inherits.

export function purlCollectionUrl(type: string): string | undefined {
  const key = type.toLowerCase();
  return Object.hasOwn(COLLECTION_URLS, key) ? COLLECTION_URLS[key] : undefined;
}

const hostAndPath = (url: string) =>
  url
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/\/+$/, '');

/** The purl type whose registry a CVE 5 `collectionURL` names, tolerating trailing `/` and aliases. */
export function purlTypeForCollectionUrl(url: string): string | undefined {
  const key = hostAndPath(url);
  const exact = Object.entries(COLLECTION_URLS).find(([, registry]) => hostAndPath(registry) === key);
  if (exact) return exact[0];
  return Object.hasOwn(COLLECTION_URL_ALIASES, key) ? COLLECTION_URL_ALIASES[key] : undefined;
}

/** purl type → OSV ecosystem name. */
const OSV_ECOSYSTEMS: Record<string, string> = {
  golang: 'Go',
  pypi: 'PyPI',
  cargo: 'crates.io',
  npm: 'npm',
  maven: 'Maven',
  gem: 'RubyGems',
  nuget: 'NuGet',
  composer: 'Packagist',
  hex: 'Hex',
  pub: 'Pub',
  hackage: 'Hackage',
  cran: 'CRAN',
  swift: 'SwiftURL',
  deb: 'Debian',
  apk: 'Alpine',
  bitnami: 'Bitnami',
  conan: 'ConanCenter',
};

export function purlEcosystem(type: string): string | undefined {
  const key = type.toLowerCase();
  return Object.hasOwn(OSV_ECOSYSTEMS, key) ? OSV_ECOSYSTEMS[key] : undefined;
}

/**
 * The package name as CVE 5 `packageName` and OSV `package.name` spell it: Maven
 * `group:artifact`, npm `@scope/name`, Go and Packagist `namespace/name`. Go purls are lower-cased
 * by the purl spec while module paths are not, so compare Go names case-insensitively.
 */
export function purlPackageName(purl: PackageUrl): string {
  if (!purl.namespace) return purl.name;
  return purl.type === 'maven' ? `${purl.namespace}:${purl.name}` : `${purl.namespace}/${purl.name}`;
}
