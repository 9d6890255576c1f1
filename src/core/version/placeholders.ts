/**
 * Values that stand in for a version without being one. CVE records use them in `version`
 * (`n/a`, `unspecified`) and NVD uses `*` (ANY) and `-` (NA); none of them can be ordered.
 */
const PLACEHOLDERS = new Set(['', '-', 'n/a', 'na', 'none', 'unspecified', 'unknown', '?', 'tbd', 'null']);
/** Spellings of "every version"; meaningful only where a whole range is being described. */
const ALL_VERSIONS = new Set(['*', 'all', 'all versions', 'any', 'every version']);

const normalize = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

export const isPlaceholderVersion = (text: string): boolean => PLACEHOLDERS.has(normalize(text));

export const isAllVersions = (text: string): boolean => ALL_VERSIONS.has(normalize(text));
