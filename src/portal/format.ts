const numbers = new Intl.NumberFormat('en-US');

/** A count as people read it: 4,017. */
export const formatCount = (value: number): string => numbers.format(value);

/** `count` `noun`, with an s when it is not one. */
export const plural = (count: number, noun: string): string => `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;

let regions: Intl.DisplayNames | undefined;

/** The English name of an ISO 3166-1 alpha-2 code, or the code itself. */
export function countryName(code: string): string {
  try {
    regions ??= new Intl.DisplayNames(['en'], { type: 'region' });
    return regions.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** An RFC 3339 instant as `2026-11-28 06:28 UTC` (the API's times are UTC). */
export function formatInstant(value: string | undefined): string {
  if (!value) return '';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value);
  return match ? `${match[1]} ${match[2]} UTC` : value;
}
