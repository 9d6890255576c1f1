/**
 * Ranges that CNAs write into a CVE 5 `version` field instead of using `lessThan`
 * (`< 2.4.50`, `>= 1.3.0, < 1.3.19`, `5.6.34 and earlier`, `before 7.0`, `All versions < V5.2.2`,
 * `2.11.0 through 2.12.2`). Reading them is a guess at what the author meant, so every result
 * built on them is flagged heuristic by the caller.
 */
export type Operator = '<' | '<=' | '>' | '>=' | '=';

export interface Constraint {
  operator: Operator;
  version: string;
}

/** A version, optionally with a spaced patch suffix as Siemens writes it (`V4.1.1 Patch04`). */
const VERSION = String.raw`(v?\d[^\s,;]*(?: (?:patch|sp|update|hotfix|build) ?\d[^\s,;]*)?)`;
// Every VERSION group takes part in a match, so `m[1]!` and `m[2]!` below are always there.
const PATTERNS: Array<[RegExp, (m: RegExpExecArray) => Constraint[]]> = [
  [
    new RegExp(`^(?:from )?${VERSION} (?:through|to|until|up to) ${VERSION}$`),
    (m) => [
      { operator: '>=', version: m[1]! },
      { operator: '<=', version: m[2]! },
    ],
  ],
  [
    new RegExp(`^(?:before|prior to|earlier than|below|lower than|older than) ${VERSION}$`),
    (m) => [{ operator: '<', version: m[1]! }],
  ],
  [new RegExp(`^(?:up to(?: and including)?|through|until) ${VERSION}$`), (m) => [{ operator: '<=', version: m[1]! }]],
  [
    new RegExp(`^${VERSION} (?:and|or) (?:earlier|prior|below|lower|older|before)$`),
    (m) => [{ operator: '<=', version: m[1]! }],
  ],
  [
    new RegExp(`^${VERSION} (?:and|or) (?:later|above|higher|newer|after)$`),
    (m) => [{ operator: '>=', version: m[1]! }],
  ],
];

const OPERATORS: Record<string, Operator> = {
  '<': '<',
  '<=': '<=',
  '=<': '<=',
  '>': '>',
  '>=': '>=',
  '=>': '>=',
  '=': '=',
  '==': '=',
};

const OPERATOR_CONSTRAINT = new RegExp(`^(<=|>=|=<|=>|==|<|>|=) ?${VERSION}$`);

function parseOperatorList(text: string): Constraint[] | undefined {
  const parts = text.split(/\s*(?:,|;|&&|\band\b)\s*/).filter((part) => part !== '');
  const constraints: Constraint[] = [];
  for (const part of parts) {
    const match = OPERATOR_CONSTRAINT.exec(part);
    if (!match) return undefined;
    // The operator group only matches OPERATORS' keys, and both groups always take part.
    constraints.push({ operator: OPERATORS[match[1]!]!, version: match[2]! });
  }
  return constraints.length > 0 ? constraints : undefined;
}

/** The constraints a free-text `version` describes, or `undefined` when it is not such a text. */
export function parseLenientConstraints(text: string): Constraint[] | undefined {
  const normalized = text
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^(?:all versions|all|versions?) (?=[<>=]|before|prior|up to|through|earlier)/, '');
  for (const [pattern, build] of PATTERNS) {
    const match = pattern.exec(normalized);
    if (match) return build(match);
  }
  return /^[<>=]/.test(normalized) ? parseOperatorList(normalized) : undefined;
}

/** Text that talks about a range (operators, "before", "and earlier", …) even if we cannot read it. */
export function looksLikeRangeText(text: string): boolean {
  return /[<>=]|\b(?:before|prior|earlier|later|through|until|up to|above|below|all|versions|and|or)\b/i.test(text);
}
