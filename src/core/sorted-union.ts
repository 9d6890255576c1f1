/**
 * The union of lists each ascending in code-unit order (as `Array.prototype.sort` leaves strings)
 * and without repeats: ascending, without repeats, in time linear in the lists' lengths.
 */
export function unionOfSorted(lists: readonly (readonly string[])[]): string[] {
  if (lists.length === 0) return [];
  let union = [...lists[0]!];
  for (let i = 1; i < lists.length; i++) union = mergeTwo(union, lists[i]!);
  return union;
}

function mergeTwo(left: readonly string[], right: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const a = left[i]!;
    const b = right[j]!;
    if (a < b) {
      out.push(a);
      i++;
    } else if (b < a) {
      out.push(b);
      j++;
    } else {
      out.push(a);
      i++;
      j++;
    }
  }
  while (i < left.length) out.push(left[i++]!);
  while (j < right.length) out.push(right[j++]!);
  return out;
}
