import fs from 'node:fs';
import path from 'node:path';
import { parseDatabaseUrl, type DatabaseConfig } from '../src/config.js';
import { fail } from './common.js';

/**
 * Prepared benchmark databases kept between runs (`--prepare-only`, then `--reuse`): loading 400k
 * advisories or deriving the knowledge of 400k CVEs takes minutes, the measurements do not. The
 * data lives outside the repository (`--data`, default /tmp/vulnscope-bench); new migrations apply
 * when a reusing run opens it.
 */
export const DEFAULT_DATA_DIR = '/tmp/vulnscope-bench';

export interface DataOptions {
  engine: 'sqlite' | 'postgres';
  databaseUrl?: string;
  /** Directory holding prepared data. */
  data: string;
  prepareOnly: boolean;
  reuse: boolean;
}

/** Parses `--data`, `--prepare-only`, `--reuse` at argv[i]; returns the next index, or undefined if not one of them. */
export function parseDataArg(argv: string[], i: number, options: DataOptions): number | undefined {
  const arg = argv[i];
  if (arg === '--data') {
    options.data = argv[i + 1] ?? fail('--data needs a value');
    return i + 1;
  }
  if (arg === '--prepare-only') {
    options.prepareOnly = true;
    return i;
  }
  if (arg === '--reuse') {
    options.reuse = true;
    return i;
  }
  return undefined;
}

/** Where a prepared dataset's files live: `<data>/<bench>-<engine>-<size>/`. */
export function preparedDir(options: DataOptions, name: string): string {
  return path.join(options.data, `${name}-${options.engine}`);
}

/** The database of a run: kept under the data directory (or a fixed schema) when prepared, else under `work`. */
export function benchDatabase(options: DataOptions, name: string, work: string, schema: string): DatabaseConfig {
  const keep = options.prepareOnly || options.reuse;
  if (options.engine === 'sqlite') {
    const dir = keep ? preparedDir(options, name) : work;
    fs.mkdirSync(dir, { recursive: true });
    return { engine: 'sqlite', file: path.join(dir, `${name}.db`) };
  }
  const base = options.databaseUrl ?? process.env.VULNSCOPE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const config = parseDatabaseUrl(base);
  if (config.engine !== 'postgres') fail('--engine postgres needs a postgres:// URL');
  return { ...config, schema: keep ? `bench_prep_${schema}` : `bench_${schema}` };
}

export function savePreparedMeta(options: DataOptions, name: string, meta: unknown): void {
  const dir = preparedDir(options, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'prepared.json'), `${JSON.stringify(meta, null, 2)}\n`);
}

export function loadPreparedMeta<T>(options: DataOptions, name: string): T {
  const file = path.join(preparedDir(options, name), 'prepared.json');
  if (!fs.existsSync(file)) fail(`${file} is missing: run with --prepare-only first`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}
