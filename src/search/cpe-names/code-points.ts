/**
 * Code-point order of strings, which is the bytewise order of their UTF-8 (the order both engines
 * give `COLLATE "C"` / BINARY text). JavaScript's `<` compares UTF-16 units, which differs only
 * where a character above U+FFFF meets one in U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return orderUnit(x) - orderUnit(y);
  }
  return a.length - b.length;
}

/** Surrogates (characters above U+FFFF) after every other unit. */
const orderUnit = (unit: number) =>
  unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
