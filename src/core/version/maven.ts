/**
 * Maven's ComparableVersion ordering (the Maven 3.6 algorithm): dotted and dashed items, a
 * number↔letter switch starts a sub-list, and qualifiers order
 * alpha < beta < milestone < rc < snapshot < "" (final/ga/release) < sp < anything else.
 * Any text parses, so the caller screens out placeholders first.
 */
import { sign, type Order } from './comparison.js';

type Item = { kind: 'int'; value: bigint } | { kind: 'string'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
// Maps: a qualifier such as `constructor` must not find what every object inherits.
const ALIASES = new Map([
  ['ga', ''],
  ['final', ''],
  ['release', ''],
  ['cr', 'rc'],
]);
const LETTER_ALIASES = new Map([
  ['a', 'alpha'],
  ['b', 'beta'],
  ['m', 'milestone'],
]);
const RELEASE_QUALIFIER = String(QUALIFIERS.indexOf(''));

function stringItem(text: string, followedByDigit: boolean): Item {
  const value = followedByDigit && text.length === 1 ? (LETTER_ALIASES.get(text) ?? text) : text;
  return { kind: 'string', value: ALIASES.get(value) ?? value };
}

const parseItem = (isDigit: boolean, text: string): Item =>
  isDigit ? { kind: 'int', value: BigInt(text) } : stringItem(text, false);

function isNull(item: Item): boolean {
  if (item.kind === 'int') return item.value === 0n;
  if (item.kind === 'string') return item.value === '';
  return item.items.length === 0;
}

/** Drops trailing null items (0, "", empty lists) up to the last non-list item. */
function normalize(list: Item & { kind: 'list' }): void {
  for (let i = list.items.length - 1; i >= 0; i--) {
    const last = list.items[i]!;
    if (isNull(last)) list.items.splice(i, 1);
    else if (last.kind !== 'list') break;
  }
}

function parse(version: string): Item {
  const text = version.trim().toLowerCase();
  const root: Item & { kind: 'list' } = { kind: 'list', items: [] };
  let list = root;
  const stack = [root];
  const startSublist = () => {
    const sublist: Item & { kind: 'list' } = { kind: 'list', items: [] };
    list.items.push(sublist);
    list = sublist;
    stack.push(sublist);
  };
  let isDigit = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '.' || c === '-') {
      list.items.push(i === start ? { kind: 'int', value: 0n } : parseItem(isDigit, text.slice(start, i)));
      start = i + 1;
      if (c === '-') startSublist();
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        list.items.push(stringItem(text.slice(start, i), true));
        start = i;
        startSublist();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.items.push(parseItem(true, text.slice(start, i)));
        start = i;
        startSublist();
      }
      isDigit = false;
    }
  }
  if (text.length > start) list.items.push(parseItem(isDigit, text.slice(start)));
  for (const sublist of stack.reverse()) normalize(sublist);
  return root;
}

function qualifierKey(value: string): string {
  const index = QUALIFIERS.indexOf(value);
  return index === -1 ? `${QUALIFIERS.length}-${value}` : String(index);
}

const compareText = (a: string, b: string): Order => (a < b ? -1 : a > b ? 1 : 0);

/** ComparableVersion's Item.compareTo, with `undefined` standing for Java's null. */
function compareItems(a: Item, b: Item | undefined): Order {
  if (a.kind === 'int') {
    if (!b) return a.value === 0n ? 0 : 1;
    return b.kind === 'int' ? sign(a.value - b.value) : 1;
  }
  if (a.kind === 'string') {
    if (!b) return compareText(qualifierKey(a.value), RELEASE_QUALIFIER);
    if (b.kind === 'string') return compareText(qualifierKey(a.value), qualifierKey(b.value));
    return -1;
  }
  if (!b) return a.items.length === 0 ? 0 : compareItems(a.items[0]!, undefined);
  if (b.kind === 'int') return -1;
  if (b.kind === 'string') return 1;
  for (let i = 0; i < Math.max(a.items.length, b.items.length); i++) {
    const left = a.items[i];
    const right = b.items[i];
    const order = left ? compareItems(left, right) : right ? (-compareItems(right, undefined) as Order) : 0;
    if (order !== 0) return order;
  }
  return 0;
}

export function compareMaven(a: string, b: string): Order {
  return compareItems(parse(a), parse(b));
}
