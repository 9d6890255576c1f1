/**
 * CPE names: the CPE 2.3 well-formed name (WFN), its formatted-string (FS) and CPE 2.2 URI
 * bindings (NISTIR 7695), and name matching (NISTIR 7696). Rules: reference-matching.md §2.1–2.3.
 *
 * Every value is parsed into "units" (one literal character, or an unquoted `*`/`?` wildcard) and
 * rendered back from them, so the three textual forms only differ in how units are spelled.
 */
import { invalidInput, type VulnscopeError } from './errors.js';
import { boundedMemo } from './memo.js';

export const CPE_ATTRIBUTES = [
  'part',
  'vendor',
  'product',
  'version',
  'update',
  'edition',
  'language',
  'sw_edition',
  'target_sw',
  'target_hw',
  'other',
] as const;
export type CpeAttribute = (typeof CPE_ATTRIBUTES)[number];
/**
 * A WFN: each attribute is '*' (ANY), '-' (NA) or a WFN string value with special characters
 * backslash-quoted (e.g. version `2\.4\.49`). Values are lower-cased.
 */
export type Wfn = Record<CpeAttribute, string>;

/** The logical value ANY as stored in a {@link Wfn}. */
export const ANY = '*';
/** The logical value NA (not applicable) as stored in a {@link Wfn}. */
export const NA = '-';

/** `api.CPE` as the API sends it: the 11 attributes as WFN strings (`*` ANY, `-` NA, specials quoted). */
export const cpeStruct = (wfn: Wfn): Record<CpeAttribute, string> =>
  Object.fromEntries(CPE_ATTRIBUTES.map((attribute) => [attribute, wfn[attribute] ?? ANY])) as Record<
    CpeAttribute,
    string
  >;

/** NISTIR 7696 attribute comparison result. UNDEFINED: the target itself holds wildcards. */
export type Relation = 'SUPERSET' | 'SUBSET' | 'EQUAL' | 'DISJOINT' | 'UNDEFINED';

const FS_PREFIX = 'cpe:2.3:';
const URI_PREFIX = 'cpe:/';
/** Components of a CPE 2.2 URI: part … language; edition may pack the four 2.3 extras. */
const URI_ATTRIBUTES = CPE_ATTRIBUTES.slice(0, 7);
const PACKED_ATTRIBUTES = ['edition', 'sw_edition', 'target_sw', 'target_hw', 'other'] as const;
const EXTENDED_ATTRIBUTES = ['sw_edition', 'target_sw', 'target_hw', 'other'] as const;
const PARTS = new Set(['a', 'o', 'h', ANY, NA]);

// ---------------------------------------------------------------------------------------------
// Units: the parsed form of one attribute value

type Unit = { kind: 'literal'; char: string } | { kind: 'wildcard'; char: '*' | '?' };

const literal = (char: string): Unit => ({ kind: 'literal', char });
const wildcard = (char: '*' | '?'): Unit => ({ kind: 'wildcard', char });

/** Letters, digits and `_` are the only characters a WFN never quotes. */
const isUnreserved = (char: string) => /^[a-z0-9_]$/.test(char);
const isPrintableAscii = (char: string) => char >= '!' && char <= '~';
const isWildcard = (unit: Unit, char?: '*' | '?') =>
  unit.kind === 'wildcard' && (char === undefined || unit.char === char);

function describeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return `character ${JSON.stringify(char)} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
}

/**
 * An unquoted `*` may only be the first or last unit; an unquoted `?` only the first or last
 * unit or part of a leading or trailing run of `?`. Returns the problem, if any.
 */
function wildcardPositionProblem(units: Unit[]): string | undefined {
  const last = units.length - 1;
  for (let i = 0; i <= last; i++) {
    const unit = units[i]!;
    if (unit.kind !== 'wildcard') continue;
    const allowed =
      unit.char === '*'
        ? i === 0 || i === last
        : units.slice(0, i).every((u) => isWildcard(u, '?')) || units.slice(i + 1).every((u) => isWildcard(u, '?'));
    if (!allowed) return `unquoted "${unit.char}" in the middle`;
  }
  return undefined;
}

/** The WFN spelling of units: every non-unreserved literal is backslash-quoted. */
function unitsToWfn(units: Unit[]): string {
  return units.map((u) => (u.kind === 'wildcard' || isUnreserved(u.char) ? u.char : `\\${u.char}`)).join('');
}

/** Reads a WFN string value (not ANY/NA) into units; throws on anything a WFN cannot hold. */
function wfnToUnits(value: string): Unit[] {
  const text = value.toLowerCase();
  const fail = (problem: string) => invalidInput(`invalid WFN value "${value}": ${problem}`);
  if (text === '') throw fail('empty value');
  const units: Unit[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\\') {
      const quoted = text[++i];
      if (quoted === undefined) throw fail('ends with a lone backslash');
      if (!isPrintableAscii(quoted)) throw fail(`${describeChar(quoted)} is not allowed`);
      units.push(literal(quoted));
    } else if (char === '*' || char === '?') {
      units.push(wildcard(char));
    } else if (isUnreserved(char)) {
      units.push(literal(char));
    } else {
      throw fail(`unquoted ${describeChar(char)} at position ${i}`);
    }
  }
  const problem = wildcardPositionProblem(units);
  if (problem) throw fail(problem);
  return units;
}

const isLogical = (value: string) => value === ANY || value === NA;

/**
 * True when a WFN value holds an unquoted `*` or `?`, i.e. it is a pattern, not a value. A scan
 * rather than wfnToUnits: this sits on the hot path of every name comparison.
 */
export function hasUnquotedWildcard(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char === '\\') i++;
    else if (char === '*' || char === '?') return true;
  }
  return false;
}

/** A concrete WFN value as plain text (`2\\.4` → `2.4`); ANY, NA, empty and patterns name no value. */
export const concreteWfnValue = (value: string): string | undefined =>
  value === ANY || value === NA || value === '' || hasUnquotedWildcard(value) ? undefined : unquoteWfnValue(value);

// Fast paths for the common spelling: names and versions made of letters, digits, `_`, `.` and `-`
// only. A scan carries tens of thousands of distinct CPEs, each parsed once; the unit-by-unit
// path below costs about ten times as much. Anything else (quoting, wildcards, other characters,
// upper case) returns undefined and takes that path, which gives the same result.

const isLowerUnreservedCode = (code: number) =>
  (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
const isDotOrHyphenCode = (code: number) => code === 0x2e || code === 0x2d;

/** FS field → WFN value when the field holds only [a-z0-9_.-] (`.` and `-` get quoted). */
export function plainFsFieldToWfn(field: string): string | undefined {
  // Checked first, built only if something needs quoting: most names have nothing to quote.
  let quotes = 0;
  for (let i = 0; i < field.length; i++) {
    const code = field.charCodeAt(i);
    if (isDotOrHyphenCode(code)) quotes++;
    else if (!isLowerUnreservedCode(code)) return undefined;
  }
  if (quotes === 0) return field;
  let wfn = '';
  for (let i = 0; i < field.length; i++) wfn += isDotOrHyphenCode(field.charCodeAt(i)) ? `\\${field[i]}` : field[i];
  return wfn;
}

/** WFN value → FS field when the value holds only [a-z0-9_] and quoted `.` or `-`. */
export function plainWfnToFs(value: string): string | undefined {
  if (value === '') return undefined;
  if (value === '\\-') return value; // a lone hyphen keeps its quote, else it reads as NA
  let unquoted = '';
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x5c /* \\ */) {
      if (i + 1 >= value.length || !isDotOrHyphenCode(value.charCodeAt(i + 1))) return undefined;
      unquoted += value.slice(start, i);
      start = ++i;
    } else if (!isLowerUnreservedCode(code)) {
      return undefined;
    }
  }
  return start === 0 ? value : unquoted + value.slice(start);
}

// ---------------------------------------------------------------------------------------------
// Errors

const MAX_QUOTED_INPUT = 200;

function cpeError(text: string, problem: string): VulnscopeError {
  const shown = text.length > MAX_QUOTED_INPUT ? `${text.slice(0, MAX_QUOTED_INPUT)}…` : text;
  return invalidInput(`invalid CPE "${shown}": ${problem}`);
}

// ---------------------------------------------------------------------------------------------
// CPE 2.3 formatted string (FS)

/** Splits on colons that are not backslash-quoted; the quoting stays in the fields. */
function splitFormattedString(body: string, text: string): string[] {
  if (!body.includes('\\')) return body.split(':');
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === '\\') {
      if (i + 1 >= body.length) throw cpeError(text, 'ends with a lone backslash');
      current += char + body[++i];
    } else if (char === ':') {
      fields.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  fields.push(current);
  return fields;
}

/** NISTIR 7695 unbindValueFS/addQuoting for one field. */
function unbindFsValue(field: string, attribute: CpeAttribute, text: string): string {
  if (field === '') throw cpeError(text, `empty ${attribute}`);
  if (isLogical(field)) return field;
  return plainFsFieldToWfn(field) ?? unbindFsValueByUnits(field, attribute, text);
}

/** unbindFsValue for any field (exported for the test that holds the fast path to it). */
export function unbindFsValueByUnits(field: string, attribute: CpeAttribute, text: string): string {
  const units: Unit[] = [];
  for (let i = 0; i < field.length; i++) {
    const char = field[i]!;
    const quoted = char === '\\' ? field[++i] : undefined;
    const shown = quoted ?? char;
    if (!isPrintableAscii(shown)) {
      throw cpeError(text, `${describeChar(shown)} is not allowed in ${attribute}`);
    }
    if (quoted !== undefined) units.push(literal(quoted));
    else if (char === '*' || char === '?') units.push(wildcard(char));
    else units.push(literal(char));
  }
  const problem = wildcardPositionProblem(units);
  if (problem) throw cpeError(text, `${problem} of ${attribute}`);
  return unitsToWfn(units);
}

function parseFormattedString(text: string, padMissing: boolean): Wfn {
  const lower = text.toLowerCase();
  const fields = splitFormattedString(lower.slice(FS_PREFIX.length), text);
  const expected = CPE_ATTRIBUTES.length;
  const tooFew = fields.length < expected && !padMissing;
  if (fields.length > expected || tooFew) {
    throw cpeError(text, `has ${fields.length + 2} colon-separated fields, expected ${expected + 2}`);
  }
  const wfn = {} as Wfn;
  CPE_ATTRIBUTES.forEach((attribute, i) => {
    const field = fields[i];
    wfn[attribute] = field === undefined ? ANY : unbindFsValue(field, attribute, text);
  });
  return checkPart(wfn, text);
}

/** NISTIR 7695 processQuotedChars, except that a lone hyphen keeps its quote (else it reads as NA). */
function bindFsValue(value: string): string {
  if (isLogical(value)) return value;
  return plainWfnToFs(value) ?? bindFsValueByUnits(value);
}

/** A plain (unquoted) value as a CPE 2.3 formatted string field, with its specials backslash-quoted. */
export function formatFsValue(plain: string): string {
  return bindFsValue(quoteWfnValue(plain));
}

/** bindFsValue for any value (exported for the test that holds the fast path to it). */
export function bindFsValueByUnits(value: string): string {
  const units = wfnToUnits(value);
  if (units.length === 1 && units[0]!.kind === 'literal' && units[0]!.char === '-') return '\\-';
  return units
    .map((u) => {
      if (u.kind === 'wildcard' || isUnreserved(u.char) || u.char === '.' || u.char === '-') {
        return u.char;
      }
      return `\\${u.char}`;
    })
    .join('');
}

// ---------------------------------------------------------------------------------------------
// CPE 2.2 URI

/** Lower-case hex, so `~` is %7e (the reference pctEncode wrongly gives %7d). */
function percentEncode(char: string): string {
  return `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/**
 * NISTIR 7695's legal percent-encodings (pctEncode's outputs), with `%3a` decoding to `:` (the
 * reference wrongly yields `)`), plus `%2d`, which we emit for a lone literal hyphen.
 */
const LEGAL_PERCENT_CHARS = new Set('!"#$%&\'()*+,/:;<=>?@[\\]^`{|}~-');

/** NISTIR 7695 transformForURI, except that a lone hyphen is %2d (a bare `-` is NA). */
function bindUriValue(value: string): string {
  if (value === ANY) return '';
  if (value === NA) return '-';
  const units = wfnToUnits(value);
  if (units.length === 1 && units[0]!.kind === 'literal' && units[0]!.char === '-') return '%2d';
  return units
    .map((u) => {
      if (u.kind === 'wildcard') return u.char === '?' ? '%01' : '%02';
      if (isUnreserved(u.char) || u.char === '.' || u.char === '-') return u.char;
      return percentEncode(u.char);
    })
    .join('');
}

/**
 * NISTIR 7695 decode for one URI component. Lenient where the spec allows it: a bare `*` or `?`
 * is read like %02/%01 (so a `*` component is ANY), and other bare punctuation is quoted.
 */
function decodeUriValue(component: string, attribute: CpeAttribute, text: string): string {
  if (component === '') return ANY;
  if (component === NA) return NA;
  const units: Unit[] = [];
  for (let i = 0; i < component.length; i++) {
    const char = component[i]!;
    if (char === '%') {
      const form = component.slice(i, i + 3);
      units.push(decodePercentForm(form, attribute, text));
      i += 2;
    } else if (char === '*' || char === '?') {
      units.push(wildcard(char));
    } else if (char === '\\') {
      throw cpeError(text, `a backslash is not allowed in a CPE 2.2 URI (${attribute})`);
    } else if (!isPrintableAscii(char)) {
      throw cpeError(text, `${describeChar(char)} is not allowed in ${attribute}`);
    } else {
      units.push(literal(char));
    }
  }
  if (units.length === 1 && isWildcard(units[0]!, '*')) return ANY;
  const problem = wildcardPositionProblem(units);
  if (problem) throw cpeError(text, `${problem} of ${attribute}`);
  return unitsToWfn(units);
}

function decodePercentForm(form: string, attribute: CpeAttribute, text: string): Unit {
  if (form === '%01') return wildcard('?');
  if (form === '%02') return wildcard('*');
  const char = /^%[0-9a-f]{2}$/.test(form) ? String.fromCharCode(parseInt(form.slice(1), 16)) : '';
  if (!LEGAL_PERCENT_CHARS.has(char)) {
    throw cpeError(text, `illegal percent-encoding "${form}" in ${attribute}`);
  }
  return literal(char);
}

function parseUri(text: string): Wfn {
  const components = text.toLowerCase().slice(URI_PREFIX.length).split(':');
  // Lenient: VulnCheck accepts URIs carrying the four 2.3 extras as components 8–11.
  if (components.length > CPE_ATTRIBUTES.length) {
    throw cpeError(text, `has ${components.length} components, expected at most 7 (or 11 with 2.3-style extras)`);
  }
  const wfn = Object.fromEntries(CPE_ATTRIBUTES.map((a) => [a, ANY])) as Wfn;
  components.forEach((component, i) => {
    const attribute = CPE_ATTRIBUTES[i]!; // at most CPE_ATTRIBUTES.length components (checked above)
    if (attribute === 'edition' && component.startsWith('~')) {
      if (components.length > URI_ATTRIBUTES.length) {
        throw cpeError(text, 'has both a packed edition and extra components');
      }
      unpackEdition(component, wfn, text);
    } else {
      wfn[attribute] = decodeUriValue(component, attribute, text);
    }
  });
  return checkPart(wfn, text);
}

function unpackEdition(packed: string, wfn: Wfn, text: string): void {
  const parts = packed.slice(1).split('~');
  if (parts.length !== PACKED_ATTRIBUTES.length) {
    throw cpeError(text, `packed edition has ${parts.length} "~"-separated parts, expected 5`);
  }
  PACKED_ATTRIBUTES.forEach((attribute, i) => {
    wfn[attribute] = decodeUriValue(parts[i]!, attribute, text);
  });
}

function packEdition(wfn: Wfn): string {
  const edition = bindUriValue(wfn.edition);
  if (EXTENDED_ATTRIBUTES.every((a) => wfn[a] === ANY)) return edition;
  return `~${PACKED_ATTRIBUTES.map((a) => bindUriValue(wfn[a])).join('~')}`;
}

// ---------------------------------------------------------------------------------------------
// Public parse / format

function checkPart(wfn: Wfn, text: string): Wfn {
  if (!PARTS.has(wfn.part)) throw cpeError(text, `part must be a, o, h, * or -, not "${wfn.part}"`);
  return wfn;
}

function parseAny(text: string, padMissing: boolean): Wfn {
  const prefix = text.slice(0, FS_PREFIX.length).toLowerCase();
  if (prefix === FS_PREFIX) return parseFormattedString(text, padMissing);
  if (prefix.startsWith(URI_PREFIX)) return parseUri(text);
  throw cpeError(text, 'expected a CPE 2.3 formatted string (cpe:2.3:…) or a CPE 2.2 URI (cpe:/…)');
}

/** Parses a CPE 2.3 formatted string (exactly 11 attributes) or a CPE 2.2 URI into a WFN. */
export function parseCpe(text: string): Wfn {
  return parseAny(text, false);
}

/** Like {@link parseCpe}, but missing trailing attributes of a 2.3 string are ANY (user queries). */
export function parseCpeQuery(text: string): Wfn {
  return parseAny(text, true);
}

export function isCpe(text: string): boolean {
  try {
    parseCpe(text);
    return true;
  } catch {
    return false;
  }
}

/** Binds a WFN to a CPE 2.3 formatted string (lower-cased, like every binding here). */
export function formatCpe23(wfn: Wfn): string {
  return FS_PREFIX + CPE_ATTRIBUTES.map((a) => bindFsValue(wfn[a])).join(':');
}

/** Binds a WFN to a CPE 2.2 URI (extras packed into the edition, trailing empty components trimmed). */
export function formatCpe22(wfn: Wfn): string {
  const components = URI_ATTRIBUTES.map((a) => (a === 'edition' ? packEdition(wfn) : bindUriValue(wfn[a])));
  return (URI_PREFIX + components.join(':')).replace(/:+$/, '');
}

/** `2\.4\.49` -> `2.4.49`: drops the quoting, for display and version comparison. */
export function unquoteWfnValue(value: string): string {
  if (!value.includes('\\')) return value;
  return value.replace(/\\(.)/gs, '$1');
}

/** `2.4.49` -> `2\.4\.49`: a plain (lower-cased) string as a WFN value with no wildcards. */
export function quoteWfnValue(plain: string): string {
  if (plain === '') throw invalidInput('invalid WFN value "": empty value');
  const units = [...plain.toLowerCase()].map((char) => {
    if (!isPrintableAscii(char)) {
      throw invalidInput(`invalid WFN value "${plain}": ${describeChar(char)} is not allowed`);
    }
    return literal(char);
  });
  return unitsToWfn(units);
}

// ---------------------------------------------------------------------------------------------
// Matching (NISTIR 7696)

/**
 * Compares one attribute of source S (criterion/pattern) with target T (candidate name). Both are
 * WFN values; a malformed one is rejected when the comparison has to read it character by character.
 */
const PLAIN = /^[a-z0-9_]+$/;
/** A value of letters, digits and `_` only: two different plain values are disjoint. */
export const isPlainValue = (value: string) => PLAIN.test(value);
/** Attribute values repeat across every criterion and name: each is read into units once. */
const unitsOf = boundedMemo(wfnToUnits);

export function compareAttribute(source: string, target: string): Relation {
  const s = source.toLowerCase();
  const t = target.toLowerCase();
  if (t !== ANY && hasUnquotedWildcard(t)) return 'UNDEFINED';
  if (s === t) return 'EQUAL';
  if (s === ANY) return 'SUPERSET';
  if (t === ANY) return 'SUBSET';
  if (s === NA || t === NA) return 'DISJOINT';
  // Two different plain values (letters, digits, `_`: nothing quoted, no wildcard) differ.
  if (PLAIN.test(s) && PLAIN.test(t)) return 'DISJOINT';
  const pattern = unitsOf(s);
  const chars = unitsOf(t).map((u) => u.char);
  if (!pattern.some((u) => isWildcard(u))) {
    // Only reachable when the spellings differ but the characters may not (e.g. a caller's `\_`).
    return sameChars(
      pattern.map((u) => u.char),
      chars,
    )
      ? 'EQUAL'
      : 'DISJOINT';
  }
  return matchesPattern(pattern, chars) ? 'SUPERSET' : 'DISJOINT';
}

export function compareWfn(source: Wfn, target: Wfn): Record<CpeAttribute, Relation> {
  return Object.fromEntries(CPE_ATTRIBUTES.map((a) => [a, compareAttribute(source[a], target[a])])) as Record<
    CpeAttribute,
    Relation
  >;
}

/** True when source ⊇ target: every attribute SUPERSET or EQUAL ("criterion matches name"). */
export function cpeMatches(source: Wfn, target: Wfn): boolean {
  return CPE_ATTRIBUTES.every((a) => {
    const relation = compareAttribute(source[a], target[a]);
    return relation === 'SUPERSET' || relation === 'EQUAL';
  });
}

/** How many characters a leading or trailing wildcard group stands for. */
type Span = { any: true } | { any: false; exactly: number };

interface Pattern {
  lead: Span;
  middle: string[];
  trail: Span;
}

/** Splits valid units into leading wildcards, literal middle, trailing wildcards. */
function splitPattern(units: Unit[]): Pattern {
  let start = 0;
  let end = units.length;
  let lead: Span = { any: false, exactly: 0 };
  let trail: Span = { any: false, exactly: 0 };
  // Valid units are never empty (an empty value is refused when read).
  if (isWildcard(units[0]!, '*')) {
    lead = { any: true };
    start = 1;
  } else {
    while (start < end && isWildcard(units[start]!, '?')) start++;
    lead = { any: false, exactly: start };
  }
  if (end > start && isWildcard(units[end - 1]!, '*')) {
    trail = { any: true };
    end--;
  } else {
    while (end > start && isWildcard(units[end - 1]!, '?')) end--;
    trail = { any: false, exactly: units.length - end };
  }
  return { lead, middle: units.slice(start, end).map((u) => u.char), trail };
}

function matchesPattern(units: Unit[], target: string[]): boolean {
  const { lead, middle, trail } = splitPattern(units);
  const firstPrefix = lead.any ? 0 : lead.exactly;
  const lastPrefix = lead.any ? target.length : lead.exactly;
  for (let prefix = firstPrefix; prefix <= lastPrefix; prefix++) {
    const suffix = target.length - prefix - middle.length;
    if (suffix < 0) return false;
    if (!trail.any && suffix !== trail.exactly) continue;
    if (sameChars(middle, target.slice(prefix, prefix + middle.length))) return true;
  }
  return false;
}

function sameChars(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((char, i) => char === b[i]);
}
