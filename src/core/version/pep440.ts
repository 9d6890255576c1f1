/**
 * PEP 440 ordering for Python versions: epochs, release segments with trailing zeros ignored,
 * pre-releases (a/b/rc and their spellings), post- and dev-releases, local versions.
 * `undefined`: not a PEP 440 version.
 */
import { sign, type Order } from './comparison.js';

// The pattern from the `packaging` library (VERSION_PATTERN), case-insensitive.
const PEP440 = new RegExp(
  '^\\s*v?' +
    '(?:(?<epoch>[0-9]+)!)?' +
    '(?<release>[0-9]+(?:\\.[0-9]+)*)' +
    '(?<pre>[-_.]?(?<preLabel>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?<preNumber>[0-9]+)?)?' +
    '(?<post>(?:-(?<postImplicit>[0-9]+))|(?:[-_.]?(?<postLabel>post|rev|r)[-_.]?(?<postNumber>[0-9]+)?))?' +
    '(?<dev>[-_.]?(?<devLabel>dev)[-_.]?(?<devNumber>[0-9]+)?)?' +
    '(?:\\+(?<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?' +
    '\\s*$',
  'i',
);

const PRE_LABEL_RANK: Record<string, number> = { a: 0, alpha: 0, b: 1, beta: 1, c: 2, rc: 2, pre: 2, preview: 2 };

/** Sort-key parts; ±Infinity stand for packaging's Infinity/NegativeInfinity markers. */
interface Pep440Key {
  epoch: bigint;
  release: bigint[];
  pre: [number, bigint] | number;
  post: bigint | number;
  dev: bigint | number;
  local: (bigint | string)[] | undefined;
}

const number = (text: string | undefined) => BigInt(text ?? '0');

function parse(text: string): Pep440Key | undefined {
  const groups = PEP440.exec(text)?.groups;
  if (!groups) return undefined;
  // `release` always takes part in a match; `preLabel` whenever `pre` does, and it is one of
  // PRE_LABEL_RANK's keys.
  const release = groups.release!.split('.').map((part) => BigInt(part));
  while (release.length > 1 && release[release.length - 1] === 0n) release.pop();
  const hasPre = groups.pre !== undefined;
  const hasPost = groups.post !== undefined;
  const hasDev = groups.dev !== undefined;
  return {
    epoch: number(groups.epoch),
    release,
    // A dev release of a final version (1.0.dev1) sorts before its pre-releases (1.0a1).
    pre: hasPre
      ? [PRE_LABEL_RANK[groups.preLabel!.toLowerCase()]!, number(groups.preNumber)]
      : !hasPost && hasDev
        ? -Infinity
        : Infinity,
    post: hasPost ? number(groups.postImplicit ?? groups.postNumber) : -Infinity,
    dev: hasDev ? number(groups.devNumber) : Infinity,
    local: groups.local
      ?.toLowerCase()
      .split(/[-_.]/)
      .map((part) => (/^\d+$/.test(part) ? BigInt(part) : part)),
  };
}

function compareScalars(a: bigint | number, b: bigint | number): Order {
  if (typeof a === 'number' || typeof b === 'number') return sign(Number(a) - Number(b));
  return sign(a - b);
}

function compareReleases(a: bigint[], b: bigint[]): Order {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const order = sign((a[i] ?? 0n) - (b[i] ?? 0n));
    if (order) return order;
  }
  return 0;
}

function comparePre(a: Pep440Key['pre'], b: Pep440Key['pre']): Order {
  if (typeof a === 'number' || typeof b === 'number') {
    const rank = (p: Pep440Key['pre']) => (typeof p === 'number' ? p : 0);
    return sign(rank(a) - rank(b));
  }
  return sign(a[0] - b[0]) || sign(a[1] - b[1]);
}

/** Local segments: numbers sort above words; a version without a local part sorts first. */
function compareLocal(a: Pep440Key['local'], b: Pep440Key['local']): Order {
  if (!a || !b) return sign(Number(Boolean(a)) - Number(Boolean(b)));
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (typeof x !== typeof y) return typeof x === 'bigint' ? 1 : -1;
    const order = typeof x === 'bigint' ? sign(x - (y as bigint)) : x < y ? -1 : x > y ? 1 : 0;
    if (order) return order;
  }
  return sign(a.length - b.length);
}

export function comparePep440(a: string, b: string): Order | undefined {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return undefined;
  return (
    sign(left.epoch - right.epoch) ||
    compareReleases(left.release, right.release) ||
    comparePre(left.pre, right.pre) ||
    compareScalars(left.post, right.post) ||
    compareScalars(left.dev, right.dev) ||
    compareLocal(left.local, right.local)
  );
}
