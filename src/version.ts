import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (dist/ and src/ sit one level below it). */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
